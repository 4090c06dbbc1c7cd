// pipeline: dce
// unused values inside nested regions are erased; a value used only by an erased nested op dies too
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %outer = test.mul %x, %x : tensor<4xi32>
    %r = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      %a = test.add %i, %outer : tensor<4xi32>
      %b = test.neg %i : tensor<4xi32>
      test.yield %b
    })
    test.graph ({
      %g = test.add %x, %x : tensor<4xi32>
      test.graph ({
        %h = test.mul %g, %g : tensor<4xi32>
      })
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
      %3 = test.neg %2 : tensor<4xi32>
      test.yield %3
    })
    test.graph ({
      test.graph ({
      ^bb0:
      })
    })
    builtin.return %1
  })
})
