module @jit_chlo_extra attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<8xf32> {jax.result_info = "result[6]"}, tensor<8xf32> {jax.result_info = "result[7]"}, tensor<8xf32> {jax.result_info = "result[8]"}, tensor<8xf32> {jax.result_info = "result[9]"}, tensor<8xf32> {jax.result_info = "result[10]"}, tensor<3xf32> {jax.result_info = "result[11]"}, tensor<3xi32> {jax.result_info = "result[12]"}) {
    %0 = chlo.sinh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %1 = chlo.cosh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %2 = chlo.asin %arg0 : tensor<8xf32> -> tensor<8xf32>
    %3 = chlo.acos %arg0 : tensor<8xf32> -> tensor<8xf32>
    %4 = chlo.atan %arg0 : tensor<8xf32> -> tensor<8xf32>
    %5 = chlo.asinh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %6 = call @arccosh(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %7 = chlo.atanh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %8 = chlo.lgamma %arg1 : tensor<8xf32> -> tensor<8xf32>
    %9 = chlo.digamma %arg1 : tensor<8xf32> -> tensor<8xf32>
    %10 = chlo.next_after %arg0, %arg1 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
    %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<8xf32> -> (tensor<3xf32>, tensor<3xi32>)
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %values, %indices : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<3xf32>, tensor<3xi32>
  }
  func.func private @arccosh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = chlo.acosh %arg0 : tensor<8xf32> -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
