module @jit_transformer attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xf32>, %arg1: tensor<32x4x8xf32>, %arg2: tensor<32x4x8xf32>, %arg3: tensor<32x4x8xf32>, %arg4: tensor<4x8x32xf32>, %arg5: tensor<32x64xf32>, %arg6: tensor<64x32xf32>, %arg7: tensor<32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32x4x8xf32>, %arg10: tensor<32x4x8xf32>, %arg11: tensor<32x4x8xf32>, %arg12: tensor<4x8x32xf32>, %arg13: tensor<32x64xf32>, %arg14: tensor<64x32xf32>, %arg15: tensor<32xf32>, %arg16: tensor<32xf32>) -> (tensor<8x32xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_0 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x32xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<8x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<8x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<8x32xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<8x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<8x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<8x32xf32>
    %18 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<8x32xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %22 = stablehlo.add %20, %21 : tensor<8x32xf32>
    %23 = stablehlo.dot_general %arg1, %22, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %24 = stablehlo.transpose %23, dims = [0, 2, 1] : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %25 = stablehlo.dot_general %arg2, %22, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %26 = stablehlo.transpose %25, dims = [0, 2, 1] : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %27 = stablehlo.dot_general %arg3, %22, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %28 = stablehlo.transpose %27, dims = [0, 2, 1] : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %29 = stablehlo.dot_general %24, %26, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %cst_5 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %30 = stablehlo.sqrt %cst_5 : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f32>) -> tensor<4x8x8xf32>
    %32 = stablehlo.divide %29, %31 : tensor<4x8x8xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %33 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %34 = call @tril(%33) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %35 = call @_where(%34, %32, %cst_6) : (tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8x8xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_7) applies stablehlo.maximum across dimensions = [2] : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %38 = stablehlo.maximum %37, %36 : tensor<4x8xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %41 = stablehlo.subtract %35, %40 : tensor<4x8x8xf32>
    %42 = stablehlo.exponential %41 : tensor<4x8x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.reduce(%42 init: %cst_9) applies stablehlo.add across dimensions = [2] : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %46 = stablehlo.divide %42, %45 : tensor<4x8x8xf32>
    %47 = stablehlo.dot_general %28, %46, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %48 = stablehlo.dot_general %47, %arg4, contracting_dims = [1, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x8xf32>, tensor<4x8x32xf32>) -> tensor<8x32xf32>
    %49 = stablehlo.add %arg0, %48 : tensor<8x32xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_10) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_11 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %53 = stablehlo.divide %51, %52 : tensor<8x1xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %55 = stablehlo.subtract %49, %54 : tensor<8x32xf32>
    %56 = stablehlo.multiply %55, %55 : tensor<8x32xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.reduce(%56 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_13 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %60 = stablehlo.divide %58, %59 : tensor<8x1xf32>
    %61 = stablehlo.broadcast_in_dim %53, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %62 = stablehlo.subtract %49, %61 : tensor<8x32xf32>
    %cst_14 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %64 = stablehlo.add %60, %63 : tensor<8x1xf32>
    %65 = stablehlo.rsqrt %64 : tensor<8x1xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %67 = stablehlo.multiply %62, %66 : tensor<8x32xf32>
    %68 = stablehlo.broadcast_in_dim %arg8, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %70 = stablehlo.multiply %67, %69 : tensor<8x32xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %72 = stablehlo.add %70, %71 : tensor<8x32xf32>
    %73 = stablehlo.dot_general %72, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %74 = stablehlo.multiply %73, %73 : tensor<8x64xf32>
    %75 = stablehlo.multiply %74, %73 : tensor<8x64xf32>
    %cst_16 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %77 = stablehlo.multiply %76, %75 : tensor<8x64xf32>
    %78 = stablehlo.add %73, %77 : tensor<8x64xf32>
    %cst_17 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %80 = stablehlo.multiply %79, %78 : tensor<8x64xf32>
    %81 = stablehlo.tanh %80 : tensor<8x64xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %83 = stablehlo.add %82, %81 : tensor<8x64xf32>
    %cst_19 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %85 = stablehlo.multiply %84, %83 : tensor<8x64xf32>
    %86 = stablehlo.multiply %73, %85 : tensor<8x64xf32>
    %87 = stablehlo.dot_general %86, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %88 = stablehlo.add %49, %87 : tensor<8x32xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.reduce(%88 init: %cst_20) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %90 = stablehlo.broadcast_in_dim %89, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_21 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %92 = stablehlo.divide %90, %91 : tensor<8x1xf32>
    %93 = stablehlo.broadcast_in_dim %92, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %94 = stablehlo.subtract %88, %93 : tensor<8x32xf32>
    %95 = stablehlo.multiply %94, %94 : tensor<8x32xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %96 = stablehlo.reduce(%95 init: %cst_22) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_23 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %99 = stablehlo.divide %97, %98 : tensor<8x1xf32>
    %100 = stablehlo.broadcast_in_dim %92, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %101 = stablehlo.subtract %88, %100 : tensor<8x32xf32>
    %cst_24 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %103 = stablehlo.add %99, %102 : tensor<8x1xf32>
    %104 = stablehlo.rsqrt %103 : tensor<8x1xf32>
    %105 = stablehlo.broadcast_in_dim %104, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %106 = stablehlo.multiply %101, %105 : tensor<8x32xf32>
    %107 = stablehlo.broadcast_in_dim %arg15, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %108 = stablehlo.broadcast_in_dim %107, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %109 = stablehlo.multiply %106, %108 : tensor<8x32xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %111 = stablehlo.add %109, %110 : tensor<8x32xf32>
    %112 = stablehlo.dot_general %arg9, %111, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %113 = stablehlo.transpose %112, dims = [0, 2, 1] : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %114 = stablehlo.dot_general %arg10, %111, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %115 = stablehlo.transpose %114, dims = [0, 2, 1] : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %116 = stablehlo.dot_general %arg11, %111, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %117 = stablehlo.transpose %116, dims = [0, 2, 1] : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %118 = stablehlo.dot_general %113, %115, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %cst_26 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %119 = stablehlo.sqrt %cst_26 : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %119, dims = [] : (tensor<f32>) -> tensor<4x8x8xf32>
    %121 = stablehlo.divide %118, %120 : tensor<4x8x8xf32>
    %c_27 = stablehlo.constant dense<true> : tensor<i1>
    %122 = stablehlo.broadcast_in_dim %c_27, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %123 = call @tril(%122) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %cst_28 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %124 = call @_where(%123, %121, %cst_28) : (tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8x8xf32>
    %cst_29 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %125 = stablehlo.reduce(%124 init: %cst_29) applies stablehlo.maximum across dimensions = [2] : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cst_30 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %127 = stablehlo.maximum %126, %125 : tensor<4x8xf32>
    %128 = stablehlo.broadcast_in_dim %127, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %129 = stablehlo.broadcast_in_dim %128, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %130 = stablehlo.subtract %124, %129 : tensor<4x8x8xf32>
    %131 = stablehlo.exponential %130 : tensor<4x8x8xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.reduce(%131 init: %cst_31) applies stablehlo.add across dimensions = [2] : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %133 = stablehlo.broadcast_in_dim %132, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %135 = stablehlo.divide %131, %134 : tensor<4x8x8xf32>
    %136 = stablehlo.dot_general %117, %135, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %137 = stablehlo.dot_general %136, %arg12, contracting_dims = [1, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x8xf32>, tensor<4x8x32xf32>) -> tensor<8x32xf32>
    %138 = stablehlo.add %88, %137 : tensor<8x32xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %139 = stablehlo.reduce(%138 init: %cst_32) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %140 = stablehlo.broadcast_in_dim %139, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_33 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %142 = stablehlo.divide %140, %141 : tensor<8x1xf32>
    %143 = stablehlo.broadcast_in_dim %142, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %144 = stablehlo.subtract %138, %143 : tensor<8x32xf32>
    %145 = stablehlo.multiply %144, %144 : tensor<8x32xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %146 = stablehlo.reduce(%145 init: %cst_34) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %147 = stablehlo.broadcast_in_dim %146, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_35 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %148 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %149 = stablehlo.divide %147, %148 : tensor<8x1xf32>
    %150 = stablehlo.broadcast_in_dim %142, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %151 = stablehlo.subtract %138, %150 : tensor<8x32xf32>
    %cst_36 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %152 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %153 = stablehlo.add %149, %152 : tensor<8x1xf32>
    %154 = stablehlo.rsqrt %153 : tensor<8x1xf32>
    %155 = stablehlo.broadcast_in_dim %154, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %156 = stablehlo.multiply %151, %155 : tensor<8x32xf32>
    %157 = stablehlo.broadcast_in_dim %arg16, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %158 = stablehlo.broadcast_in_dim %157, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %159 = stablehlo.multiply %156, %158 : tensor<8x32xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %160 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %161 = stablehlo.add %159, %160 : tensor<8x32xf32>
    %162 = stablehlo.dot_general %161, %arg13, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %163 = stablehlo.multiply %162, %162 : tensor<8x64xf32>
    %164 = stablehlo.multiply %163, %162 : tensor<8x64xf32>
    %cst_38 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %166 = stablehlo.multiply %165, %164 : tensor<8x64xf32>
    %167 = stablehlo.add %162, %166 : tensor<8x64xf32>
    %cst_39 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %168 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %169 = stablehlo.multiply %168, %167 : tensor<8x64xf32>
    %170 = stablehlo.tanh %169 : tensor<8x64xf32>
    %cst_40 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %171 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %172 = stablehlo.add %171, %170 : tensor<8x64xf32>
    %cst_41 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %173 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %174 = stablehlo.multiply %173, %172 : tensor<8x64xf32>
    %175 = stablehlo.multiply %162, %174 : tensor<8x64xf32>
    %176 = stablehlo.dot_general %175, %arg14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %177 = stablehlo.add %138, %176 : tensor<8x32xf32>
    return %177 : tensor<8x32xf32>
  }
  func.func private @tril(%arg0: tensor<8x8xi1>) -> tensor<8x8xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %2 = stablehlo.add %0, %1 : tensor<8x8xi32>
    %3 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<8x8xi1>, tensor<8x8xi1>
    return %6 : tensor<8x8xi1>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<4x8x8xf32>, %arg2: tensor<f32>) -> tensor<4x8x8xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<8x8xi1>) -> tensor<4x8x8xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x8x8xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<4x8x8xi1>, tensor<4x8x8xf32>
    return %3 : tensor<4x8x8xf32>
  }
}
