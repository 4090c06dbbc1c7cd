// pipeline: cse
// ops that differ in attributes, result types or operand order are not merged; equal attributes written differently are
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %b = test.constant <{value = dense<2> : tensor<4xi32>}> : tensor<4xi32>
    %c = test.constant <{value = dense<1> : tensor<4xi64>}> : tensor<4xi64>
    %d = test.constant <{value = dense<[1, 1, 1, 1]> : tensor<4xi32>}> : tensor<4xi32>
    %e = test.sub %a, %b : tensor<4xi32>
    %f = test.sub %b, %a : tensor<4xi32>
    test.sink %a, %b, %c, %d, %e, %f
    builtin.return
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> (), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<1> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.constant <{value = dense<2> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.constant <{value = dense<1> : tensor<4xi64>}> : tensor<4xi64>
    %4 = test.sub %1, %2 : tensor<4xi32>
    %5 = test.sub %2, %1 : tensor<4xi32>
    test.sink %1, %2, %3, %1, %4, %5
    builtin.return
  })
})
