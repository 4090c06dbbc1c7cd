"builtin.module"() <{sym_name = "jit_special"}> ({
  "func.func"() <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xi32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}, {jax.result_info = "result[13]"}, {jax.result_info = "result[14]"}, {jax.result_info = "result[15]"}, {jax.result_info = "result[16]"}, {jax.result_info = "result[17][0]"}, {jax.result_info = "result[17][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg1: tensor<4xf32>):
    %1 = "chlo.erf"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "chlo.erfc"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = "chlo.erf_inv"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %4 = "chlo.lgamma"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %5 = "chlo.digamma"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %6 = "chlo.next_after"(%arg1, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %7 = "chlo.zeta"(%arg1, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %8 = "chlo.polygamma"(%arg1, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %9 = "chlo.bessel_i1e"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %10 = "chlo.sinh"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %11 = "chlo.cosh"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %12 = "chlo.asin"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %13 = "chlo.acos"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %14 = "chlo.atan"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %15 = "chlo.asinh"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %16 = "func.call"(%arg1) <{callee = @arccosh}> : (tensor<4xf32>) -> tensor<4xf32>
    %17 = "chlo.atanh"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %18:2 = "chlo.top_k"(%arg1) <{k = 2 : i64}> : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)
    "func.return"(%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18#0, %18#1) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "arccosh", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "chlo.acosh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
