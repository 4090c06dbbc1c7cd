"builtin.module"() <{sym_name = "jit_shapes"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<3x4xf32>, tensor<2x4xf32>) -> (tensor<5x4xf32>, tensor<6x5xf32>, tensor<3x4xf32>, tensor<2x6xf32>, tensor<3x2x4xf32>, tensor<3x4xf32>, tensor<4xi32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg1: tensor<3x4xf32>, %arg2: tensor<2x4xf32>):
    %1 = "stablehlo.concatenate"(%arg1, %arg2) <{dimension = 0 : i64}> : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
    %2 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.pad"(%arg1, %2) <{edge_padding_high = array<i64: 2, 0>, edge_padding_low = array<i64: -1, 1>, interior_padding = array<i64: 1, 0>}> : (tensor<3x4xf32>, tensor<f32>) -> tensor<6x5xf32>
    %4 = "func.call"(%arg1) <{callee = @_flip}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %5 = "stablehlo.transpose"(%arg1) <{permutation = array<i64: 1, 0>}> : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %6 = "stablehlo.reshape"(%5) : (tensor<4x3xf32>) -> tensor<2x6xf32>
    %7 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 0, 2>}> : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
    %8 = "stablehlo.broadcast_in_dim"(%arg2) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
    %9 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<3x1x4xf32>) -> tensor<3x2x4xf32>
    %10 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x2x4xf32>) -> tensor<3x2x4xf32>
    %11 = "stablehlo.subtract"(%9, %10) : (tensor<3x2x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2x4xf32>
    %12 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<12xf32>
    %13 = "stablehlo.reshape"(%12) : (tensor<12xf32>) -> tensor<3x4xf32>
    %14 = "stablehlo.multiply"(%13, %arg1) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %15 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
    %16 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %18 = "stablehlo.add"(%15, %17) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%1, %3, %4, %6, %11, %14, %18) : (tensor<5x4xf32>, tensor<6x5xf32>, tensor<3x4xf32>, tensor<2x6xf32>, tensor<3x2x4xf32>, tensor<3x4xf32>, tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<3x4xf32>) -> tensor<3x4xf32>, res_attrs = [{}], sym_name = "_flip", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3x4xf32>):
    %0 = "stablehlo.reverse"(%arg0) <{dimensions = array<i64: 1>}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
    "func.return"(%0) : (tensor<3x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
