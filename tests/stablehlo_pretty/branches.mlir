module @jit_branches attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2][0]"}, tensor<3xf32> {jax.result_info = "result[2][1]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %6 = stablehlo.negate %arg2 : tensor<3xf32>
      stablehlo.return %6 : tensor<3xf32>
    }, {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %7 = stablehlo.multiply %arg2, %6 : tensor<3xf32>
      stablehlo.return %7 : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %2 = stablehlo.clamp %c, %arg1, %c_0 : tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %7 = stablehlo.multiply %arg2, %6 : tensor<3xf32>
      stablehlo.return %7 : tensor<3xf32>
    }, {
      %6 = stablehlo.negate %arg2 : tensor<3xf32>
      stablehlo.return %6 : tensor<3xf32>
    }, {
      %6 = stablehlo.sine %arg2 : tensor<3xf32>
      stablehlo.return %6 : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    %4 = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>
    %5:2 = "stablehlo.case"(%4) ({
      %6 = stablehlo.subtract %arg2, %arg2 : tensor<3xf32>
      stablehlo.return %6, %arg2 : tensor<3xf32>, tensor<3xf32>
    }, {
      %6 = stablehlo.add %arg2, %arg2 : tensor<3xf32>
      stablehlo.return %6, %arg2 : tensor<3xf32>, tensor<3xf32>
    }) : (tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>)
    return %1, %3, %5#0, %5#1 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
