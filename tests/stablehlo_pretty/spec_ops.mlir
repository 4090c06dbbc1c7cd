module @spec_ops {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<2x2xf32>, %arg2: tuple<tensor<f32>, tensor<i32>>, %arg3: tensor<1xi64>, %arg4: tensor<4xi1>, %arg5: tensor<1x2x4xf32>, %arg6: tensor<2x2x3xf32>) -> tensor<4xf32> {
    %0 = stablehlo.after_all  : !stablehlo.token
    %1 = stablehlo.create_token : !stablehlo.token
    %2 = stablehlo.after_all %0, %1 : !stablehlo.token
    %3 = stablehlo.get_tuple_element %arg2[1] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<i32>
    %4 = stablehlo.tuple %3, %3 : tuple<tensor<i32>, tensor<i32>>
    %5 = stablehlo.cholesky %arg1, lower = true : tensor<2x2xf32>
    %6 = stablehlo.cholesky %arg1 : tensor<2x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.rng %cst, %cst_0, %arg3, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
    %output_state, %output = stablehlo.rng_bit_generator %arg3, algorithm = THREE_FRY : (tensor<1xi64>) -> (tensor<1xi64>, tensor<3xui32>)
    %8 = stablehlo.einsum %arg1, %arg1, config = "ab,bc->ac" : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %9 = stablehlo.unary_einsum %arg1, config = "ab->ba" : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %10 = stablehlo.broadcast %arg0, sizes = [2] : (tensor<4xf32>) -> tensor<2x4xf32>
    %11 = stablehlo.replica_id : tensor<ui32>
    %12 = stablehlo.partition_id : tensor<ui32>
    %13 = stablehlo.dot %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %14 = stablehlo.dot %arg1, %arg1, precision = [DEFAULT, HIGHEST] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %15 = stablehlo.dot_general %arg1, %arg1, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %16 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    %17 = stablehlo.compare EQ, %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %18 = stablehlo.select %arg4, %arg0, %arg0 : tensor<4xi1>, tensor<4xf32>
    %19 = stablehlo.clamp %cst, %arg0, %cst_0 : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %20 = stablehlo.complex %arg0, %arg0 : tensor<4xcomplex<f32>>
    %21 = stablehlo.complex %arg0, %arg0 : tensor<4xcomplex<f32>>
    %22 = stablehlo.is_finite %arg0 : (tensor<4xf32>) -> tensor<4xi1>
    %23 = stablehlo.cosine %arg0 {result_accuracy = #stablehlo.result_accuracy<ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
    %24 = stablehlo.reduce_precision %arg0, format = e8m7 : tensor<4xf32>
    %25 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<2x2xf32>
    %26 = stablehlo.slice %arg0 [1:4:2] : (tensor<4xf32>) -> tensor<2xf32>
    %27 = stablehlo.add %arg0, %arg0 {mhlo.frontend_attributes = {who = "me"}, mhlo.sharding = "{replicated}"} : tensor<4xf32>
    stablehlo.optimization_barrier()
    %28 = stablehlo.optimization_barrier %arg0 : tensor<4xf32>
    %29 = stablehlo.custom_call @my_target(%arg0, %arg1) {api_version = 4 : i32, backend_config = {level = 3 : i32}, has_side_effect = true, mhlo.frontend_attributes = {a = "b"}} : (tensor<4xf32>, tensor<2x2xf32>) -> tensor<4xf32>
    stablehlo.custom_call @odd.name() : () -> ()
    %30 = chlo.broadcast_add %arg0, %10 {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %31 = chlo.broadcast_compare %arg0, %cst {comparison_direction = #chlo<comparison_direction GT>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
    %32 = chlo.broadcast_select %31, %arg0, %cst : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %33 = chlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
    %34 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
    %35 = stablehlo.convolution(%arg5, %arg6) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[1, 1]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4xf32>, tensor<2x2x3xf32>) -> tensor<1x2x4xf32>
    %36 = stablehlo.fft %20, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %37 = stablehlo.add %18, %19 : tensor<4xf32>
    stablehlo.return %37 : tensor<4xf32>
  }
}
