module @jit_calls attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1][0]"}, tensor<3xf32> {jax.result_info = "result[1][1]"}, tensor<3xf32> {jax.result_info = "result[2]"}) {
    %0 = call @"<lambda>"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.add %arg0, %1 : tensor<3xf32>
    %3 = call @"<lambda>_0"(%2) : (tensor<3xf32>) -> tensor<3xf32>
    %4 = stablehlo.add %0, %3 : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<3xf32>
    %7:2 = stablehlo.optimization_barrier %arg0, %6 : tensor<3xf32>, tensor<3xf32>
    %8 = stablehlo.sine %arg0 : tensor<3xf32>
    %9 = stablehlo.sine %8 : tensor<3xf32>
    return %4, %7#0, %7#1, %9 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  func.func private @"<lambda>"(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.sine %arg0 : tensor<3xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<3xf32>
    return %2 : tensor<3xf32>
  }
  func.func private @"<lambda>_0"(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}
