"builtin.module"() <{sym_name = "jit_mlp_bf16"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x8xf32>, tensor<8x4xbf16>) -> tensor<4x4xf16>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg1: tensor<4x8xf32>, %arg2: tensor<8x4xbf16>):
    %3 = "stablehlo.convert"(%arg1) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    %4 = "stablehlo.dot_general"(%3, %arg2) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8xbf16>, tensor<8x4xbf16>) -> tensor<4x4xbf16>
    %5 = "stablehlo.constant"() <{value = dense<1.000980e-01> : tensor<bf16>}> : () -> tensor<bf16>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x4xbf16>
    %7 = "stablehlo.multiply"(%4, %6) : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %8 = "func.call"(%7) <{callee = @relu}> : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %9 = "stablehlo.convert"(%8) : (tensor<4x4xbf16>) -> tensor<4x4xf16>
    %10 = "stablehlo.constant"() <{value = dense<3.000490e-01> : tensor<f16>}> : () -> tensor<f16>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<f16>) -> tensor<4x4xf16>
    %12 = "stablehlo.add"(%9, %11) : (tensor<4x4xf16>, tensor<4x4xf16>) -> tensor<4x4xf16>
    "func.return"(%12) : (tensor<4x4xf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x4xbf16>) -> tensor<4x4xbf16>, res_attrs = [{}], sym_name = "relu", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x4xbf16>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x4xbf16>
    %2 = "stablehlo.maximum"(%arg0, %1) : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
    "func.return"(%2) : (tensor<4x4xbf16>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
