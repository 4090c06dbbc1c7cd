module @jit_special attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}, tensor<4xf32> {jax.result_info = "result[4]"}, tensor<4xf32> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}, tensor<4xf32> {jax.result_info = "result[7]"}, tensor<4xf32> {jax.result_info = "result[8]"}, tensor<4xf32> {jax.result_info = "result[9]"}, tensor<4xf32> {jax.result_info = "result[10]"}, tensor<4xf32> {jax.result_info = "result[11]"}, tensor<4xf32> {jax.result_info = "result[12]"}, tensor<4xf32> {jax.result_info = "result[13]"}, tensor<4xf32> {jax.result_info = "result[14]"}, tensor<4xf32> {jax.result_info = "result[15]"}, tensor<4xf32> {jax.result_info = "result[16]"}, tensor<2xf32> {jax.result_info = "result[17][0]"}, tensor<2xi32> {jax.result_info = "result[17][1]"}) {
    %0 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
    %1 = chlo.erfc %arg0 : tensor<4xf32> -> tensor<4xf32>
    %2 = chlo.erf_inv %arg0 : tensor<4xf32> -> tensor<4xf32>
    %3 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    %4 = chlo.digamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    %5 = chlo.next_after %arg0, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %6 = chlo.zeta %arg0, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %7 = chlo.polygamma %arg0, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %8 = chlo.bessel_i1e %arg0 : tensor<4xf32> -> tensor<4xf32>
    %9 = chlo.sinh %arg0 : tensor<4xf32> -> tensor<4xf32>
    %10 = chlo.cosh %arg0 : tensor<4xf32> -> tensor<4xf32>
    %11 = chlo.asin %arg0 : tensor<4xf32> -> tensor<4xf32>
    %12 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>
    %13 = chlo.atan %arg0 : tensor<4xf32> -> tensor<4xf32>
    %14 = chlo.asinh %arg0 : tensor<4xf32> -> tensor<4xf32>
    %15 = call @arccosh(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %16 = chlo.atanh %arg0 : tensor<4xf32> -> tensor<4xf32>
    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %values, %indices : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xi32>
  }
  func.func private @arccosh(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = chlo.acosh %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
