// pipeline: canonicalize
// int x * 0 -> 0 (either side); float x * 0.0 is not 0 (NaN, inf, -0.0): not folded
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>, %y: tensor<4xf32>):
    %z = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %fz = test.constant <{value = dense<0.0> : tensor<4xf32>}> : tensor<4xf32>
    %a = test.mul %x, %z : tensor<4xi32>
    %b = test.mul %z, %x : tensor<4xi32>
    %c = test.mul %y, %fz : tensor<4xf32>
    builtin.return %a, %b, %c
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>, %1: tensor<4xf32>):
    %2 = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.constant <{value = dense<0.0> : tensor<4xf32>}> : tensor<4xf32>
    %4 = test.mul %1, %3 : tensor<4xf32>
    builtin.return %2, %2, %4
  })
})
