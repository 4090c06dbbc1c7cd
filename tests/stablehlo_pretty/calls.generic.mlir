"builtin.module"() <{sym_name = "jit_calls"}> ({
  "func.func"() <{function_type = (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1][0]"}, {jax.result_info = "result[1][1]"}, {jax.result_info = "result[2]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg2: tensor<3xf32>):
    %7 = "func.call"(%arg2) <{callee = @"<lambda>"}> : (tensor<3xf32>) -> tensor<3xf32>
    %8 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %10 = "stablehlo.add"(%arg2, %9) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %11 = "func.call"(%10) <{callee = @"<lambda>_0"}> : (tensor<3xf32>) -> tensor<3xf32>
    %12 = "stablehlo.add"(%7, %11) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %13 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %15 = "stablehlo.add"(%arg2, %14) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %16:2 = "stablehlo.optimization_barrier"(%arg2, %15) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    %17 = "stablehlo.sine"(%arg2) : (tensor<3xf32>) -> tensor<3xf32>
    %18 = "stablehlo.sine"(%17) : (tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%12, %16#0, %16#1, %18) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "<lambda>", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<3xf32>):
    %3 = "stablehlo.sine"(%arg1) : (tensor<3xf32>) -> tensor<3xf32>
    %4 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %6 = "stablehlo.multiply"(%3, %5) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%6) : (tensor<3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "<lambda>_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3xf32>):
    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %2 = "stablehlo.add"(%arg0, %1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%2) : (tensor<3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
