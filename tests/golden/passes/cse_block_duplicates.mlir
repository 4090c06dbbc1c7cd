// pipeline: cse
// duplicates in one block: the first of each equal group stays, later users are rewired
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>, %y: tensor<4xi32>):
    %c1 = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %c2 = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %x, %c1 : tensor<4xi32>
    %b = test.add %x, %c2 : tensor<4xi32>
    %m1 = test.mul %a, %y : tensor<4xi32>
    %m2 = test.mul %b, %y : tensor<4xi32>
    %r = test.mul %y, %a : tensor<4xi32>
    %s = test.sub %m1, %m2 : tensor<4xi32>
    builtin.return %s, %r, %m2
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>, %1: tensor<4xi32>):
    %2 = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.add %0, %2 : tensor<4xi32>
    %4 = test.mul %3, %1 : tensor<4xi32>
    %5 = test.mul %1, %3 : tensor<4xi32>
    %6 = test.sub %4, %4 : tensor<4xi32>
    builtin.return %6, %5, %4
  })
})
