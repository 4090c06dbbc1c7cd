// pipeline: canonicalize,func(cse),dce
// the CLI's example pipeline: folds, then cse, then dce
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>, %y: tensor<4xf32>):
    %c = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %k = test.constant <{value = dense<[4, 3, 2, 1]> : tensor<4xi32>}> : tensor<4xi32>
    %ck = test.add %c, %k : tensor<4xi32>
    %five = test.constant <{value = dense<5> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.mul %x, %ck : tensor<4xi32>
    %b = test.mul %five, %x : tensor<4xi32>
    %s = test.add %a, %b : tensor<4xi32>
    %fone = test.constant <{value = dense<1.0> : tensor<4xf32>}> : tensor<4xf32>
    %m = test.mul %y, %fone : tensor<4xf32>
    %n = test.neg %m : tensor<4xf32>
    %nn = test.neg %n : tensor<4xf32>
    %t = test.add %nn, %y : tensor<4xf32>
    builtin.return %s, %t
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>, %1: tensor<4xf32>):
    %2 = test.constant <{value = dense<5> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.mul %0, %2 : tensor<4xi32>
    %4 = test.add %3, %3 : tensor<4xi32>
    %5 = test.add %1, %1 : tensor<4xf32>
    builtin.return %4, %5
  })
})
