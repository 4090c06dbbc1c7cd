// pipeline: 
// the empty pipeline changes nothing
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %a = test.add %x, %x : tensor<4xi32>
    %dead = test.add %x, %x : tensor<4xi32>
    builtin.return %a
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.add %0, %0 : tensor<4xi32>
    %2 = test.add %0, %0 : tensor<4xi32>
    builtin.return %1
  })
})
