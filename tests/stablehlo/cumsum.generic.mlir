"builtin.module"() <{sym_name = "jit_cumsum"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<5x3xf32>):
    %9 = "func.call"(%arg8) <{callee = @cumsum}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %10 = "func.call"(%arg8) <{callee = @cumprod}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%9, %10) : (tensor<5x3xf32>, tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, res_attrs = [{}], sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<5x3xf32>):
    %8 = "func.call"(%arg7) <{callee = @cumsum_0}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%8) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumsum_0", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<5x3xf32>):
    %4 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.reduce_window"(%arg4, %5) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %7 = "stablehlo.add"(%arg5, %arg6) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%6) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, res_attrs = [{}], sym_name = "cumprod", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<5x3xf32>):
    %3 = "func.call"(%arg3) <{callee = @cumprod_1}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%3) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumprod_1", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<5x3xf32>):
    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = "stablehlo.multiply"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%1) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
