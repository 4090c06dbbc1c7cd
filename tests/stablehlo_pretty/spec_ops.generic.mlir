"builtin.module"() <{sym_name = "spec_ops"}> ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<2x2xf32>, tuple<tensor<f32>, tensor<i32>>, tensor<1xi64>, tensor<4xi1>, tensor<1x2x4xf32>, tensor<2x2x3xf32>) -> tensor<4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<2x2xf32>, %arg2: tuple<tensor<f32>, tensor<i32>>, %arg3: tensor<1xi64>, %arg4: tensor<4xi1>, %arg5: tensor<1x2x4xf32>, %arg6: tensor<2x2x3xf32>):
    %0 = "stablehlo.after_all"() : () -> !stablehlo.token
    %1 = "stablehlo.create_token"() : () -> !stablehlo.token
    %2 = "stablehlo.after_all"(%0, %1) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
    %3 = "stablehlo.get_tuple_element"(%arg2) <{index = 1 : i32}> : (tuple<tensor<f32>, tensor<i32>>) -> tensor<i32>
    %4 = "stablehlo.tuple"(%3, %3) : (tensor<i32>, tensor<i32>) -> tuple<tensor<i32>, tensor<i32>>
    %5 = "stablehlo.cholesky"(%arg1) <{lower = true}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %6 = "stablehlo.cholesky"(%arg1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %7 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %8 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.rng"(%7, %8, %arg3) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
    %10:2 = "stablehlo.rng_bit_generator"(%arg3) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<1xi64>) -> (tensor<1xi64>, tensor<3xui32>)
    %11 = "stablehlo.einsum"(%arg1, %arg1) <{einsum_config = "ab,bc->ac"}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %12 = "stablehlo.unary_einsum"(%arg1) <{einsum_config = "ab->ba"}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %13 = "stablehlo.broadcast"(%arg0) <{broadcast_sizes = array<i64: 2>}> : (tensor<4xf32>) -> tensor<2x4xf32>
    %14 = "stablehlo.replica_id"() : () -> tensor<ui32>
    %15 = "stablehlo.partition_id"() : () -> tensor<ui32>
    %16 = "stablehlo.dot"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %17 = "stablehlo.dot"(%arg1, %arg1) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %18 = "stablehlo.dot_general"(%arg1, %arg1) <{algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false>, dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %19 = "stablehlo.dot_general"(%arg0, %arg0) <{dot_dimension_numbers = #stablehlo.dot<>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    %20 = "stablehlo.compare"(%arg0, %arg0) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %21 = "stablehlo.select"(%arg4, %arg0, %arg0) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %22 = "stablehlo.clamp"(%7, %arg0, %8) : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %23 = "stablehlo.complex"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %24 = "stablehlo.complex"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %25 = "stablehlo.is_finite"(%arg0) : (tensor<4xf32>) -> tensor<4xi1>
    %26 = "stablehlo.cosine"(%arg0) <{result_accuracy = #stablehlo.result_accuracy<ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}> : (tensor<4xf32>) -> tensor<4xf32>
    %27 = "stablehlo.reduce_precision"(%arg0) <{exponent_bits = 8 : i32, mantissa_bits = 7 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
    %28 = "stablehlo.reverse"(%arg1) <{dimensions = array<i64: 0, 1>}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %29 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 1>, strides = array<i64: 2>}> : (tensor<4xf32>) -> tensor<2xf32>
    %30 = "stablehlo.add"(%arg0, %arg0) {mhlo.frontend_attributes = {who = "me"}, mhlo.sharding = "{replicated}"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.optimization_barrier"() : () -> ()
    %31 = "stablehlo.optimization_barrier"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %32 = "stablehlo.custom_call"(%arg0, %arg1) <{api_version = 4 : i32, backend_config = {level = 3 : i32}, call_target_name = "my_target", has_side_effect = true}> {mhlo.frontend_attributes = {a = "b"}} : (tensor<4xf32>, tensor<2x2xf32>) -> tensor<4xf32>
    "stablehlo.custom_call"() <{call_target_name = "odd.name"}> : () -> ()
    %33 = "chlo.broadcast_add"(%arg0, %13) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %34 = "chlo.broadcast_compare"(%arg0, %7) <{comparison_direction = #chlo<comparison_direction GT>}> : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
    %35 = "chlo.broadcast_select"(%34, %arg0, %7) : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %36 = "chlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %37 = "chlo.square"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %38 = "stablehlo.convolution"(%arg5, %arg6) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64, padding = dense<1> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>}> : (tensor<1x2x4xf32>, tensor<2x2x3xf32>) -> tensor<1x2x4xf32>
    %39 = "stablehlo.fft"(%23) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type IFFT>}> : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %40 = "stablehlo.add"(%21, %22) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%40) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
