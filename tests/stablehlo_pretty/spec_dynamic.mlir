module {
  func.func @dynamic(%arg0: tensor<?xf32>, %arg1: tensor<1xi64>, %arg2: tensor<i32>) -> tensor<?xf32> {
    %0 = stablehlo.dynamic_iota %arg1, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
    %1 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %2 = stablehlo.set_dimension_size %arg0, %arg2, dim = 0 : (tensor<?xf32>, tensor<i32>) -> tensor<?xf32>
    %3 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
    %4 = stablehlo.dynamic_reshape %arg0, %arg1 : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
    %5 = stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.dynamic_pad %arg0, %cst, %arg1, %arg1, %arg1 : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %7 = stablehlo.select %c, %arg0, %cst_0 : (tensor<i1>, tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    %8 = stablehlo.add %0, %3 : tensor<?xf32>
    %9 = stablehlo.add %8, %cst_0 : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    return %9 : tensor<?xf32>
  }
}
