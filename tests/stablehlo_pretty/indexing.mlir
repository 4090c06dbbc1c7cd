module @jit_indexing attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf32>, %arg1: tensor<2xi32>, %arg2: tensor<2x2xi32>, %arg3: tensor<3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result[0]"}, tensor<2x1xf32> {jax.result_info = "result[1]"}, tensor<2x2x2xf32> {jax.result_info = "result[2]"}, tensor<5x3xf32> {jax.result_info = "result[3]"}, tensor<5x3xf32> {jax.result_info = "result[4]"}, tensor<5x3xf32> {jax.result_info = "result[5]"}, tensor<5x3xf32> {jax.result_info = "result[6]"}, tensor<2x3xf32> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<2xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<2xi1>, tensor<2xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    %7 = stablehlo.slice %arg0 [0:2, 0:3] : (tensor<5x3xf32>) -> tensor<2x3xf32>
    %8 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %9 = call @remainder(%8, %c_1) : (tensor<2x1xi32>, tensor<i32>) -> tensor<2x1xi32>
    %10 = call @take_along_axis(%7, %9) : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x1xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
    %12 = stablehlo.compare LT, %arg2, %11, SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
    %c_3 = stablehlo.constant dense<5> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
    %14 = stablehlo.add %arg2, %13 : tensor<2x2xi32>
    %15 = stablehlo.select %12, %14, %arg2 : tensor<2x2xi1>, tensor<2x2xi32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<2x2xi32>) -> tensor<2x2x1xi32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %17 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<2x2x1xi32>
    %18 = stablehlo.concatenate %16, %17, dim = 2 : (tensor<2x2x1xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
    %19 = "stablehlo.gather"(%arg0, %18) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> : (tensor<5x3xf32>, tensor<2x2x2xi32>) -> tensor<2x2x2xf32>
    %20 = stablehlo.slice %arg1 [0:1] : (tensor<2xi32>) -> tensor<1xi32>
    %21 = stablehlo.reshape %20 : (tensor<1xi32>) -> tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %22 = stablehlo.compare LT, %21, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_6 = stablehlo.constant dense<5> : tensor<i32>
    %23 = stablehlo.add %21, %c_6 : tensor<i32>
    %24 = stablehlo.select %22, %23, %21 : tensor<i1>, tensor<i32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %26 = "stablehlo.scatter"(%arg0, %25, %arg3) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      stablehlo.return %arg5 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<1xi32>, tensor<3xf32>) -> tensor<5x3xf32>
    %27 = stablehlo.slice %arg1 [0:1] : (tensor<2xi32>) -> tensor<1xi32>
    %28 = stablehlo.reshape %27 : (tensor<1xi32>) -> tensor<i32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %29 = stablehlo.compare LT, %28, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_8 = stablehlo.constant dense<5> : tensor<i32>
    %30 = stablehlo.add %28, %c_8 : tensor<i32>
    %31 = stablehlo.select %29, %30, %28 : tensor<i1>, tensor<i32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %33 = "stablehlo.scatter"(%arg0, %32, %arg3) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %69 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %69 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<1xi32>, tensor<3xf32>) -> tensor<5x3xf32>
    %34 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %35 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %36 = stablehlo.compare LT, %arg1, %35, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_10 = stablehlo.constant dense<5> : tensor<i32>
    %37 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %38 = stablehlo.add %arg1, %37 : tensor<2xi32>
    %39 = stablehlo.select %36, %38, %arg1 : tensor<2xi1>, tensor<2xi32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %41 = stablehlo.broadcast_in_dim %34, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
    %42 = "stablehlo.scatter"(%arg0, %40, %41) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %69 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %69 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
    %43 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %44 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %45 = stablehlo.compare LT, %arg1, %44, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_12 = stablehlo.constant dense<5> : tensor<i32>
    %46 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %47 = stablehlo.add %arg1, %46 : tensor<2xi32>
    %48 = stablehlo.select %45, %47, %arg1 : tensor<2xi1>, tensor<2xi32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %50 = stablehlo.broadcast_in_dim %43, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
    %51 = "stablehlo.scatter"(%arg0, %49, %50) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %69 = stablehlo.multiply %arg4, %arg5 : tensor<f32>
      stablehlo.return %69 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %52 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %53 = stablehlo.compare LT, %arg1, %52, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_14 = stablehlo.constant dense<5> : tensor<i32>
    %54 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %55 = stablehlo.add %arg1, %54 : tensor<2xi32>
    %56 = stablehlo.select %53, %55, %arg1 : tensor<2xi1>, tensor<2xi32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %c_15 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_16 = stablehlo.constant dense<0> : tensor<i32>
    %58 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %59 = stablehlo.compare GE, %57, %58, SIGNED : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %60 = stablehlo.broadcast_in_dim %c_15, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<2x1xi32>
    %62 = stablehlo.compare LE, %57, %61, SIGNED : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %63 = stablehlo.and %59, %62 : tensor<2x1xi1>
    %c_17 = stablehlo.constant dense<true> : tensor<i1>
    %64 = stablehlo.reduce(%63 init: %c_17) applies stablehlo.and across dimensions = [1] : (tensor<2x1xi1>, tensor<i1>) -> tensor<2xi1>
    %65 = "stablehlo.gather"(%arg0, %57) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    %66 = stablehlo.broadcast_in_dim %64, dims = [0] : (tensor<2xi1>) -> tensor<2x3xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %68 = stablehlo.select %66, %65, %67 : tensor<2x3xi1>, tensor<2x3xf32>
    return %6, %10, %19, %26, %33, %42, %51, %68 : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2x2xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<2x3xf32>
  }
  func.func private @remainder(%arg0: tensor<2x1xi32>, %arg1: tensor<i32>) -> tensor<2x1xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<2x1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<2x1xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<2x1xi1>, tensor<2x1xi1>) -> tensor<2x1xi1>
    %12 = stablehlo.and %11, %6 : tensor<2x1xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %14 = stablehlo.add %4, %13 : tensor<2x1xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<2x1xi1>, tensor<2x1xi32>
    return %15 : tensor<2x1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @take_along_axis(%arg0: tensor<2x3xf32>, %arg1: tensor<2x1xi32>) -> tensor<2x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<2x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<2x1xi1>, tensor<2x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<2x1xi32>) -> tensor<2x1x1xi32>
    %c_1 = stablehlo.constant dense<2> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<2x1x1xi32>, tensor<2x1x1xi32>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<2x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<2x1x1xi32>, tensor<2x1x1xi32>) -> tensor<2x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<2x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<2x1x1xi1>, tensor<i1>) -> tensor<2x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<2x3xf32>, tensor<2x1x1xi32>) -> tensor<2x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<2x1xi1>, tensor<2x1xf32>
    return %15 : tensor<2x1xf32>
  }
}
