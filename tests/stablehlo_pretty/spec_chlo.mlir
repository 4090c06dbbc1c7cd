module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4xi32>, %arg3: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
    %0 = stablehlo.logistic %arg0 : tensor<4xf32>
    %1 = chlo.conj %arg3 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    %2 = chlo.tan %arg0 : tensor<4xf32> -> tensor<4xf32>
    %3 = chlo.is_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
    %4 = chlo.is_neg_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
    %5 = chlo.is_pos_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
    %6 = chlo._asin_acos_kernel %arg3 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    %7 = chlo.mulhi %arg2, %arg2 : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
    %8 = chlo.broadcast_atan2 %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %9 = chlo.broadcast_divide %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %10 = chlo.broadcast_maximum %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %11 = chlo.broadcast_minimum %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %12 = chlo.broadcast_multiply %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %13 = chlo.broadcast_next_after %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %14 = chlo.broadcast_polygamma %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %15 = chlo.broadcast_power %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %16 = chlo.broadcast_remainder %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %17 = chlo.broadcast_shift_left %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %18 = chlo.broadcast_shift_right_arithmetic %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %19 = chlo.broadcast_shift_right_logical %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %20 = chlo.broadcast_subtract %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %21 = chlo.broadcast_zeta %arg0, %arg1 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %22 = chlo.broadcast_and %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %23 = chlo.broadcast_or %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %24 = chlo.broadcast_xor %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %25 = chlo.broadcast_complex %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %26 = sdy.reshard %arg0 <@mesh, [{"x"}]> : tensor<4xf32>
    return %26 : tensor<4xf32>
  }
}
