module @jit_converts attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xi32>, %arg3: tensor<8xi1>) -> (tensor<8xbf16> {jax.result_info = "result[0]"}, tensor<8xf16> {jax.result_info = "result[1]"}, tensor<8xi32> {jax.result_info = "result[2]"}, tensor<8xui8> {jax.result_info = "result[3]"}, tensor<8xi1> {jax.result_info = "result[4]"}, tensor<8xf16> {jax.result_info = "result[5]"}, tensor<8xf32> {jax.result_info = "result[6]"}, tensor<8xf32> {jax.result_info = "result[7]"}, tensor<8xui8> {jax.result_info = "result[8]"}, tensor<8xi1> {jax.result_info = "result[9]"}, tensor<8xi32> {jax.result_info = "result[10]"}, tensor<8xf32> {jax.result_info = "result[11]"}, tensor<8xi32> {jax.result_info = "result[12]"}, tensor<8xbf16> {jax.result_info = "result[13]"}, tensor<8xf16> {jax.result_info = "result[14]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xbf16>
    %1 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xf16>
    %2 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xi32>
    %3 = stablehlo.convert %arg1 : (tensor<8xf32>) -> tensor<8xui8>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.compare NE, %arg0, %4, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %6 = stablehlo.convert %5 : tensor<8xi1>
    %7 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xbf16>
    %8 = stablehlo.convert %7 : (tensor<8xbf16>) -> tensor<8xf16>
    %9 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xf16>
    %10 = stablehlo.convert %9 : (tensor<8xf16>) -> tensor<8xf32>
    %11 = stablehlo.convert %arg2 : (tensor<8xi32>) -> tensor<8xf32>
    %12 = stablehlo.convert %arg2 : (tensor<8xi32>) -> tensor<8xui8>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %14 = stablehlo.compare NE, %arg2, %13, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %15 = stablehlo.convert %14 : tensor<8xi1>
    %16 = stablehlo.convert %arg2 : (tensor<8xi32>) -> tensor<8xui8>
    %17 = stablehlo.convert %16 : (tensor<8xui8>) -> tensor<8xi32>
    %18 = stablehlo.convert %arg3 : (tensor<8xi1>) -> tensor<8xf32>
    %19 = stablehlo.convert %arg3 : (tensor<8xi1>) -> tensor<8xi32>
    %20 = stablehlo.convert %arg3 : (tensor<8xi1>) -> tensor<8xbf16>
    %21 = stablehlo.convert %arg1 : (tensor<8xf32>) -> tensor<8xui8>
    %22 = stablehlo.convert %21 : (tensor<8xui8>) -> tensor<8xf16>
    return %0, %1, %2, %3, %6, %8, %10, %11, %12, %15, %17, %18, %19, %20, %22 : tensor<8xbf16>, tensor<8xf16>, tensor<8xi32>, tensor<8xui8>, tensor<8xi1>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xui8>, tensor<8xi1>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<8xf16>
  }
}
