"builtin.module"() <{sym_name = "jit_indexing"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}, {}], function_type = (tensor<5x3xf32>, tensor<3xi32>, tensor<i32>, tensor<4xi32>, tensor<5x2xi32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>, tensor<2x2xf32>, tensor<5x4xf32>, tensor<5x2xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg11: tensor<5x3xf32>, %arg12: tensor<3xi32>, %arg13: tensor<i32>, %arg14: tensor<4xi32>, %arg15: tensor<5x2xi32>):
    %48 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %49 = "stablehlo.broadcast_in_dim"(%48) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %50 = "stablehlo.compare"(%arg12, %49) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %51 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %52 = "stablehlo.broadcast_in_dim"(%51) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %53 = "stablehlo.add"(%arg12, %52) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %54 = "stablehlo.select"(%50, %53, %arg12) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %55 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xi32>) -> tensor<3x1xi32>
    %56 = "stablehlo.gather"(%arg11, %55) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<3x1xi32>) -> tensor<3x3xf32>
    %57 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %58 = "stablehlo.compare"(%arg13, %57) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %59 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %60 = "stablehlo.add"(%arg13, %59) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %61 = "stablehlo.select"(%58, %60, %arg13) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %62 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %63 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %64 = "stablehlo.compare"(%62, %63) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %65 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %66 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %67 = "stablehlo.add"(%65, %66) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %68 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %69 = "stablehlo.select"(%64, %67, %68) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %70 = "stablehlo.dynamic_slice"(%arg11, %61, %69) <{slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %71 = "stablehlo.reshape"(%70) : (tensor<1x3xf32>) -> tensor<3xf32>
    %72 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 3, 3>, start_indices = array<i64: 2, 0>, strides = array<i64: 1, 1>}> : (tensor<5x3xf32>) -> tensor<1x3xf32>
    %73 = "stablehlo.reshape"(%72) : (tensor<1x3xf32>) -> tensor<3xf32>
    %74 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 5, 2>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 1>}> : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %75 = "stablehlo.reshape"(%74) : (tensor<5x1xf32>) -> tensor<5xf32>
    %76 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 3, 3>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 2>}> : (tensor<5x3xf32>) -> tensor<2x2xf32>
    %77 = "func.call"(%arg11, %arg14) <{callee = @_take}> : (tensor<5x3xf32>, tensor<4xi32>) -> tensor<5x4xf32>
    %78 = "func.call"(%arg11, %arg15) <{callee = @take_along_axis}> : (tensor<5x3xf32>, tensor<5x2xi32>) -> tensor<5x2xf32>
    "func.return"(%56, %71, %73, %75, %76, %77, %78) : (tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>, tensor<2x2xf32>, tensor<5x4xf32>, tensor<5x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<5x3xf32>, tensor<4xi32>) -> tensor<5x4xf32>, res_attrs = [{}], sym_name = "_take", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<5x3xf32>, %arg8: tensor<4xi32>):
    %24 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %25 = "stablehlo.broadcast_in_dim"(%24) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %26 = "stablehlo.compare"(%arg8, %25) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %27 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %29 = "stablehlo.add"(%arg8, %28) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %30 = "func.call"(%26, %29, %arg8) <{callee = @_where}> : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x1xi32>
    %32 = "stablehlo.constant"() <{value = dense<2> : tensor<1xi32>}> : () -> tensor<1xi32>
    %33 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x1xi32>
    %35 = "stablehlo.compare"(%31, %34) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi1>
    %36 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64: 1>}> : (tensor<1xi32>) -> tensor<1x1xi32>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xi32>) -> tensor<4x1xi32>
    %38 = "stablehlo.compare"(%31, %37) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi1>
    %39 = "stablehlo.and"(%35, %38) : (tensor<4x1xi1>, tensor<4x1xi1>) -> tensor<4x1xi1>
    %40 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %41 = "stablehlo.reduce"(%39, %40) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg9: tensor<i1>, %arg10: tensor<i1>):
      %47 = "stablehlo.and"(%arg9, %arg10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%47) : (tensor<i1>) -> ()
    }) : (tensor<4x1xi1>, tensor<i1>) -> tensor<4xi1>
    %42 = "stablehlo.gather"(%arg7, %31) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 5, 1>}> : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<5x4xf32>
    %43 = "stablehlo.broadcast_in_dim"(%41) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xi1>) -> tensor<5x4xi1>
    %44 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %45 = "stablehlo.broadcast_in_dim"(%44) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x4xf32>
    %46 = "stablehlo.select"(%43, %42, %45) : (tensor<5x4xi1>, tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
    "func.return"(%46) : (tensor<5x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<4xi1>, %arg5: tensor<4xi32>, %arg6: tensor<4xi32>):
    %23 = "stablehlo.select"(%arg4, %arg5, %arg6) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%23) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<5x3xf32>, tensor<5x2xi32>) -> tensor<5x2xf32>, res_attrs = [{}], sym_name = "take_along_axis", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<5x3xf32>, %arg1: tensor<5x2xi32>):
    %0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<5x2xi32>
    %2 = "stablehlo.compare"(%arg1, %1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<5x2xi32>, tensor<5x2xi32>) -> tensor<5x2xi1>
    %3 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<5x2xi32>
    %5 = "stablehlo.add"(%arg1, %4) : (tensor<5x2xi32>, tensor<5x2xi32>) -> tensor<5x2xi32>
    %6 = "stablehlo.select"(%2, %5, %arg1) : (tensor<5x2xi1>, tensor<5x2xi32>, tensor<5x2xi32>) -> tensor<5x2xi32>
    %7 = "stablehlo.reshape"(%6) : (tensor<5x2xi32>) -> tensor<5x2x1xi32>
    %8 = "stablehlo.constant"() <{value = dense<2> : tensor<1xi32>}> : () -> tensor<1xi32>
    %9 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<5x2x1xi32>
    %11 = "stablehlo.compare"(%7, %10) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<5x2x1xi32>, tensor<5x2x1xi32>) -> tensor<5x2x1xi1>
    %12 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64: 2>}> : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x1xi32>) -> tensor<5x2x1xi32>
    %14 = "stablehlo.compare"(%7, %13) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<5x2x1xi32>, tensor<5x2x1xi32>) -> tensor<5x2x1xi1>
    %15 = "stablehlo.and"(%11, %14) : (tensor<5x2x1xi1>, tensor<5x2x1xi1>) -> tensor<5x2x1xi1>
    %16 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %17 = "stablehlo.reduce"(%15, %16) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg2: tensor<i1>, %arg3: tensor<i1>):
      %22 = "stablehlo.and"(%arg2, %arg3) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%22) : (tensor<i1>) -> ()
    }) : (tensor<5x2x1xi1>, tensor<i1>) -> tensor<5x2xi1>
    %18 = "stablehlo.gather"(%arg0, %7) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x3xf32>, tensor<5x2x1xi32>) -> tensor<5x2xf32>
    %19 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x2xf32>
    %21 = "stablehlo.select"(%17, %18, %20) : (tensor<5x2xi1>, tensor<5x2xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
    "func.return"(%21) : (tensor<5x2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
