// pipeline: func(cse,canonicalize),dce
// func(...) is builtin.func(...): cse then canonicalize on each function, then dce on the module
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.add %x, %x : tensor<4xi32>
    %b = test.add %x, %x : tensor<4xi32>
    %c = test.sub %a, %b : tensor<4xi32>
    %d = test.add %c, %x : tensor<4xi32>
    builtin.return %d
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    builtin.return %0
  })
})
