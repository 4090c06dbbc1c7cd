"builtin.module"() <{sym_name = "jit_integers"}> ({
  "func.func"() <{function_type = (tensor<4xi32>, tensor<4xi32>, tensor<4xui8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi8>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}, {jax.result_info = "result[13]"}, {jax.result_info = "result[14]"}, {jax.result_info = "result[15]"}, {jax.result_info = "result[16]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg7: tensor<4xi32>, %arg8: tensor<4xi32>, %arg9: tensor<4xui8>):
    %34 = "func.call"(%arg7, %arg8) <{callee = @floor_divide}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %35 = "func.call"(%arg7, %arg8) <{callee = @remainder}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %36 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %38 = "stablehlo.shift_right_arithmetic"(%arg7, %37) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %39 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %41 = "stablehlo.shift_left"(%arg7, %40) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %42 = "stablehlo.shift_right_logical"(%arg7, %arg8) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %43 = "stablehlo.and"(%arg7, %arg8) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %44 = "stablehlo.or"(%arg7, %arg8) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %45 = "stablehlo.xor"(%arg7, %arg8) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %46 = "stablehlo.not"(%arg7) : (tensor<4xi32>) -> tensor<4xi32>
    %47 = "stablehlo.popcnt"(%arg7) : (tensor<4xi32>) -> tensor<4xi32>
    %48 = "stablehlo.count_leading_zeros"(%arg7) : (tensor<4xi32>) -> tensor<4xi32>
    %49 = "stablehlo.compare"(%arg7, %arg8) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %50 = "stablehlo.constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %51 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64>}> : (tensor<ui8>) -> tensor<4xui8>
    %52 = "stablehlo.compare"(%arg9, %51) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
    %53 = "stablehlo.convert"(%arg9) : (tensor<4xui8>) -> tensor<4xf32>
    %54 = "stablehlo.bitcast_convert"(%arg7) : (tensor<4xi32>) -> tensor<4xf32>
    %55 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %56 = "stablehlo.broadcast_in_dim"(%55) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %57 = "stablehlo.compare"(%arg7, %56) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %58 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %59 = "stablehlo.broadcast_in_dim"(%58) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %60 = "stablehlo.compare"(%arg8, %59) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %61 = "stablehlo.and"(%57, %60) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %62 = "stablehlo.convert"(%arg7) : (tensor<4xi32>) -> tensor<4xi8>
    "func.return"(%34, %35, %38, %41, %42, %43, %44, %45, %46, %47, %48, %49, %52, %53, %54, %61, %62) : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi8>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>, sym_name = "floor_divide", sym_visibility = "private"}> ({
  ^bb0(%arg5: tensor<4xi32>, %arg6: tensor<4xi32>):
    %21 = "stablehlo.divide"(%arg5, %arg6) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %22 = "stablehlo.sign"(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
    %23 = "stablehlo.sign"(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
    %24 = "stablehlo.compare"(%22, %23) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %25 = "stablehlo.remainder"(%arg5, %arg6) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %26 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %27 = "stablehlo.broadcast_in_dim"(%26) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %28 = "stablehlo.compare"(%25, %27) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %29 = "stablehlo.and"(%24, %28) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %30 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %32 = "stablehlo.subtract"(%21, %31) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %33 = "func.call"(%29, %32, %21) <{callee = @_where}> : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%33) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>, sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg2: tensor<4xi1>, %arg3: tensor<4xi32>, %arg4: tensor<4xi32>):
    %20 = "stablehlo.select"(%arg2, %arg3, %arg4) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%20) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>, sym_name = "remainder", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>):
    %0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %2 = "stablehlo.compare"(%arg1, %1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %3 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %5 = "func.call"(%2, %4, %arg1) <{callee = @_where}> : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %6 = "stablehlo.remainder"(%arg0, %5) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %9 = "stablehlo.compare"(%6, %8) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %10 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %12 = "stablehlo.compare"(%6, %11) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %13 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %15 = "stablehlo.compare"(%5, %14) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %16 = "stablehlo.compare"(%12, %15) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %17 = "stablehlo.and"(%16, %9) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %18 = "stablehlo.add"(%6, %5) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %19 = "stablehlo.select"(%17, %18, %6) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%19) : (tensor<4xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
