// pipeline: canonicalize
// integer division rounds toward zero; a zero divisor element stops the fold; x / 1 -> x; float 1/0 folds to inf
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.constant <{value = dense<[7, -7, 7, -7]> : tensor<4xi32>}> : tensor<4xi32>
    %b = test.constant <{value = dense<[2, 2, -2, -2]> : tensor<4xi32>}> : tensor<4xi32>
    %z = test.constant <{value = dense<[2, 0, 1, 1]> : tensor<4xi32>}> : tensor<4xi32>
    %one = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %q = test.div %a, %b : tensor<4xi32>
    %r = test.div %a, %z : tensor<4xi32>
    %s = test.div %x, %one : tensor<4xi32>
    %f1 = test.constant <{value = dense<[1.0, -1.0, 0.0, 6.0]> : tensor<4xf32>}> : tensor<4xf32>
    %f0 = test.constant <{value = dense<[0.0, 0.0, 2.0, -4.0]> : tensor<4xf32>}> : tensor<4xf32>
    %fq = test.div %f1, %f0 : tensor<4xf32>
    builtin.return %q, %r, %s, %fq
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<[7, -7, 7, -7]> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.constant <{value = dense<[2, 0, 1, 1]> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.constant <{value = dense<[3, -3, -3, 3]> : tensor<4xi32>}> : tensor<4xi32>
    %4 = test.div %1, %2 : tensor<4xi32>
    %5 = test.constant <{value = dense<"0x0000807F000080FF000000000000C0BF"> : tensor<4xf32>}> : tensor<4xf32>
    builtin.return %3, %4, %0, %5
  })
})
