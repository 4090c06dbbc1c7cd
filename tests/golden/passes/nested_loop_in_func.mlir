// pipeline: func(test.loop(cse))
// a nest inside a nest: cse only inside the test.loop ops directly in a function body
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.add %x, %x : tensor<4xi32>
    %b = test.add %x, %x : tensor<4xi32>
    %r = test.loop %a, %b : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>, %j: tensor<4xi32>):
      %c = test.mul %i, %j : tensor<4xi32>
      %d = test.mul %i, %j : tensor<4xi32>
      %e = test.add %x, %x : tensor<4xi32>
      test.yield %c, %d, %e
    })
    builtin.return %r
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.add %0, %0 : tensor<4xi32>
    %2 = test.add %0, %0 : tensor<4xi32>
    %3 = test.loop %1, %2 : tensor<4xi32> ({
    ^bb0(%4: tensor<4xi32>, %5: tensor<4xi32>):
      %6 = test.mul %4, %5 : tensor<4xi32>
      %7 = test.add %0, %0 : tensor<4xi32>
      test.yield %6, %6, %7
    })
    builtin.return %3
  })
})
