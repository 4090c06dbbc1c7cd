// pipeline: canonicalize
// f32 constants fold in f32: rounded to nearest f32, signed zeros kept, x/0 = +-inf
builtin.module ({
  builtin.func <{function_type = () -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "f"}> ({
    %a = test.constant <{value = dense<[1.5, -2.0, -0.0, 3.0]> : tensor<4xf32>}> : tensor<4xf32>
    %b = test.constant <{value = dense<[0.25, 4.0, 2.0, 0.0]> : tensor<4xf32>}> : tensor<4xf32>
    %s = test.add %a, %b : tensor<4xf32>
    %m = test.mul %a, %b : tensor<4xf32>
    %q = test.div %s, %m : tensor<4xf32>
    builtin.return %s, %m, %q
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = () -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "f"}> ({
    %0 = test.constant <{value = dense<[1.75, 2.0, 2.0, 3.0]> : tensor<4xf32>}> : tensor<4xf32>
    %1 = test.constant <{value = dense<[0.375, -8.0, -0.0, 0.0]> : tensor<4xf32>}> : tensor<4xf32>
    %2 = test.constant <{value = dense<"0x55559540000080BE000080FF0000807F"> : tensor<4xf32>}> : tensor<4xf32>
    builtin.return %0, %1, %2
  })
})
