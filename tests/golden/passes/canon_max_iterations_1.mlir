// pipeline: canonicalize{max-iterations=1}
// one sweep: the worklist still folds a whole chain (users are revisited within the sweep)
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %c = test.constant <{value = dense<2> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %c, %c : tensor<4xi32>
    %b = test.mul %a, %c : tensor<4xi32>
    %n = test.neg %x : tensor<4xi32>
    %nn = test.neg %n : tensor<4xi32>
    %d = test.sub %nn, %b : tensor<4xi32>
    builtin.return %d
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<8> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.sub %0, %1 : tensor<4xi32>
    builtin.return %2
  })
})
