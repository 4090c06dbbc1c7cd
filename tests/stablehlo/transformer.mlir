module @jit_transformer attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<2x2x2x16xf32>, %arg2: tensor<2x16x48xf32>, %arg3: tensor<2x16x16xf32>, %arg4: tensor<2x16x32xf32>, %arg5: tensor<2x32xf32>, %arg6: tensor<2x32x16xf32>, %arg7: tensor<2x16xf32>) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %1 = call @tril(%0) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %2 = stablehlo.slice %arg1 [0:1, 0:1, 0:1, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %4 = stablehlo.slice %arg1 [0:1, 0:1, 1:2, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %9 = stablehlo.divide %7, %8 : tensor<8x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %11 = stablehlo.subtract %arg0, %10 : tensor<8x16xf32>
    %12 = stablehlo.multiply %11, %11 : tensor<8x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %16 = stablehlo.divide %14, %15 : tensor<8x1xf32>
    %17 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %18 = stablehlo.subtract %arg0, %17 : tensor<8x16xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %20 = stablehlo.add %16, %19 : tensor<8x1xf32>
    %21 = stablehlo.rsqrt %20 : tensor<8x1xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %23 = stablehlo.multiply %18, %22 : tensor<8x16xf32>
    %24 = stablehlo.broadcast_in_dim %3, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %26 = stablehlo.multiply %23, %25 : tensor<8x16xf32>
    %27 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %29 = stablehlo.add %26, %28 : tensor<8x16xf32>
    %30 = stablehlo.slice %arg2 [0:1, 0:16, 0:48] : (tensor<2x16x48xf32>) -> tensor<1x16x48xf32>
    %31 = stablehlo.reshape %30 : (tensor<1x16x48xf32>) -> tensor<16x48xf32>
    %32 = stablehlo.dot_general %29, %31, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x48xf32>) -> tensor<8x48xf32>
    %33 = stablehlo.slice %32 [0:8, 0:16] : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %34 = stablehlo.slice %32 [0:8, 16:32] : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %35 = stablehlo.slice %32 [0:8, 32:48] : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %36 = stablehlo.reshape %33 : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %37 = stablehlo.transpose %36, dims = [1, 0, 2] : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %38 = stablehlo.reshape %34 : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %39 = stablehlo.transpose %38, dims = [1, 0, 2] : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %40 = stablehlo.reshape %35 : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %41 = stablehlo.transpose %40, dims = [1, 0, 2] : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %42 = stablehlo.transpose %39, dims = [0, 2, 1] : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %43 = stablehlo.dot_general %37, %42, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %cst_4 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %44 = stablehlo.sqrt %cst_4 : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [] : (tensor<f32>) -> tensor<2x8x8xf32>
    %46 = stablehlo.divide %43, %45 : tensor<2x8x8xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %47 = call @_where(%1, %46, %cst_5) : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %48 = stablehlo.reduce(%47 init: %cst_6) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
    %50 = stablehlo.maximum %49, %48 : tensor<2x8xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %53 = stablehlo.subtract %47, %52 : tensor<2x8x8xf32>
    %54 = stablehlo.exponential %53 : tensor<2x8x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %55 = stablehlo.reduce(%54 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %58 = stablehlo.divide %54, %57 : tensor<2x8x8xf32>
    %59 = stablehlo.dot_general %58, %41, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %60 = stablehlo.transpose %59, dims = [1, 0, 2] : (tensor<2x8x8xf32>) -> tensor<8x2x8xf32>
    %61 = stablehlo.reshape %60 : (tensor<8x2x8xf32>) -> tensor<8x16xf32>
    %62 = stablehlo.slice %arg3 [0:1, 0:16, 0:16] : (tensor<2x16x16xf32>) -> tensor<1x16x16xf32>
    %63 = stablehlo.reshape %62 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    %64 = stablehlo.dot_general %61, %63, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %65 = stablehlo.add %arg0, %64 : tensor<8x16xf32>
    %66 = stablehlo.slice %arg1 [0:1, 1:2, 0:1, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %67 = stablehlo.reshape %66 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %68 = stablehlo.slice %arg1 [0:1, 1:2, 1:2, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %69 = stablehlo.reshape %68 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.reduce(%65 init: %cst_9) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_10 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %73 = stablehlo.divide %71, %72 : tensor<8x1xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %75 = stablehlo.subtract %65, %74 : tensor<8x16xf32>
    %76 = stablehlo.multiply %75, %75 : tensor<8x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %77 = stablehlo.reduce(%76 init: %cst_11) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_12 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %80 = stablehlo.divide %78, %79 : tensor<8x1xf32>
    %81 = stablehlo.broadcast_in_dim %73, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %82 = stablehlo.subtract %65, %81 : tensor<8x16xf32>
    %cst_13 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %84 = stablehlo.add %80, %83 : tensor<8x1xf32>
    %85 = stablehlo.rsqrt %84 : tensor<8x1xf32>
    %86 = stablehlo.broadcast_in_dim %85, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %87 = stablehlo.multiply %82, %86 : tensor<8x16xf32>
    %88 = stablehlo.broadcast_in_dim %67, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %90 = stablehlo.multiply %87, %89 : tensor<8x16xf32>
    %91 = stablehlo.broadcast_in_dim %69, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %93 = stablehlo.add %90, %92 : tensor<8x16xf32>
    %94 = stablehlo.slice %arg4 [0:1, 0:16, 0:32] : (tensor<2x16x32xf32>) -> tensor<1x16x32xf32>
    %95 = stablehlo.reshape %94 : (tensor<1x16x32xf32>) -> tensor<16x32xf32>
    %96 = stablehlo.dot_general %93, %95, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %97 = stablehlo.slice %arg5 [0:1, 0:32] : (tensor<2x32xf32>) -> tensor<1x32xf32>
    %98 = stablehlo.reshape %97 : (tensor<1x32xf32>) -> tensor<32xf32>
    %99 = stablehlo.broadcast_in_dim %98, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %101 = stablehlo.add %96, %100 : tensor<8x32xf32>
    %102 = stablehlo.multiply %101, %101 : tensor<8x32xf32>
    %103 = stablehlo.multiply %102, %101 : tensor<8x32xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %105 = stablehlo.multiply %104, %103 : tensor<8x32xf32>
    %106 = stablehlo.add %101, %105 : tensor<8x32xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %107 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %108 = stablehlo.multiply %107, %106 : tensor<8x32xf32>
    %109 = stablehlo.tanh %108 : tensor<8x32xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %111 = stablehlo.add %110, %109 : tensor<8x32xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %112 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %113 = stablehlo.multiply %112, %111 : tensor<8x32xf32>
    %114 = stablehlo.multiply %101, %113 : tensor<8x32xf32>
    %115 = stablehlo.slice %arg6 [0:1, 0:32, 0:16] : (tensor<2x32x16xf32>) -> tensor<1x32x16xf32>
    %116 = stablehlo.reshape %115 : (tensor<1x32x16xf32>) -> tensor<32x16xf32>
    %117 = stablehlo.dot_general %114, %116, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %118 = stablehlo.add %65, %117 : tensor<8x16xf32>
    %119 = stablehlo.slice %arg7 [0:1, 0:16] : (tensor<2x16xf32>) -> tensor<1x16xf32>
    %120 = stablehlo.reshape %119 : (tensor<1x16xf32>) -> tensor<16xf32>
    %121 = stablehlo.broadcast_in_dim %120, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %123 = stablehlo.add %118, %122 : tensor<8x16xf32>
    %124 = stablehlo.slice %arg1 [1:2, 0:1, 0:1, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %125 = stablehlo.reshape %124 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %126 = stablehlo.slice %arg1 [1:2, 0:1, 1:2, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %127 = stablehlo.reshape %126 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %128 = stablehlo.reduce(%123 init: %cst_18) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %129 = stablehlo.broadcast_in_dim %128, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_19 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %130 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %131 = stablehlo.divide %129, %130 : tensor<8x1xf32>
    %132 = stablehlo.broadcast_in_dim %131, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %133 = stablehlo.subtract %123, %132 : tensor<8x16xf32>
    %134 = stablehlo.multiply %133, %133 : tensor<8x16xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %135 = stablehlo.reduce(%134 init: %cst_20) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %136 = stablehlo.broadcast_in_dim %135, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_21 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %138 = stablehlo.divide %136, %137 : tensor<8x1xf32>
    %139 = stablehlo.broadcast_in_dim %131, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %140 = stablehlo.subtract %123, %139 : tensor<8x16xf32>
    %cst_22 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %142 = stablehlo.add %138, %141 : tensor<8x1xf32>
    %143 = stablehlo.rsqrt %142 : tensor<8x1xf32>
    %144 = stablehlo.broadcast_in_dim %143, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %145 = stablehlo.multiply %140, %144 : tensor<8x16xf32>
    %146 = stablehlo.broadcast_in_dim %125, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %147 = stablehlo.broadcast_in_dim %146, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %148 = stablehlo.multiply %145, %147 : tensor<8x16xf32>
    %149 = stablehlo.broadcast_in_dim %127, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %150 = stablehlo.broadcast_in_dim %149, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %151 = stablehlo.add %148, %150 : tensor<8x16xf32>
    %152 = stablehlo.slice %arg2 [1:2, 0:16, 0:48] : (tensor<2x16x48xf32>) -> tensor<1x16x48xf32>
    %153 = stablehlo.reshape %152 : (tensor<1x16x48xf32>) -> tensor<16x48xf32>
    %154 = stablehlo.dot_general %151, %153, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x48xf32>) -> tensor<8x48xf32>
    %155 = stablehlo.slice %154 [0:8, 0:16] : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %156 = stablehlo.slice %154 [0:8, 16:32] : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %157 = stablehlo.slice %154 [0:8, 32:48] : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %158 = stablehlo.reshape %155 : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %159 = stablehlo.transpose %158, dims = [1, 0, 2] : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %160 = stablehlo.reshape %156 : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %161 = stablehlo.transpose %160, dims = [1, 0, 2] : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %162 = stablehlo.reshape %157 : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %163 = stablehlo.transpose %162, dims = [1, 0, 2] : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %164 = stablehlo.transpose %161, dims = [0, 2, 1] : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %165 = stablehlo.dot_general %159, %164, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %cst_23 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %166 = stablehlo.sqrt %cst_23 : tensor<f32>
    %167 = stablehlo.broadcast_in_dim %166, dims = [] : (tensor<f32>) -> tensor<2x8x8xf32>
    %168 = stablehlo.divide %165, %167 : tensor<2x8x8xf32>
    %cst_24 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %169 = call @_where(%1, %168, %cst_24) : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
    %cst_25 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %170 = stablehlo.reduce(%169 init: %cst_25) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %cst_26 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %171 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
    %172 = stablehlo.maximum %171, %170 : tensor<2x8xf32>
    %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %174 = stablehlo.broadcast_in_dim %173, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %175 = stablehlo.subtract %169, %174 : tensor<2x8x8xf32>
    %176 = stablehlo.exponential %175 : tensor<2x8x8xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %177 = stablehlo.reduce(%176 init: %cst_27) applies stablehlo.add across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %178 = stablehlo.broadcast_in_dim %177, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %179 = stablehlo.broadcast_in_dim %178, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %180 = stablehlo.divide %176, %179 : tensor<2x8x8xf32>
    %181 = stablehlo.dot_general %180, %163, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %182 = stablehlo.transpose %181, dims = [1, 0, 2] : (tensor<2x8x8xf32>) -> tensor<8x2x8xf32>
    %183 = stablehlo.reshape %182 : (tensor<8x2x8xf32>) -> tensor<8x16xf32>
    %184 = stablehlo.slice %arg3 [1:2, 0:16, 0:16] : (tensor<2x16x16xf32>) -> tensor<1x16x16xf32>
    %185 = stablehlo.reshape %184 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    %186 = stablehlo.dot_general %183, %185, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %187 = stablehlo.add %123, %186 : tensor<8x16xf32>
    %188 = stablehlo.slice %arg1 [1:2, 1:2, 0:1, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %189 = stablehlo.reshape %188 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %190 = stablehlo.slice %arg1 [1:2, 1:2, 1:2, 0:16] : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %191 = stablehlo.reshape %190 : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %192 = stablehlo.reduce(%187 init: %cst_28) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %193 = stablehlo.broadcast_in_dim %192, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_29 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %195 = stablehlo.divide %193, %194 : tensor<8x1xf32>
    %196 = stablehlo.broadcast_in_dim %195, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %197 = stablehlo.subtract %187, %196 : tensor<8x16xf32>
    %198 = stablehlo.multiply %197, %197 : tensor<8x16xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %199 = stablehlo.reduce(%198 init: %cst_30) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %200 = stablehlo.broadcast_in_dim %199, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_31 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %201 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %202 = stablehlo.divide %200, %201 : tensor<8x1xf32>
    %203 = stablehlo.broadcast_in_dim %195, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %204 = stablehlo.subtract %187, %203 : tensor<8x16xf32>
    %cst_32 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %206 = stablehlo.add %202, %205 : tensor<8x1xf32>
    %207 = stablehlo.rsqrt %206 : tensor<8x1xf32>
    %208 = stablehlo.broadcast_in_dim %207, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %209 = stablehlo.multiply %204, %208 : tensor<8x16xf32>
    %210 = stablehlo.broadcast_in_dim %189, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %211 = stablehlo.broadcast_in_dim %210, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %212 = stablehlo.multiply %209, %211 : tensor<8x16xf32>
    %213 = stablehlo.broadcast_in_dim %191, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %214 = stablehlo.broadcast_in_dim %213, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %215 = stablehlo.add %212, %214 : tensor<8x16xf32>
    %216 = stablehlo.slice %arg4 [1:2, 0:16, 0:32] : (tensor<2x16x32xf32>) -> tensor<1x16x32xf32>
    %217 = stablehlo.reshape %216 : (tensor<1x16x32xf32>) -> tensor<16x32xf32>
    %218 = stablehlo.dot_general %215, %217, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %219 = stablehlo.slice %arg5 [1:2, 0:32] : (tensor<2x32xf32>) -> tensor<1x32xf32>
    %220 = stablehlo.reshape %219 : (tensor<1x32xf32>) -> tensor<32xf32>
    %221 = stablehlo.broadcast_in_dim %220, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %222 = stablehlo.broadcast_in_dim %221, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %223 = stablehlo.add %218, %222 : tensor<8x32xf32>
    %224 = stablehlo.multiply %223, %223 : tensor<8x32xf32>
    %225 = stablehlo.multiply %224, %223 : tensor<8x32xf32>
    %cst_33 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %226 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %227 = stablehlo.multiply %226, %225 : tensor<8x32xf32>
    %228 = stablehlo.add %223, %227 : tensor<8x32xf32>
    %cst_34 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %229 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %230 = stablehlo.multiply %229, %228 : tensor<8x32xf32>
    %231 = stablehlo.tanh %230 : tensor<8x32xf32>
    %cst_35 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %232 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %233 = stablehlo.add %232, %231 : tensor<8x32xf32>
    %cst_36 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %234 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %235 = stablehlo.multiply %234, %233 : tensor<8x32xf32>
    %236 = stablehlo.multiply %223, %235 : tensor<8x32xf32>
    %237 = stablehlo.slice %arg6 [1:2, 0:32, 0:16] : (tensor<2x32x16xf32>) -> tensor<1x32x16xf32>
    %238 = stablehlo.reshape %237 : (tensor<1x32x16xf32>) -> tensor<32x16xf32>
    %239 = stablehlo.dot_general %236, %238, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %240 = stablehlo.add %187, %239 : tensor<8x16xf32>
    %241 = stablehlo.slice %arg7 [1:2, 0:16] : (tensor<2x16xf32>) -> tensor<1x16xf32>
    %242 = stablehlo.reshape %241 : (tensor<1x16xf32>) -> tensor<16xf32>
    %243 = stablehlo.broadcast_in_dim %242, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %244 = stablehlo.broadcast_in_dim %243, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %245 = stablehlo.add %240, %244 : tensor<8x16xf32>
    return %245 : tensor<8x16xf32>
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
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<2x8x8xf32>, %arg2: tensor<f32>) -> tensor<2x8x8xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<8x8xi1>) -> tensor<2x8x8xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x8x8xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x8x8xi1>, tensor<2x8x8xf32>
    return %3 : tensor<2x8x8xf32>
  }
}
