// pipeline: cse
// a duplicate in a nested region reuses the outer value; duplicates in sibling regions or blocks are not merged; ops after a region do not see its values
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.add %x, %x : tensor<4xi32>
    %r = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      %a2 = test.add %x, %x : tensor<4xi32>
      %b = test.mul %a2, %i : tensor<4xi32>
      %b2 = test.mul %a2, %i : tensor<4xi32>
      test.sink %b, %b2
      test.yield %b
    })
    test.graph ({
      %g = test.mul %x, %x : tensor<4xi32>
      test.sink %g
    ^bb1:
      %g2 = test.mul %x, %x : tensor<4xi32>
      test.sink %g2
    })
    %after = test.mul %x, %x : tensor<4xi32>
    %l = test.add %x, %x : tensor<4xi32>
    test.sink %after, %l
    builtin.return %r
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.add %0, %0 : tensor<4xi32>
    %2 = test.loop %0 : tensor<4xi32> ({
    ^bb0(%3: tensor<4xi32>):
      %4 = test.mul %1, %3 : tensor<4xi32>
      test.sink %4, %4
      test.yield %4
    })
    test.graph ({
      %5 = test.mul %0, %0 : tensor<4xi32>
      test.sink %5
    ^bb1:
      %6 = test.mul %0, %0 : tensor<4xi32>
      test.sink %6
    })
    %7 = test.mul %0, %0 : tensor<4xi32>
    test.sink %7, %1
    builtin.return %2
  })
})
