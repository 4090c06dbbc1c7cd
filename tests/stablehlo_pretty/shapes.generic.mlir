"builtin.module"() <{sym_name = "jit_shapes"}> ({
  "func.func"() <{function_type = (tensor<4x3xf32>, tensor<i32>) -> (tensor<6x2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<7x4xf32>, tensor<9x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x4x1x3xf32>, tensor<5xi32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<4x6xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg3: tensor<4x3xf32>, %arg4: tensor<i32>):
    %3 = "stablehlo.reshape"(%arg3) : (tensor<4x3xf32>) -> tensor<6x2xf32>
    %4 = "stablehlo.transpose"(%arg3) <{permutation = array<i64: 1, 0>}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %5 = "stablehlo.slice"(%arg3) <{limit_indices = array<i64: 3, 3>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 2>}> : (tensor<4x3xf32>) -> tensor<2x2xf32>
    %6 = "stablehlo.concatenate"(%arg3, %arg3) <{dimension = 0 : i64}> : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "func.call"(%arg3, %7) <{callee = @_pad}> : (tensor<4x3xf32>, tensor<i32>) -> tensor<7x4xf32>
    %9 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %10 = "stablehlo.pad"(%arg3, %9) <{edge_padding_high = array<i64: 1, 0>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 1, 0>}> : (tensor<4x3xf32>, tensor<f32>) -> tensor<9x3xf32>
    %11 = "func.call"(%arg3) <{callee = @_flip}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %12 = "stablehlo.slice"(%arg3) <{limit_indices = array<i64: 4, 1>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %14 = "stablehlo.broadcast_in_dim"(%arg3) <{broadcast_dimensions = array<i64: 1, 3>}> : (tensor<4x3xf32>) -> tensor<1x4x1x3xf32>
    %15 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<5xi32>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.compare"(%arg4, %16) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %18 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %19 = "stablehlo.add"(%arg4, %18) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %20 = "stablehlo.select"(%17, %19, %arg4) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %21 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %22 = "stablehlo.dynamic_slice"(%arg3, %20, %21) <{slice_sizes = array<i64: 2, 3>}> : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %23 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x3xf32>
    %25 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %26 = "stablehlo.compare"(%arg4, %25) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %27 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %28 = "stablehlo.add"(%arg4, %27) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %29 = "stablehlo.select"(%26, %28, %arg4) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %30 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %31 = "stablehlo.dynamic_update_slice"(%arg3, %24, %29, %30) : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
    %32 = "stablehlo.reshape"(%arg3) : (tensor<4x3xf32>) -> tensor<1x4x1x3xf32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<1x4x1x3xf32>) -> tensor<1x4x2x3xf32>
    %34 = "stablehlo.reshape"(%33) : (tensor<1x4x2x3xf32>) -> tensor<4x6xf32>
    "func.return"(%3, %4, %5, %6, %8, %10, %11, %13, %14, %15, %22, %31, %34) : (tensor<6x2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<7x4xf32>, tensor<9x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x4x1x3xf32>, tensor<5xi32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<4x6xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x3xf32>, tensor<i32>) -> tensor<7x4xf32>, sym_name = "_pad", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<4x3xf32>, %arg2: tensor<i32>):
    %1 = "stablehlo.convert"(%arg2) : (tensor<i32>) -> tensor<f32>
    %2 = "stablehlo.pad"(%arg1, %1) <{edge_padding_high = array<i64: 2, 1>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x4xf32>
    "func.return"(%2) : (tensor<7x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x3xf32>) -> tensor<4x3xf32>, sym_name = "_flip", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x3xf32>):
    %0 = "stablehlo.reverse"(%arg0) <{dimensions = array<i64: 0>}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%0) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
