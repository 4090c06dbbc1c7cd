// pipeline: cse
// test.isolated starts from an empty table: its constant is not replaced by the outer one, but duplicates inside it merge
builtin.module ({
  builtin.func <{function_type = () -> tensor<4xi32>, sym_name = "f"}> ({
    %c = test.constant <{value = dense<5> : tensor<4xi32>}> : tensor<4xi32>
    test.isolated ({
      %c2 = test.constant <{value = dense<5> : tensor<4xi32>}> : tensor<4xi32>
      %c3 = test.constant <{value = dense<5> : tensor<4xi32>}> : tensor<4xi32>
      test.sink %c2, %c3
    })
    builtin.return %c
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = () -> tensor<4xi32>, sym_name = "f"}> ({
    %0 = test.constant <{value = dense<5> : tensor<4xi32>}> : tensor<4xi32>
    test.isolated ({
      %0 = test.constant <{value = dense<5> : tensor<4xi32>}> : tensor<4xi32>
      test.sink %0, %0
    })
    builtin.return %0
  })
})
