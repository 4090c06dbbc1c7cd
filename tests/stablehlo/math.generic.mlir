"builtin.module"() <{sym_name = "jit_math"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xi32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}, {jax.result_info = "result[13]"}, {jax.result_info = "result[14]"}, {jax.result_info = "result[15]"}, {jax.result_info = "result[16]"}, {jax.result_info = "result[17]"}, {jax.result_info = "result[18]"}, {jax.result_info = "result[19]"}, {jax.result_info = "result[20]"}, {jax.result_info = "result[21]"}, {jax.result_info = "result[22]"}, {jax.result_info = "result[23]"}, {jax.result_info = "result[24]"}, {jax.result_info = "result[25]"}, {jax.result_info = "result[26]"}, {jax.result_info = "result[27]"}, {jax.result_info = "result[28]"}, {jax.result_info = "result[29]"}, {jax.result_info = "result[30]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg11: tensor<8xf32>, %arg12: tensor<8xf32>, %arg13: tensor<8xi32>, %arg14: tensor<8xi32>):
    %42 = "stablehlo.tan"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %43 = "chlo.erf"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %44 = "chlo.erfc"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %45 = "stablehlo.atan2"(%arg11, %arg12) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %46 = "stablehlo.exponential_minus_one"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %47 = "stablehlo.log_plus_one"(%arg12) : (tensor<8xf32>) -> tensor<8xf32>
    %48 = "stablehlo.cbrt"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %49 = "stablehlo.negate"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %50 = "stablehlo.exponential"(%49) : (tensor<8xf32>) -> tensor<8xf32>
    %51 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %52 = "stablehlo.broadcast_in_dim"(%51) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %53 = "stablehlo.add"(%52, %50) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %54 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %55 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %56 = "stablehlo.divide"(%55, %53) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %57 = "stablehlo.constant"() <{value = dense<1.500000e+00> : tensor<f32>}> : () -> tensor<f32>
    %58 = "stablehlo.broadcast_in_dim"(%57) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %59 = "stablehlo.subtract"(%arg12, %58) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %60 = "func.call"(%arg11, %59) <{callee = @remainder}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %61 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %62 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %63 = "stablehlo.add"(%arg14, %62) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %64 = "func.call"(%arg13, %63) <{callee = @remainder_0}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %65 = "stablehlo.power"(%arg12, %arg11) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %66 = "stablehlo.sign"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %67 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %68 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %69 = "stablehlo.multiply"(%arg11, %68) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %70 = "func.call"(%69) <{callee = @round}> : (tensor<8xf32>) -> tensor<8xf32>
    %71 = "stablehlo.floor"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %72 = "stablehlo.ceil"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %73 = "stablehlo.slice"(%arg12) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<1xf32>
    %74 = "stablehlo.reshape"(%73) : (tensor<1xf32>) -> tensor<f32>
    %75 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %76 = "stablehlo.subtract"(%arg12, %75) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %77 = "stablehlo.divide"(%arg11, %76) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %78 = "stablehlo.is_finite"(%77) : (tensor<8xf32>) -> tensor<8xi1>
    %79 = "stablehlo.constant"() <{value = dense<0.693147182> : tensor<f32>}> : () -> tensor<f32>
    %80 = "stablehlo.broadcast_in_dim"(%79) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %81 = "stablehlo.multiply"(%80, %arg11) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %82 = "stablehlo.exponential"(%81) : (tensor<8xf32>) -> tensor<8xf32>
    %83 = "chlo.square"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %84 = "stablehlo.abs"(%arg13) : (tensor<8xi32>) -> tensor<8xi32>
    %85 = "stablehlo.shift_left"(%arg13, %arg14) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %86 = "stablehlo.shift_right_arithmetic"(%arg13, %arg14) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %87 = "stablehlo.shift_right_logical"(%arg13, %arg14) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %88 = "stablehlo.popcnt"(%arg13) : (tensor<8xi32>) -> tensor<8xi32>
    %89 = "stablehlo.count_leading_zeros"(%arg13) : (tensor<8xi32>) -> tensor<8xi32>
    %90 = "stablehlo.not"(%arg13) : (tensor<8xi32>) -> tensor<8xi32>
    %91 = "stablehlo.and"(%arg13, %arg14) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %92 = "stablehlo.or"(%arg13, %arg14) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %93 = "stablehlo.xor"(%arg13, %arg14) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %94 = "stablehlo.constant"() <{value = dense<-5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %95 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %96 = "func.call"(%arg11, %94, %95) <{callee = @clip}> : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
    %97 = "stablehlo.bitcast_convert"(%arg11) : (tensor<8xf32>) -> tensor<8xi32>
    %98 = "stablehlo.constant"() <{value = dense<1065353215> : tensor<i32>}> : () -> tensor<i32>
    %99 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %100 = "stablehlo.and"(%arg13, %99) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %101 = "stablehlo.bitcast_convert"(%100) : (tensor<8xi32>) -> tensor<8xf32>
    "func.return"(%42, %43, %44, %45, %46, %47, %48, %56, %60, %64, %65, %66, %70, %71, %72, %78, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %96, %97, %101) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{}], sym_name = "remainder", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<8xf32>, %arg10: tensor<8xf32>):
    %28 = "stablehlo.remainder"(%arg9, %arg10) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %29 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %30 = "stablehlo.broadcast_in_dim"(%29) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %31 = "stablehlo.compare"(%28, %30) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %32 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %34 = "stablehlo.compare"(%28, %33) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %35 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %36 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %37 = "stablehlo.compare"(%arg10, %36) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %38 = "stablehlo.compare"(%34, %37) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %39 = "stablehlo.and"(%38, %31) : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %40 = "stablehlo.add"(%28, %arg10) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %41 = "stablehlo.select"(%39, %40, %28) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%41) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>, res_attrs = [{}], sym_name = "remainder_0", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<8xi32>, %arg8: tensor<8xi32>):
    %8 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %9 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %10 = "stablehlo.compare"(%arg8, %9) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %11 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %12 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %13 = "func.call"(%10, %12, %arg8) <{callee = @_where}> : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %14 = "stablehlo.remainder"(%arg7, %13) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %17 = "stablehlo.compare"(%14, %16) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %18 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %19 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %20 = "stablehlo.compare"(%14, %19) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %21 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %22 = "stablehlo.broadcast_in_dim"(%21) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %23 = "stablehlo.compare"(%13, %22) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %24 = "stablehlo.compare"(%20, %23) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %25 = "stablehlo.and"(%24, %17) : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %26 = "stablehlo.add"(%14, %13) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %27 = "stablehlo.select"(%25, %26, %14) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    "func.return"(%27) : (tensor<8xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<8xi1>, %arg5: tensor<8xi32>, %arg6: tensor<8xi32>):
    %7 = "stablehlo.select"(%arg4, %arg5, %arg6) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    "func.return"(%7) : (tensor<8xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{}], sym_name = "round", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<8xf32>):
    %6 = "stablehlo.round_nearest_even"(%arg3) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%6) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>):
    %0 = "stablehlo.convert"(%arg1) : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %2 = "stablehlo.maximum"(%1, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %3 = "stablehlo.convert"(%arg2) : (tensor<f32>) -> tensor<f32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %5 = "stablehlo.minimum"(%4, %2) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%5) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
