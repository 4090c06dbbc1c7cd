// pipeline: canonicalize
// the canonicalization pattern of test.neg: neg(neg(x)) -> x, to a fixed point
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %n1 = test.neg %x : tensor<4xi32>
    %n2 = test.neg %n1 : tensor<4xi32>
    %n3 = test.neg %n2 : tensor<4xi32>
    %n4 = test.neg %n3 : tensor<4xi32>
    %n5 = test.neg %n4 : tensor<4xi32>
    %a = test.add %n2, %n4 : tensor<4xi32>
    builtin.return %n2, %n5, %a
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.neg %0 : tensor<4xi32>
    %2 = test.add %0, %0 : tensor<4xi32>
    builtin.return %0, %1, %2
  })
})
