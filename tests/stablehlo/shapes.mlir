module @jit_shapes attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<2x4xf32>) -> (tensor<5x4xf32> {jax.result_info = "result[0]"}, tensor<6x5xf32> {jax.result_info = "result[1]"}, tensor<3x4xf32> {jax.result_info = "result[2]"}, tensor<2x6xf32> {jax.result_info = "result[3]"}, tensor<3x2x4xf32> {jax.result_info = "result[4]"}, tensor<3x4xf32> {jax.result_info = "result[5]"}, tensor<4xi32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.pad %arg0, %cst, low = [-1, 1], high = [2, 0], interior = [1, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<6x5xf32>
    %2 = call @_flip(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %4 = stablehlo.reshape %3 : (tensor<4x3xf32>) -> tensor<2x6xf32>
    %5 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<3x1x4xf32>) -> tensor<3x2x4xf32>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<3x2x4xf32>
    %9 = stablehlo.subtract %7, %8 : tensor<3x2x4xf32>
    %10 = stablehlo.iota dim = 0 : tensor<12xf32>
    %11 = stablehlo.reshape %10 : (tensor<12xf32>) -> tensor<3x4xf32>
    %12 = stablehlo.multiply %11, %arg0 : tensor<3x4xf32>
    %13 = stablehlo.iota dim = 0 : tensor<4xi32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %15 = stablehlo.add %13, %14 : tensor<4xi32>
    return %0, %1, %2, %4, %9, %12, %15 : tensor<5x4xf32>, tensor<6x5xf32>, tensor<3x4xf32>, tensor<2x6xf32>, tensor<3x2x4xf32>, tensor<3x4xf32>, tensor<4xi32>
  }
  func.func private @_flip(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
