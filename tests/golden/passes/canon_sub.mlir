// pipeline: canonicalize
// int x - x -> 0; float x - x is not 0 (NaN, inf): kept; x - 0 -> x (int and +0.0 float); float x - (-0.0) kept
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>, %y: tensor<4xf32>):
    %a = test.sub %x, %x : tensor<4xi32>
    %b = test.sub %y, %y : tensor<4xf32>
    %z = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %pz = test.constant <{value = dense<0.0> : tensor<4xf32>}> : tensor<4xf32>
    %nz = test.constant <{value = dense<-0.0> : tensor<4xf32>}> : tensor<4xf32>
    %c = test.sub %x, %z : tensor<4xi32>
    %d = test.sub %y, %pz : tensor<4xf32>
    %e = test.sub %y, %nz : tensor<4xf32>
    builtin.return %a, %b, %c, %d, %e
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>, %1: tensor<4xf32>):
    %2 = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.sub %1, %1 : tensor<4xf32>
    %4 = test.constant <{value = dense<-0.0> : tensor<4xf32>}> : tensor<4xf32>
    %5 = test.sub %1, %4 : tensor<4xf32>
    builtin.return %2, %3, %0, %1, %5
  })
})
