// pipeline: cse
// ops with side effects are never merged: test.source, test.sink, test.loop
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %s1 = test.source : tensor<4xi32>
    %s2 = test.source : tensor<4xi32>
    test.sink %s1
    test.sink %s1
    %l1 = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      test.yield %i
    })
    %l2 = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      test.yield %i
    })
    test.sink %s2, %l1, %l2
    builtin.return %s1, %s2
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.source : tensor<4xi32>
    %2 = test.source : tensor<4xi32>
    test.sink %1
    test.sink %1
    %3 = test.loop %0 : tensor<4xi32> ({
    ^bb0(%4: tensor<4xi32>):
      test.yield %4
    })
    %5 = test.loop %0 : tensor<4xi32> ({
    ^bb0(%6: tensor<4xi32>):
      test.yield %6
    })
    test.sink %2, %3, %5
    builtin.return %1, %2
  })
})
