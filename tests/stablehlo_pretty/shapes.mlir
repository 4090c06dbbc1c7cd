module @jit_shapes attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<i32>) -> (tensor<6x2xf32> {jax.result_info = "result[0]"}, tensor<3x4xf32> {jax.result_info = "result[1]"}, tensor<2x2xf32> {jax.result_info = "result[2]"}, tensor<8x3xf32> {jax.result_info = "result[3]"}, tensor<7x4xf32> {jax.result_info = "result[4]"}, tensor<9x3xf32> {jax.result_info = "result[5]"}, tensor<4x3xf32> {jax.result_info = "result[6]"}, tensor<4x3xf32> {jax.result_info = "result[7]"}, tensor<1x4x1x3xf32> {jax.result_info = "result[8]"}, tensor<5xi32> {jax.result_info = "result[9]"}, tensor<2x3xf32> {jax.result_info = "result[10]"}, tensor<4x3xf32> {jax.result_info = "result[11]"}, tensor<4x6xf32> {jax.result_info = "result[12]"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<4x3xf32>) -> tensor<6x2xf32>
    %1 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %2 = stablehlo.slice %arg0 [1:3, 0:3:2] : (tensor<4x3xf32>) -> tensor<2x2xf32>
    %3 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_pad(%arg0, %c) : (tensor<4x3xf32>, tensor<i32>) -> tensor<7x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.pad %arg0, %cst, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<9x3xf32>
    %6 = call @_flip(%arg0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %7 = stablehlo.slice %arg0 [0:4, 0:1] : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %9 = stablehlo.broadcast_in_dim %arg0, dims = [1, 3] : (tensor<4x3xf32>) -> tensor<1x4x1x3xf32>
    %10 = stablehlo.iota dim = 0 : tensor<5xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_1 = stablehlo.constant dense<4> : tensor<i32>
    %12 = stablehlo.add %arg1, %c_1 : tensor<i32>
    %13 = stablehlo.select %11, %12, %arg1 : tensor<i1>, tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.dynamic_slice %arg0, %13, %c_2, sizes = [2, 3] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %16 = stablehlo.compare LT, %arg1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<4> : tensor<i32>
    %17 = stablehlo.add %arg1, %c_5 : tensor<i32>
    %18 = stablehlo.select %16, %17, %arg1 : tensor<i1>, tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %19 = stablehlo.dynamic_update_slice %arg0, %15, %18, %c_6 : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
    %20 = stablehlo.reshape %arg0 : (tensor<4x3xf32>) -> tensor<1x4x1x3xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2, 3] : (tensor<1x4x1x3xf32>) -> tensor<1x4x2x3xf32>
    %22 = stablehlo.reshape %21 : (tensor<1x4x2x3xf32>) -> tensor<4x6xf32>
    return %0, %1, %2, %3, %4, %5, %6, %8, %9, %10, %14, %19, %22 : tensor<6x2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<7x4xf32>, tensor<9x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x4x1x3xf32>, tensor<5xi32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<4x6xf32>
  }
  func.func private @_pad(%arg0: tensor<4x3xf32>, %arg1: tensor<i32>) -> tensor<7x4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 0], high = [2, 1], interior = [0, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x4xf32>
    return %1 : tensor<7x4xf32>
  }
  func.func private @_flip(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}
