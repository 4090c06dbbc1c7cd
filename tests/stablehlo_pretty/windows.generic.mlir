"builtin.module"() <{sym_name = "jit_windows"}> ({
  "func.func"() <{function_type = (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<4x2xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg14: tensor<5x3xf32>):
    %25 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %26 = "func.call"(%arg14) <{callee = @cummax}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %27 = "func.call"(%arg14) <{callee = @cumprod}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %28 = "func.call"(%arg14) <{callee = @cumlogsumexp}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    %29 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %30 = "stablehlo.broadcast_in_dim"(%29) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %31 = "stablehlo.reduce_window"(%arg14, %30) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %42 = "stablehlo.maximum"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%42) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    %32 = "stablehlo.slice"(%arg14) <{limit_indices = array<i64: 4, 2>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<5x3xf32>) -> tensor<4x2xf32>
    %33 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x1xf32>
    %35 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %36 = "stablehlo.pad"(%32, %35) <{edge_padding_high = array<i64: 0, 0>, edge_padding_low = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
    %37 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %38 = "stablehlo.select_and_scatter"(%36, %34, %37) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%arg17: tensor<f32>, %arg18: tensor<f32>):
      %41 = "stablehlo.compare"(%arg17, %arg18) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%41) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
      %40 = "stablehlo.add"(%arg15, %arg16) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%40) : (tensor<f32>) -> ()
    }) : (tensor<4x2xf32>, tensor<2x1xf32>, tensor<f32>) -> tensor<4x2xf32>
    %39 = "stablehlo.slice"(%38) <{limit_indices = array<i64: 4, 2>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    "func.return"(%25, %26, %27, %28, %31, %39) : (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<4x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg13: tensor<5x3xf32>):
    %24 = "func.call"(%arg13) <{callee = @cumsum_0}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%24) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumsum_0", sym_visibility = "private"}> ({
  ^bb0(%arg10: tensor<5x3xf32>):
    %20 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %21 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %22 = "stablehlo.reduce_window"(%arg10, %21) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg11: tensor<f32>, %arg12: tensor<f32>):
      %23 = "stablehlo.add"(%arg11, %arg12) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%23) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%22) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cummax", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<5x3xf32>):
    %16 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %17 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %18 = "stablehlo.reduce_window"(%arg7, %17) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %19 = "stablehlo.maximum"(%arg8, %arg9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%19) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%18) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumprod", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<5x3xf32>):
    %15 = "func.call"(%arg6) <{callee = @cumprod_1}> : (tensor<5x3xf32>) -> tensor<5x3xf32>
    "func.return"(%15) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumprod_1", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<5x3xf32>):
    %12 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %13 = "stablehlo.reduce_window"(%arg3, %12) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %14 = "stablehlo.multiply"(%arg4, %arg5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%14) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%13) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5x3xf32>) -> tensor<5x3xf32>, sym_name = "cumlogsumexp", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<5x3xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = "stablehlo.maximum"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %3 = "stablehlo.subtract"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %4 = "stablehlo.compare"(%3, %3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %6 = "stablehlo.abs"(%3) : (tensor<f32>) -> tensor<f32>
      %7 = "stablehlo.negate"(%6) : (tensor<f32>) -> tensor<f32>
      %8 = "stablehlo.exponential"(%7) : (tensor<f32>) -> tensor<f32>
      %9 = "stablehlo.log_plus_one"(%8) : (tensor<f32>) -> tensor<f32>
      %10 = "stablehlo.add"(%2, %9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %11 = "stablehlo.select"(%4, %5, %10) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%11) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    "func.return"(%1) : (tensor<5x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
