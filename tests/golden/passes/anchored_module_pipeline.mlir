// pipeline: builtin.module(canonicalize,cse)
// a pipeline that is one nest named after the op it runs on is anchored on that op
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %c = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %d = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %c, %x : tensor<4xi32>
    %b = test.add %x, %d : tensor<4xi32>
    %s = test.mul %a, %b : tensor<4xi32>
    builtin.return %s
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.add %0, %1 : tensor<4xi32>
    %3 = test.mul %2, %2 : tensor<4xi32>
    builtin.return %3
  })
})
