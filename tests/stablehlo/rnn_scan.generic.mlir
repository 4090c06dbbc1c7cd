"builtin.module"() <{sym_name = "jit_rnn_scan"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}, {}], function_type = (tensor<5x3xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<5x4xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg10: tensor<5x3xf32>, %arg11: tensor<4xf32>, %arg12: tensor<4x4xf32>, %arg13: tensor<3x4xf32>, %arg14: tensor<4xf32>):
    %11 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %12 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x4xf32>
    %13 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %14:7 = "stablehlo.while"(%arg10, %arg12, %arg13, %arg14, %13, %arg11, %12) ({
    ^bb0(%arg22: tensor<5x3xf32>, %arg23: tensor<4x4xf32>, %arg24: tensor<3x4xf32>, %arg25: tensor<4xf32>, %arg26: tensor<i32>, %arg27: tensor<4xf32>, %arg28: tensor<5x4xf32>):
      %20 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
      %21 = "stablehlo.compare"(%arg26, %20) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%21) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg15: tensor<5x3xf32>, %arg16: tensor<4x4xf32>, %arg17: tensor<3x4xf32>, %arg18: tensor<4xf32>, %arg19: tensor<i32>, %arg20: tensor<4xf32>, %arg21: tensor<5x4xf32>):
      %15 = "func.call"(%arg15, %arg19) <{callee = @dynamic_index_in_dim}> : (tensor<5x3xf32>, tensor<i32>) -> tensor<3xf32>
      %16:2 = "func.call"(%arg16, %arg17, %arg18, %arg20, %15) <{callee = @closed_call}> : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      %17 = "func.call"(%arg21, %16#1, %arg19) <{callee = @dynamic_update_index_in_dim}> : (tensor<5x4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<5x4xf32>
      %18 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %19 = "stablehlo.add"(%arg19, %18) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg15, %arg16, %arg17, %arg18, %19, %16#0, %17) : (tensor<5x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<5x4xf32>) -> ()
    }) : (tensor<5x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<5x4xf32>) -> (tensor<5x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<5x4xf32>)
    "func.return"(%14#5, %14#6) : (tensor<4xf32>, tensor<5x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<5x3xf32>, tensor<i32>) -> tensor<3xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg8: tensor<5x3xf32>, %arg9: tensor<i32>):
    %8 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %9 = "stablehlo.dynamic_slice"(%arg8, %arg9, %8) <{slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %10 = "stablehlo.reshape"(%9) : (tensor<1x3xf32>) -> tensor<3xf32>
    "func.return"(%10) : (tensor<3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{}, {}], sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<4x4xf32>, %arg4: tensor<3x4xf32>, %arg5: tensor<4xf32>, %arg6: tensor<4xf32>, %arg7: tensor<3xf32>):
    %3 = "stablehlo.dot_general"(%arg6, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.dot_general"(%arg7, %arg4) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %5 = "stablehlo.add"(%3, %4) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %6 = "stablehlo.add"(%5, %arg5) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %7 = "stablehlo.tanh"(%6) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%7, %7) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<5x4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<5x4xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<5x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> tensor<1x4xf32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.dynamic_update_slice"(%arg0, %0, %arg2, %1) : (tensor<5x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
    "func.return"(%2) : (tensor<5x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
