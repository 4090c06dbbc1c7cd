// pipeline: dce
// a chain of unused pure ops is erased, users before the values they use
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %c = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %x, %c : tensor<4xi32>
    %b = test.mul %a, %a : tensor<4xi32>
    %d = test.sub %b, %c : tensor<4xi32>
    %e = test.neg %d : tensor<4xi32>
    %keep = test.add %x, %x : tensor<4xi32>
    builtin.return %keep
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.add %0, %0 : tensor<4xi32>
    builtin.return %1
  })
})
