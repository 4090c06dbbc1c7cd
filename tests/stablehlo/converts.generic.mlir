"builtin.module"() <{sym_name = "jit_converts"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xi1>) -> (tensor<8xbf16>, tensor<8xf16>, tensor<8xi32>, tensor<8xui8>, tensor<8xi1>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xui8>, tensor<8xi1>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<8xf16>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}, {jax.result_info = "result[13]"}, {jax.result_info = "result[14]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xi32>, %arg3: tensor<8xi1>):
    %0 = "stablehlo.convert"(%arg0) : (tensor<8xf32>) -> tensor<8xbf16>
    %1 = "stablehlo.convert"(%arg0) : (tensor<8xf32>) -> tensor<8xf16>
    %2 = "stablehlo.convert"(%arg0) : (tensor<8xf32>) -> tensor<8xi32>
    %3 = "stablehlo.convert"(%arg1) : (tensor<8xf32>) -> tensor<8xui8>
    %4 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %6 = "stablehlo.compare"(%arg0, %5) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %7 = "stablehlo.convert"(%6) : (tensor<8xi1>) -> tensor<8xi1>
    %8 = "stablehlo.convert"(%arg0) : (tensor<8xf32>) -> tensor<8xbf16>
    %9 = "stablehlo.convert"(%8) : (tensor<8xbf16>) -> tensor<8xf16>
    %10 = "stablehlo.convert"(%arg0) : (tensor<8xf32>) -> tensor<8xf16>
    %11 = "stablehlo.convert"(%10) : (tensor<8xf16>) -> tensor<8xf32>
    %12 = "stablehlo.convert"(%arg2) : (tensor<8xi32>) -> tensor<8xf32>
    %13 = "stablehlo.convert"(%arg2) : (tensor<8xi32>) -> tensor<8xui8>
    %14 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %15 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %16 = "stablehlo.compare"(%arg2, %15) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %17 = "stablehlo.convert"(%16) : (tensor<8xi1>) -> tensor<8xi1>
    %18 = "stablehlo.convert"(%arg2) : (tensor<8xi32>) -> tensor<8xui8>
    %19 = "stablehlo.convert"(%18) : (tensor<8xui8>) -> tensor<8xi32>
    %20 = "stablehlo.convert"(%arg3) : (tensor<8xi1>) -> tensor<8xf32>
    %21 = "stablehlo.convert"(%arg3) : (tensor<8xi1>) -> tensor<8xi32>
    %22 = "stablehlo.convert"(%arg3) : (tensor<8xi1>) -> tensor<8xbf16>
    %23 = "stablehlo.convert"(%arg1) : (tensor<8xf32>) -> tensor<8xui8>
    %24 = "stablehlo.convert"(%23) : (tensor<8xui8>) -> tensor<8xf16>
    "func.return"(%0, %1, %2, %3, %7, %9, %11, %12, %13, %17, %19, %20, %21, %22, %24) : (tensor<8xbf16>, tensor<8xf16>, tensor<8xi32>, tensor<8xui8>, tensor<8xi1>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xui8>, tensor<8xi1>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<8xf16>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
