// pipeline: canonicalize
// int x + 0 -> x and 0 + x -> x; a zero that is not a splat is not an identity
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %z = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %nz = test.constant <{value = dense<[0, 0, 0, 1]> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %x, %z : tensor<4xi32>
    %b = test.add %z, %a : tensor<4xi32>
    %c = test.add %b, %nz : tensor<4xi32>
    builtin.return %a, %b, %c
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<[0, 0, 0, 1]> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.add %0, %1 : tensor<4xi32>
    builtin.return %0, %0, %2
  })
})
