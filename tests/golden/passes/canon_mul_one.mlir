// pipeline: canonicalize
// x * 1 -> x for floats and integers, on either side
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xi32>):
    %one = test.constant <{value = dense<1.0> : tensor<4xf32>}> : tensor<4xf32>
    %ione = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.mul %x, %one : tensor<4xf32>
    %b = test.mul %one, %x : tensor<4xf32>
    %c = test.mul %y, %ione : tensor<4xi32>
    builtin.return %a, %b, %c
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xf32>, %1: tensor<4xi32>):
    builtin.return %0, %0, %1
  })
})
