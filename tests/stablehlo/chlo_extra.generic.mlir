"builtin.module"() <{sym_name = "jit_chlo_extra"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<3xf32>, tensor<3xi32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg1: tensor<8xf32>, %arg2: tensor<8xf32>):
    %1 = "chlo.sinh"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %2 = "chlo.cosh"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %3 = "chlo.asin"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %4 = "chlo.acos"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %5 = "chlo.atan"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %6 = "chlo.asinh"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %7 = "func.call"(%arg2) <{callee = @arccosh}> : (tensor<8xf32>) -> tensor<8xf32>
    %8 = "chlo.atanh"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %9 = "chlo.lgamma"(%arg2) : (tensor<8xf32>) -> tensor<8xf32>
    %10 = "chlo.digamma"(%arg2) : (tensor<8xf32>) -> tensor<8xf32>
    %11 = "chlo.next_after"(%arg1, %arg2) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %12:2 = "chlo.top_k"(%arg1) <{k = 3 : i64}> : (tensor<8xf32>) -> (tensor<3xf32>, tensor<3xi32>)
    "func.return"(%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12#0, %12#1) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<3xf32>, tensor<3xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{}], sym_name = "arccosh", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "chlo.acosh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
