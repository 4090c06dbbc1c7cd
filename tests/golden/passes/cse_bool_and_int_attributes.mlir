// pipeline: cse
// ops whose attributes differ only as true vs 1 are different ops: cse must not merge them
builtin.module ({
  builtin.func <{function_type = () -> (), sym_name = "f"}> ({
    %a = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = 1} : tensor<4xi32>
    %b = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = true} : tensor<4xi32>
    %c = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = [0, 1]} : tensor<4xi32>
    %d = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = [false, true]} : tensor<4xi32>
    %e = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = 1} : tensor<4xi32>
    test.sink %a, %b, %c, %d, %e
    builtin.return
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = () -> (), sym_name = "f"}> ({
    %0 = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = 1} : tensor<4xi32>
    %1 = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = true} : tensor<4xi32>
    %2 = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = [0, 1]} : tensor<4xi32>
    %3 = test.constant <{value = dense<1> : tensor<4xi32>}> {tag = [false, true]} : tensor<4xi32>
    test.sink %0, %1, %2, %3, %0
    builtin.return
  })
})
