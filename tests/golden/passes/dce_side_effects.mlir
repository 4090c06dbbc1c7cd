// pipeline: dce
// ops with side effects stay even when unused, and keep what they use alive
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %s = test.source : tensor<4xi32>
    %a = test.add %x, %x : tensor<4xi32>
    %b = test.mul %a, %a : tensor<4xi32>
    test.sink %b
    %p, %q = test.pair : tensor<4xi32>, tensor<4xi32>
    %l = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      test.yield %i
    })
    test.count <{n = 3}>
    builtin.return
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.source : tensor<4xi32>
    %2 = test.add %0, %0 : tensor<4xi32>
    %3 = test.mul %2, %2 : tensor<4xi32>
    test.sink %3
    %4, %5 = test.pair : tensor<4xi32>, tensor<4xi32>
    %6 = test.loop %0 : tensor<4xi32> ({
    ^bb0(%7: tensor<4xi32>):
      test.yield %7
    })
    test.count <{n = 3}>
    builtin.return
  })
})
