"builtin.module"() <{sym_name = "jit_sorting"}> ({
  "func.func"() <{function_type = (tensor<4x3xf32>, tensor<5xi32>) -> (tensor<4x3xf32>, tensor<4x3xi32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<5xi32>, tensor<2xi32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2][0]"}, {jax.result_info = "result[2][1]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg33: tensor<4x3xf32>, %arg34: tensor<5xi32>):
    %82 = "func.call"(%arg33) <{callee = @sort}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %83 = "func.call"(%arg33) <{callee = @argsort}> : (tensor<4x3xf32>) -> tensor<4x3xi32>
    %84:2 = "stablehlo.sort"(%arg33, %arg33) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg35: tensor<f32>, %arg36: tensor<f32>, %arg37: tensor<f32>, %arg38: tensor<f32>):
      %91 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %92 = "stablehlo.compare"(%arg35, %91) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %93 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %94 = "stablehlo.select"(%92, %93, %arg35) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %95 = "stablehlo.compare"(%arg35, %arg35) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %96 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %97 = "stablehlo.select"(%95, %96, %94) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %98 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %99 = "stablehlo.compare"(%arg36, %98) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %100 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %101 = "stablehlo.select"(%99, %100, %arg36) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %102 = "stablehlo.compare"(%arg36, %arg36) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %103 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %104 = "stablehlo.select"(%102, %103, %101) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %105 = "stablehlo.compare"(%97, %104) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%105) : (tensor<i1>) -> ()
    }) : (tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    %85 = "func.call"(%arg34) <{callee = @sort_0}> : (tensor<5xi32>) -> tensor<5xi32>
    %86 = "stablehlo.slice"(%arg33) <{limit_indices = array<i64: 4, 1>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %87 = "stablehlo.reshape"(%86) : (tensor<4x1xf32>) -> tensor<4xf32>
    %88 = "stablehlo.slice"(%arg33) <{limit_indices = array<i64: 2, 2>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 1>}> : (tensor<4x3xf32>) -> tensor<2x1xf32>
    %89 = "stablehlo.reshape"(%88) : (tensor<2x1xf32>) -> tensor<2xf32>
    %90 = "func.call"(%87, %89) <{callee = @searchsorted}> : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xi32>
    "func.return"(%82, %83, %84#0, %84#1, %85, %90) : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<5xi32>, tensor<2xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x3xf32>) -> tensor<4x3xf32>, sym_name = "sort", sym_visibility = "private"}> ({
  ^bb0(%arg30: tensor<4x3xf32>):
    %66 = "stablehlo.sort"(%arg30) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %67 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %68 = "stablehlo.compare"(%arg31, %67) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %69 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %70 = "stablehlo.select"(%68, %69, %arg31) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %71 = "stablehlo.compare"(%arg31, %arg31) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %72 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %73 = "stablehlo.select"(%71, %72, %70) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %74 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %75 = "stablehlo.compare"(%arg32, %74) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %76 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %77 = "stablehlo.select"(%75, %76, %arg32) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %78 = "stablehlo.compare"(%arg32, %arg32) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %79 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %80 = "stablehlo.select"(%78, %79, %77) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %81 = "stablehlo.compare"(%73, %80) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%81) : (tensor<i1>) -> ()
    }) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%66) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x3xf32>) -> tensor<4x3xi32>, sym_name = "argsort", sym_visibility = "private"}> ({
  ^bb0(%arg25: tensor<4x3xf32>):
    %49 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x3xi32>
    %50:2 = "stablehlo.sort"(%arg25, %49) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg26: tensor<f32>, %arg27: tensor<f32>, %arg28: tensor<i32>, %arg29: tensor<i32>):
      %51 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %52 = "stablehlo.compare"(%arg26, %51) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %53 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %54 = "stablehlo.select"(%52, %53, %arg26) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %55 = "stablehlo.compare"(%arg26, %arg26) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %56 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %57 = "stablehlo.select"(%55, %56, %54) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %58 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %59 = "stablehlo.compare"(%arg27, %58) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %60 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %61 = "stablehlo.select"(%59, %60, %arg27) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %62 = "stablehlo.compare"(%arg27, %arg27) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %63 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %64 = "stablehlo.select"(%62, %63, %61) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %65 = "stablehlo.compare"(%57, %64) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%65) : (tensor<i1>) -> ()
    }) : (tensor<4x3xf32>, tensor<4x3xi32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
    "func.return"(%50#1) : (tensor<4x3xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<5xi32>) -> tensor<5xi32>, sym_name = "sort_0", sym_visibility = "private"}> ({
  ^bb0(%arg22: tensor<5xi32>):
    %47 = "stablehlo.sort"(%arg22) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg23: tensor<i32>, %arg24: tensor<i32>):
      %48 = "stablehlo.compare"(%arg23, %arg24) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%48) : (tensor<i1>) -> ()
    }) : (tensor<5xi32>) -> tensor<5xi32>
    "func.return"(%47) : (tensor<5xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<2xf32>) -> tensor<2xi32>, sym_name = "searchsorted", sym_visibility = "private"}> ({
  ^bb0(%arg20: tensor<4xf32>, %arg21: tensor<2xf32>):
    %46 = "func.call"(%arg20, %arg21) <{callee = @_searchsorted_scan_impl}> : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xi32>
    "func.return"(%46) : (tensor<2xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<2xf32>) -> tensor<2xi32>, sym_name = "_searchsorted_scan_impl", sym_visibility = "private"}> ({
  ^bb0(%arg18: tensor<4xf32>, %arg19: tensor<2xf32>):
    %45 = "func.call"(%arg18, %arg19) <{callee = @_searchsorted_scan_impl_1}> : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xi32>
    "func.return"(%45) : (tensor<2xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<2xf32>) -> tensor<2xi32>, sym_name = "_searchsorted_scan_impl_1", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<4xf32>, %arg7: tensor<2xf32>):
    %33 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %35 = "stablehlo.constant"() <{value = dense<4> : tensor<ui32>}> : () -> tensor<ui32>
    %36 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %37 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %38:5 = "stablehlo.while"(%arg6, %arg7, %37, %34, %36) ({
    ^bb0(%arg13: tensor<4xf32>, %arg14: tensor<2xf32>, %arg15: tensor<i32>, %arg16: tensor<2xui32>, %arg17: tensor<2xui32>):
      %43 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %44 = "stablehlo.compare"(%arg15, %43) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%44) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg8: tensor<4xf32>, %arg9: tensor<2xf32>, %arg10: tensor<i32>, %arg11: tensor<2xui32>, %arg12: tensor<2xui32>):
      %40:2 = "func.call"(%arg8, %arg9, %arg11, %arg12) <{callee = @closed_call}> : (tensor<4xf32>, tensor<2xf32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>)
      %41 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %42 = "stablehlo.add"(%arg10, %41) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg8, %arg9, %42, %40#0, %40#1) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>) -> ()
    }) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>)
    %39 = "stablehlo.convert"(%38#4) : (tensor<2xui32>) -> tensor<2xi32>
    "func.return"(%39) : (tensor<2xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<2xf32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>), sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg2: tensor<4xf32>, %arg3: tensor<2xf32>, %arg4: tensor<2xui32>, %arg5: tensor<2xui32>):
    %3 = "stablehlo.subtract"(%arg5, %arg4) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %4 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %5 = "func.call"(%3, %4) <{callee = @floor_divide}> : (tensor<2xui32>, tensor<i32>) -> tensor<2xui32>
    %6 = "stablehlo.add"(%arg4, %5) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %7 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xui32>) -> tensor<2x1xui32>
    %8 = "stablehlo.gather"(%arg2, %7) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<2x1xui32>) -> tensor<2x1xf32>
    %9 = "stablehlo.reshape"(%8) : (tensor<2x1xf32>) -> tensor<2xf32>
    %10 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %12 = "stablehlo.compare"(%arg3, %11) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %13 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %15 = "stablehlo.select"(%12, %14, %arg3) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %16 = "stablehlo.compare"(%arg3, %arg3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %17 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %19 = "stablehlo.select"(%16, %18, %15) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %20 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %21 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %22 = "stablehlo.compare"(%9, %21) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %23 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %25 = "stablehlo.select"(%22, %24, %9) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %26 = "stablehlo.compare"(%9, %9) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %27 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %29 = "stablehlo.select"(%26, %28, %25) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %30 = "stablehlo.compare"(%19, %29) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %31 = "stablehlo.select"(%30, %arg4, %6) : (tensor<2xi1>, tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %32 = "stablehlo.select"(%30, %6, %arg5) : (tensor<2xi1>, tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    "func.return"(%31, %32) : (tensor<2xui32>, tensor<2xui32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xui32>, tensor<i32>) -> tensor<2xui32>, sym_name = "floor_divide", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2xui32>, %arg1: tensor<i32>):
    %0 = "stablehlo.convert"(%arg1) : (tensor<i32>) -> tensor<ui32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %2 = "stablehlo.divide"(%arg0, %1) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    "func.return"(%2) : (tensor<2xui32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
