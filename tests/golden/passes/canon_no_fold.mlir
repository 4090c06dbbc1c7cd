// pipeline: canonicalize{fold=false}
// fold=false: no folds, but patterns, commutative ordering and dead code still apply
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %c = test.constant <{value = dense<2> : tensor<4xi32>}> : tensor<4xi32>
    %z = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %c, %c : tensor<4xi32>
    %b = test.add %z, %x : tensor<4xi32>
    %n = test.neg %x : tensor<4xi32>
    %nn = test.neg %n : tensor<4xi32>
    %dead = test.mul %x, %x : tensor<4xi32>
    builtin.return %a, %b
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<2> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.add %1, %1 : tensor<4xi32>
    %4 = test.add %0, %2 : tensor<4xi32>
    builtin.return %3, %4
  })
})
