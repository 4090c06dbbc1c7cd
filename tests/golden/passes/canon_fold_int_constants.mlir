// pipeline: canonicalize
// int constants fold through add, sub, mul and div to one constant (i32 wraps)
builtin.module ({
  builtin.func <{function_type = () -> (tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
    %a = test.constant <{value = dense<[1, -2, 3, 2147483647]> : tensor<4xi32>}> : tensor<4xi32>
    %b = test.constant <{value = dense<[10, 20, -30, 1]> : tensor<4xi32>}> : tensor<4xi32>
    %s = test.add %a, %b : tensor<4xi32>
    %d = test.sub %s, %a : tensor<4xi32>
    %m = test.mul %d, %b : tensor<4xi32>
    %q = test.div %m, %a : tensor<4xi32>
    builtin.return %s, %q
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = () -> (tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
    %0 = test.constant <{value = dense<[11, 18, -27, -2147483648]> : tensor<4xi32>}> : tensor<4xi32>
    %1 = test.constant <{value = dense<[100, -200, 300, 0]> : tensor<4xi32>}> : tensor<4xi32>
    builtin.return %0, %1
  })
})
