// pipeline: cse
// terminators are never merged, even pure ones (builtin.return), nor are equal yields of equal loops
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %l1 = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      test.yield %x
    ^bb1:
      test.yield %x
    })
    builtin.return %l1
  })
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "g"}> ({
  ^bb0(%x: tensor<4xi32>):
    builtin.return %x
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.loop %0 : tensor<4xi32> ({
    ^bb0(%2: tensor<4xi32>):
      test.yield %0
    ^bb1:
      test.yield %0
    })
    builtin.return %1
  })
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "g"}> ({
  ^bb0(%0: tensor<4xi32>):
    builtin.return %0
  })
})
