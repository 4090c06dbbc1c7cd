"builtin.module"() <{sym_name = "jit_cumulative"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg17: tensor<5x3xf32>):
    %21 = "func.call"(%arg17) <{callee = @cumsum}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %22 = "func.call"(%arg17) <{callee = @cummax}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %23 = "func.call"(%arg17) <{callee = @cumprod}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %24 = "func.call"(%arg17) <{callee = @cumsum_2}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %25 = "func.call"(%arg17) <{callee = @cummin}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%21, %22, %23, %24, %25) : (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, res_attrs = [{}], sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg16: tensor<5x3xf32>):
    %20 = "func.call"(%arg16) <{callee = @cumsum_0}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%20) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumsum_0", sym_visibility = "private"}> ({
  ^bb0(%arg13: tensor<5x3xf32>):
    %16 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %17 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %18 = "stablehlo.reduce_window"(%arg13, %17) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
      %19 = "stablehlo.add"(%arg14, %arg15) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%19) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%18) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cummax", sym_visibility = "private"}> ({
  ^bb0(%arg10: tensor<5x3xf32>):
    %12 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %14 = "stablehlo.reduce_window"(%arg10, %13) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg11: tensor<f32>, %arg12: tensor<f32>):
      %15 = "stablehlo.maximum"(%arg11, %arg12) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%15) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%14) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, res_attrs = [{}], sym_name = "cumprod", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<5x3xf32>):
    %11 = "func.call"(%arg9) <{callee = @cumprod_1}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%11) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumprod_1", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<5x3xf32>):
    %8 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.reduce_window"(%arg6, %8) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %10 = "stablehlo.multiply"(%arg7, %arg8) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%10) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%9) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumsum_2", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<5x3xf32>):
    %4 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.reduce_window"(%arg3, %5) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [0, 2]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %7 = "stablehlo.add"(%arg4, %arg5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%6) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cummin", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<5x3xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %2 = "stablehlo.reduce_window"(%arg0, %1) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 4], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = "stablehlo.minimum"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%2) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
