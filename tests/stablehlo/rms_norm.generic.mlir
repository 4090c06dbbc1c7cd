"builtin.module"() <{sym_name = "jit_rms_norm"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x32xf32>, %arg1: tensor<32xf32>):
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
    %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %16 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%16) : (tensor<f32>) -> ()
    }) : (tensor<4x32xf32>, tensor<f32>) -> tensor<4xf32>
    %3 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4x1xf32>
    %4 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %6 = "stablehlo.divide"(%3, %5) : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %7 = "stablehlo.constant"() <{value = dense<9.99999997E-7> : tensor<f32>}> : () -> tensor<f32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %9 = "stablehlo.add"(%6, %8) : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %10 = "stablehlo.rsqrt"(%9) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x32xf32>
    %12 = "stablehlo.multiply"(%arg0, %11) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
    %13 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> tensor<1x32xf32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<4x32xf32>
    %15 = "stablehlo.multiply"(%12, %14) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
    "func.return"(%15) : (tensor<4x32xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
