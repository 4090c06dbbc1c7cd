// pipeline: canonicalize
// unused pure ops (and the constants only they used) are erased; test.source and test.sink have side effects
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %c = test.constant <{value = dense<7> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %x, %x : tensor<4xi32>
    %b = test.mul %a, %x : tensor<4xi32>
    %n = test.neg %b : tensor<4xi32>
    %u = test.sub %x, %c : tensor<4xi32>
    %s = test.source : tensor<4xi32>
    test.sink %x
    builtin.return %x
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.source : tensor<4xi32>
    test.sink %0
    builtin.return %0
  })
})
