module @jit_dots attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x3xf32>, %arg2: tensor<2x3x3xf32>, %arg3: tensor<4x8xbf16>, %arg4: tensor<8x3xbf16>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<2x3x3xf32> {jax.result_info = "result[1]"}, tensor<4x3xf32> {jax.result_info = "result[2]"}, tensor<4x3xf32> {jax.result_info = "result[3]"}, tensor<4x3xf32> {jax.result_info = "result[4]"}, tensor<3xf32> {jax.result_info = "result[5]"}, tensor<8x8xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.dot_general %arg2, %arg2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %3 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %4 = stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xbf16>, tensor<8x3xbf16>) -> tensor<4x3xf32>
    %5 = stablehlo.slice %arg2 [0:1, 0:3, 0:3] : (tensor<2x3x3xf32>) -> tensor<1x3x3xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x3x3xf32>) -> tensor<3x3xf32>
    %7 = stablehlo.slice %arg2 [1:2, 0:3, 0:3] : (tensor<2x3x3xf32>) -> tensor<1x3x3xf32>
    %8 = stablehlo.reshape %7 : (tensor<1x3x3xf32>) -> tensor<3x3xf32>
    %9 = stablehlo.dot_general %6, %8, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
    %10 = stablehlo.slice %arg0 [0:1, 0:8] : (tensor<4x8xf32>) -> tensor<1x8xf32>
    %11 = stablehlo.reshape %10 : (tensor<1x8xf32>) -> tensor<8xf32>
    %12 = stablehlo.slice %arg1 [0:8, 0:1] : (tensor<8x3xf32>) -> tensor<8x1xf32>
    %13 = stablehlo.reshape %12 : (tensor<8x1xf32>) -> tensor<8xf32>
    %14 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x8xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<8x8xf32>
    %18 = stablehlo.multiply %16, %17 : tensor<8x8xf32>
    return %0, %1, %2, %3, %4, %9, %18 : tensor<4x3xf32>, tensor<2x3x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<8x8xf32>
  }
}
