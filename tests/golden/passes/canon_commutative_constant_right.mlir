// pipeline: canonicalize
// a constant on the left of a commutative op moves to the right; sub is not commutative
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %c = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %c, %x : tensor<4xi32>
    %m = test.mul %c, %a : tensor<4xi32>
    %s = test.sub %c, %m : tensor<4xi32>
    builtin.return %a, %m, %s
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.add %0, %1 : tensor<4xi32>
    %3 = test.mul %2, %1 : tensor<4xi32>
    %4 = test.sub %1, %3 : tensor<4xi32>
    builtin.return %2, %3, %4
  })
})
