// pipeline: builtin.func(cse)
// builtin.func(cse) runs cse on each function of the module
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.add %x, %x : tensor<4xi32>
    %b = test.add %x, %x : tensor<4xi32>
    %c = test.mul %a, %b : tensor<4xi32>
    builtin.return %c
  })
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "g"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.neg %x : tensor<4xi32>
    %b = test.neg %x : tensor<4xi32>
    %c = test.sub %a, %b : tensor<4xi32>
    builtin.return %c
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.add %0, %0 : tensor<4xi32>
    %2 = test.mul %1, %1 : tensor<4xi32>
    builtin.return %2
  })
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "g"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.neg %0 : tensor<4xi32>
    %2 = test.sub %1, %1 : tensor<4xi32>
    builtin.return %2
  })
})
