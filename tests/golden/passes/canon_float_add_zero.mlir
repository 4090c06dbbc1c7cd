// pipeline: canonicalize
// float x + 0.0 is not x (-0.0 + 0.0 = +0.0): not folded; x + (-0.0) -> x and (-0.0) + x -> x
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xf32>):
    %pz = test.constant <{value = dense<0.0> : tensor<4xf32>}> : tensor<4xf32>
    %nz = test.constant <{value = dense<-0.0> : tensor<4xf32>}> : tensor<4xf32>
    %a = test.add %x, %pz : tensor<4xf32>
    %b = test.add %x, %nz : tensor<4xf32>
    %c = test.add %nz, %a : tensor<4xf32>
    builtin.return %a, %b, %c
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xf32>):
    %1 = test.constant <{value = dense<0.0> : tensor<4xf32>}> : tensor<4xf32>
    %2 = test.add %0, %1 : tensor<4xf32>
    builtin.return %2, %0, %2
  })
})
