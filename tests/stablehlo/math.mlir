module @jit_math attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xi32>, %arg3: tensor<8xi32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<8xf32> {jax.result_info = "result[6]"}, tensor<8xf32> {jax.result_info = "result[7]"}, tensor<8xf32> {jax.result_info = "result[8]"}, tensor<8xi32> {jax.result_info = "result[9]"}, tensor<8xf32> {jax.result_info = "result[10]"}, tensor<8xf32> {jax.result_info = "result[11]"}, tensor<8xf32> {jax.result_info = "result[12]"}, tensor<8xf32> {jax.result_info = "result[13]"}, tensor<8xf32> {jax.result_info = "result[14]"}, tensor<8xi1> {jax.result_info = "result[15]"}, tensor<8xf32> {jax.result_info = "result[16]"}, tensor<8xf32> {jax.result_info = "result[17]"}, tensor<8xi32> {jax.result_info = "result[18]"}, tensor<8xi32> {jax.result_info = "result[19]"}, tensor<8xi32> {jax.result_info = "result[20]"}, tensor<8xi32> {jax.result_info = "result[21]"}, tensor<8xi32> {jax.result_info = "result[22]"}, tensor<8xi32> {jax.result_info = "result[23]"}, tensor<8xi32> {jax.result_info = "result[24]"}, tensor<8xi32> {jax.result_info = "result[25]"}, tensor<8xi32> {jax.result_info = "result[26]"}, tensor<8xi32> {jax.result_info = "result[27]"}, tensor<8xf32> {jax.result_info = "result[28]"}, tensor<8xi32> {jax.result_info = "result[29]"}, tensor<8xf32> {jax.result_info = "result[30]"}) {
    %0 = stablehlo.tan %arg0 : tensor<8xf32>
    %1 = chlo.erf %arg0 : tensor<8xf32> -> tensor<8xf32>
    %2 = chlo.erfc %arg0 : tensor<8xf32> -> tensor<8xf32>
    %3 = stablehlo.atan2 %arg0, %arg1 : tensor<8xf32>
    %4 = stablehlo.exponential_minus_one %arg0 : tensor<8xf32>
    %5 = stablehlo.log_plus_one %arg1 : tensor<8xf32>
    %6 = stablehlo.cbrt %arg0 : tensor<8xf32>
    %7 = stablehlo.negate %arg0 : tensor<8xf32>
    %8 = stablehlo.exponential %7 : tensor<8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %10 = stablehlo.add %9, %8 : tensor<8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %12 = stablehlo.divide %11, %10 : tensor<8xf32>
    %cst_1 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %14 = stablehlo.subtract %arg1, %13 : tensor<8xf32>
    %15 = call @remainder(%arg0, %14) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %17 = stablehlo.add %arg3, %16 : tensor<8xi32>
    %18 = call @remainder_0(%arg2, %17) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %19 = stablehlo.power %arg1, %arg0 : tensor<8xf32>
    %20 = stablehlo.sign %arg0 : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %22 = stablehlo.multiply %arg0, %21 : tensor<8xf32>
    %23 = call @round(%22) : (tensor<8xf32>) -> tensor<8xf32>
    %24 = stablehlo.floor %arg0 : tensor<8xf32>
    %25 = stablehlo.ceil %arg0 : tensor<8xf32>
    %26 = stablehlo.slice %arg1 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
    %27 = stablehlo.reshape %26 : (tensor<1xf32>) -> tensor<f32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %29 = stablehlo.subtract %arg1, %28 : tensor<8xf32>
    %30 = stablehlo.divide %arg0, %29 : tensor<8xf32>
    %31 = stablehlo.is_finite %30 : (tensor<8xf32>) -> tensor<8xi1>
    %cst_3 = stablehlo.constant dense<0.693147182> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %33 = stablehlo.multiply %32, %arg0 : tensor<8xf32>
    %34 = stablehlo.exponential %33 : tensor<8xf32>
    %35 = chlo.square %arg0 : tensor<8xf32> -> tensor<8xf32>
    %36 = stablehlo.abs %arg2 : tensor<8xi32>
    %37 = stablehlo.shift_left %arg2, %arg3 : tensor<8xi32>
    %38 = stablehlo.shift_right_arithmetic %arg2, %arg3 : tensor<8xi32>
    %39 = stablehlo.shift_right_logical %arg2, %arg3 : tensor<8xi32>
    %40 = stablehlo.popcnt %arg2 : tensor<8xi32>
    %41 = stablehlo.count_leading_zeros %arg2 : tensor<8xi32>
    %42 = stablehlo.not %arg2 : tensor<8xi32>
    %43 = stablehlo.and %arg2, %arg3 : tensor<8xi32>
    %44 = stablehlo.or %arg2, %arg3 : tensor<8xi32>
    %45 = stablehlo.xor %arg2, %arg3 : tensor<8xi32>
    %cst_4 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %cst_5 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %46 = call @clip(%arg0, %cst_4, %cst_5) : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
    %47 = stablehlo.bitcast_convert %arg0 : (tensor<8xf32>) -> tensor<8xi32>
    %c_6 = stablehlo.constant dense<1065353215> : tensor<i32>
    %48 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %49 = stablehlo.and %arg2, %48 : tensor<8xi32>
    %50 = stablehlo.bitcast_convert %49 : (tensor<8xi32>) -> tensor<8xf32>
    return %0, %1, %2, %3, %4, %5, %6, %12, %15, %18, %19, %20, %23, %24, %25, %31, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %50 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>
  }
  func.func private @remainder(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.compare NE, %0, %1, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %4 = stablehlo.compare LT, %0, %3, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %6 = stablehlo.compare LT, %arg1, %5, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %7 = stablehlo.compare NE, %4, %6, UNSIGNED : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %8 = stablehlo.and %7, %2 : tensor<8xi1>
    %9 = stablehlo.add %0, %arg1 : tensor<8xf32>
    %10 = stablehlo.select %8, %9, %0 : tensor<8xi1>, tensor<8xf32>
    return %10 : tensor<8xf32>
  }
  func.func private @remainder_0(%arg0: tensor<8xi32>, %arg1: tensor<8xi32>) -> tensor<8xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %3 = call @_where(%1, %2, %arg1) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<8xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %12 = stablehlo.and %11, %6 : tensor<8xi1>
    %13 = stablehlo.add %4, %3 : tensor<8xi32>
    %14 = stablehlo.select %12, %13, %4 : tensor<8xi1>, tensor<8xi32>
    return %14 : tensor<8xi32>
  }
  func.func private @_where(%arg0: tensor<8xi1>, %arg1: tensor<8xi32>, %arg2: tensor<8xi32>) -> tensor<8xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xi32>
    return %0 : tensor<8xi32>
  }
  func.func private @round(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @clip(%arg0: tensor<8xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<8xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<8xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<8xf32>
    return %5 : tensor<8xf32>
  }
}
