module @jit_mlp_bf16 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xbf16>) -> (tensor<4x4xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xbf16>, tensor<8x4xbf16>) -> tensor<4x4xbf16>
    %cst = stablehlo.constant dense<1.000980e-01> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4x4xbf16>
    %3 = stablehlo.multiply %1, %2 : tensor<4x4xbf16>
    %4 = call @relu(%3) : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %5 = stablehlo.convert %4 : (tensor<4x4xbf16>) -> tensor<4x4xf16>
    %cst_0 = stablehlo.constant dense<3.000490e-01> : tensor<f16>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f16>) -> tensor<4x4xf16>
    %7 = stablehlo.add %5, %6 : tensor<4x4xf16>
    return %7 : tensor<4x4xf16>
  }
  func.func private @relu(%arg0: tensor<4x4xbf16>) -> tensor<4x4xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4x4xbf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x4xbf16>
    return %1 : tensor<4x4xbf16>
  }
}
