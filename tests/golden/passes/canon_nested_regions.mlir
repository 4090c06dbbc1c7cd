// pipeline: canonicalize
// folds, patterns and dead code inside test.loop and test.graph regions, using outer values
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %z = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %c = test.constant <{value = dense<3> : tensor<4xi32>}> : tensor<4xi32>
    %r = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      %a = test.add %i, %z : tensor<4xi32>
      %b = test.mul %c, %c : tensor<4xi32>
      %d = test.add %b, %a : tensor<4xi32>
      %dead = test.sub %d, %c : tensor<4xi32>
      test.yield %d
    })
    test.graph ({
      %n = test.neg %r : tensor<4xi32>
      %nn = test.neg %n : tensor<4xi32>
      %k = test.add %c, %z : tensor<4xi32>
      test.sink %nn, %k
    })
    builtin.return %r
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.loop %0 : tensor<4xi32> ({
    ^bb0(%2: tensor<4xi32>):
      %3 = test.constant <{value = dense<9> : tensor<4xi32>}> : tensor<4xi32>
      %4 = test.add %2, %3 : tensor<4xi32>
      test.yield %4
    })
    test.graph ({
      %5 = test.constant <{value = dense<3> : tensor<4xi32>}> : tensor<4xi32>
      test.sink %1, %5
    })
    builtin.return %1
  })
})
