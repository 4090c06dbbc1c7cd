module @jit_elementwise attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}, tensor<4xf32> {jax.result_info = "result[4]"}, tensor<4xf32> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}, tensor<4xf32> {jax.result_info = "result[7]"}, tensor<4xf32> {jax.result_info = "result[8]"}, tensor<4xf32> {jax.result_info = "result[9]"}, tensor<4xf32> {jax.result_info = "result[10]"}, tensor<4xf32> {jax.result_info = "result[11]"}, tensor<4xf32> {jax.result_info = "result[12]"}, tensor<4xf32> {jax.result_info = "result[13]"}, tensor<4xf32> {jax.result_info = "result[14]"}, tensor<4xf32> {jax.result_info = "result[15]"}, tensor<4xf32> {jax.result_info = "result[16]"}, tensor<4xf32> {jax.result_info = "result[17]"}, tensor<4xf32> {jax.result_info = "result[18]"}, tensor<4xf32> {jax.result_info = "result[19]"}, tensor<4xf32> {jax.result_info = "result[20]"}, tensor<4xf32> {jax.result_info = "result[21]"}, tensor<4xf32> {jax.result_info = "result[22]"}, tensor<4xf32> {jax.result_info = "result[23]"}, tensor<4xf32> {jax.result_info = "result[24]"}, tensor<4xf32> {jax.result_info = "result[25]"}, tensor<4xi1> {jax.result_info = "result[26]"}, tensor<4xf32> {jax.result_info = "result[27]"}, tensor<4xf32> {jax.result_info = "result[28]"}, tensor<4xf32> {jax.result_info = "result[29]"}, tensor<4xf32> {jax.result_info = "result[30]"}) {
    %0 = stablehlo.sine %arg0 : tensor<4xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<4xf32>
    %3 = stablehlo.add %0, %2 : tensor<4xf32>
    %4 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
    %5 = stablehlo.divide %arg0, %arg1 : tensor<4xf32>
    %6 = stablehlo.maximum %arg0, %arg1 : tensor<4xf32>
    %7 = stablehlo.minimum %arg0, %arg1 : tensor<4xf32>
    %8 = stablehlo.exponential %arg0 : tensor<4xf32>
    %9 = stablehlo.log %arg1 : tensor<4xf32>
    %10 = stablehlo.tanh %arg0 : tensor<4xf32>
    %11 = stablehlo.sqrt %arg1 : tensor<4xf32>
    %12 = stablehlo.rsqrt %arg1 : tensor<4xf32>
    %13 = stablehlo.abs %arg0 : tensor<4xf32>
    %14 = stablehlo.negate %arg0 : tensor<4xf32>
    %15 = stablehlo.sign %arg0 : tensor<4xf32>
    %16 = stablehlo.floor %arg0 : tensor<4xf32>
    %17 = stablehlo.ceil %arg0 : tensor<4xf32>
    %18 = call @round(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %19 = stablehlo.round_nearest_afz %arg0 : tensor<4xf32>
    %20 = stablehlo.power %arg0, %arg1 : tensor<4xf32>
    %21 = stablehlo.atan2 %arg0, %arg1 : tensor<4xf32>
    %22 = call @remainder(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %23 = stablehlo.negate %arg0 : tensor<4xf32>
    %24 = stablehlo.exponential %23 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.add %25, %24 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %28 = stablehlo.divide %27, %26 : tensor<4xf32>
    %29 = stablehlo.exponential_minus_one %arg0 : tensor<4xf32>
    %30 = stablehlo.log_plus_one %arg1 : tensor<4xf32>
    %31 = stablehlo.cbrt %arg0 : tensor<4xf32>
    %32 = stablehlo.cosine %arg0 : tensor<4xf32>
    %33 = stablehlo.tan %arg0 : tensor<4xf32>
    %34 = stablehlo.is_finite %arg0 : (tensor<4xf32>) -> tensor<4xi1>
    %35 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %36 = call @clip(%arg0, %cst_2, %cst_3) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    %37 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %38 = call @_where(%37, %arg0, %arg1) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %40 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %41 = stablehlo.clamp %39, %arg0, %40 : tensor<4xf32>
    return %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %28, %29, %30, %31, %32, %33, %34, %35, %36, %38, %41 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  func.func private @round(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @remainder(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.compare NE, %0, %1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.compare LT, %0, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.compare LT, %arg1, %5, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %7 = stablehlo.compare NE, %4, %6, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %8 = stablehlo.and %7, %2 : tensor<4xi1>
    %9 = stablehlo.add %0, %arg1 : tensor<4xf32>
    %10 = stablehlo.select %8, %9, %0 : tensor<4xi1>, tensor<4xf32>
    return %10 : tensor<4xf32>
  }
  func.func private @clip(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<4xf32>
    return %5 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
