// The bundled example: a module with two functions, one calling the other.
// `accy` (no arguments) parses it, verifies it, and shows what the IR core does with it.
builtin.module ({
  builtin.func <{function_type = (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, sym_name = "pick"}> ({
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    builtin.return %y
  })
  builtin.func <{function_type = (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>), sym_name = "main"}> ({
  ^bb0(%a: tensor<4x8xf32>):
    %b = builtin.call %a, %a <{callee = @pick}> : tensor<4x8xf32>
    %c = builtin.call %b, %a <{callee = @pick}> : tensor<4x8xf32>
    builtin.return %b, %c
  })
})
