"builtin.module"() <{sym_name = "jit_attention"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<6x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg4: tensor<6x8xf32>, %arg5: tensor<6x8xf32>, %arg6: tensor<6x8xf32>):
    %12 = "stablehlo.transpose"(%arg5) <{permutation = array<i64: 1, 0>}> : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %13 = "stablehlo.dot_general"(%arg4, %12) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
    %14 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %15 = "stablehlo.sqrt"(%14) : (tensor<f32>) -> tensor<f32>
    %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x6xf32>
    %17 = "stablehlo.divide"(%13, %16) : (tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32>
    %18 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %19 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<6x6xi1>
    %20 = "func.call"(%19) <{callee = @tril}> : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %21 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %22 = "func.call"(%20, %17, %21) <{callee = @_where}> : (tensor<6x6xi1>, tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>
    %23 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %24 = "stablehlo.reduce"(%22, %23) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg9: tensor<f32>, %arg10: tensor<f32>):
      %39 = "stablehlo.maximum"(%arg9, %arg10) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%39) : (tensor<f32>) -> ()
    }) : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
    %25 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6xf32>
    %27 = "stablehlo.maximum"(%26, %24) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64: 0>}> : (tensor<6xf32>) -> tensor<6x1xf32>
    %29 = "stablehlo.broadcast_in_dim"(%28) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %30 = "stablehlo.subtract"(%22, %29) : (tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32>
    %31 = "stablehlo.exponential"(%30) : (tensor<6x6xf32>) -> tensor<6x6xf32>
    %32 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %33 = "stablehlo.reduce"(%31, %32) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %38 = "stablehlo.add"(%arg7, %arg8) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%38) : (tensor<f32>) -> ()
    }) : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64: 0>}> : (tensor<6xf32>) -> tensor<6x1xf32>
    %35 = "stablehlo.broadcast_in_dim"(%34) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %36 = "stablehlo.divide"(%31, %35) : (tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32>
    %37 = "stablehlo.dot_general"(%36, %arg6) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    "func.return"(%37) : (tensor<6x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<6x6xi1>) -> tensor<6x6xi1>, res_attrs = [{}], sym_name = "tril", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<6x6xi1>):
    %3 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<6x6xi32>
    %4 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<6x6xi32>
    %6 = "stablehlo.add"(%3, %5) : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi32>
    %7 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<6x6xi32>
    %8 = "stablehlo.compare"(%6, %7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %9 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<6x6xi1>
    %11 = "stablehlo.select"(%8, %arg3, %10) : (tensor<6x6xi1>, tensor<6x6xi1>, tensor<6x6xi1>) -> tensor<6x6xi1>
    "func.return"(%11) : (tensor<6x6xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<6x6xi1>, tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<6x6xi1>, %arg1: tensor<6x6xf32>, %arg2: tensor<f32>):
    %0 = "stablehlo.convert"(%arg2) : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x6xf32>
    %2 = "stablehlo.select"(%arg0, %arg1, %1) : (tensor<6x6xi1>, tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32>
    "func.return"(%2) : (tensor<6x6xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
