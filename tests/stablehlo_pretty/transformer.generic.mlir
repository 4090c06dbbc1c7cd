"builtin.module"() <{sym_name = "jit_transformer"}> ({
  "func.func"() <{function_type = (tensor<8x32xf32>, tensor<32x4x8xf32>, tensor<32x4x8xf32>, tensor<32x4x8xf32>, tensor<4x8x32xf32>, tensor<32x64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x4x8xf32>, tensor<32x4x8xf32>, tensor<32x4x8xf32>, tensor<4x8x32xf32>, tensor<32x64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x32xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg4: tensor<8x32xf32>, %arg5: tensor<32x4x8xf32>, %arg6: tensor<32x4x8xf32>, %arg7: tensor<32x4x8xf32>, %arg8: tensor<4x8x32xf32>, %arg9: tensor<32x64xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<32xf32>, %arg12: tensor<32xf32>, %arg13: tensor<32x4x8xf32>, %arg14: tensor<32x4x8xf32>, %arg15: tensor<32x4x8xf32>, %arg16: tensor<4x8x32xf32>, %arg17: tensor<32x64xf32>, %arg18: tensor<64x32xf32>, %arg19: tensor<32xf32>, %arg20: tensor<32xf32>):
    %13 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %14 = "stablehlo.reduce"(%arg4, %13) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg43: tensor<f32>, %arg44: tensor<f32>):
      %246 = "stablehlo.add"(%arg43, %arg44) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%246) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %15 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %16 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %17 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %18 = "stablehlo.divide"(%15, %17) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %19 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %20 = "stablehlo.subtract"(%arg4, %19) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %21 = "stablehlo.multiply"(%20, %20) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %22 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %23 = "stablehlo.reduce"(%21, %22) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg41: tensor<f32>, %arg42: tensor<f32>):
      %245 = "stablehlo.add"(%arg41, %arg42) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%245) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %25 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %27 = "stablehlo.divide"(%24, %26) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %28 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %29 = "stablehlo.subtract"(%arg4, %28) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %30 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %32 = "stablehlo.add"(%27, %31) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %33 = "stablehlo.rsqrt"(%32) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %35 = "stablehlo.multiply"(%29, %34) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %36 = "stablehlo.broadcast_in_dim"(%arg11) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> tensor<1x32xf32>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %38 = "stablehlo.multiply"(%35, %37) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %39 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %41 = "stablehlo.add"(%38, %40) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %42 = "stablehlo.dot_general"(%arg5, %41) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %43 = "stablehlo.transpose"(%42) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %44 = "stablehlo.dot_general"(%arg6, %41) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %45 = "stablehlo.transpose"(%44) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %46 = "stablehlo.dot_general"(%arg7, %41) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %47 = "stablehlo.transpose"(%46) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %48 = "stablehlo.dot_general"(%43, %45) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %49 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %50 = "stablehlo.sqrt"(%49) : (tensor<f32>) -> tensor<f32>
    %51 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8x8xf32>
    %52 = "stablehlo.divide"(%48, %51) : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %53 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %54 = "stablehlo.broadcast_in_dim"(%53) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<8x8xi1>
    %55 = "func.call"(%54) <{callee = @tril}> : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %56 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %57 = "func.call"(%55, %52, %56) <{callee = @_where}> : (tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8x8xf32>
    %58 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %59 = "stablehlo.reduce"(%57, %58) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg39: tensor<f32>, %arg40: tensor<f32>):
      %244 = "stablehlo.maximum"(%arg39, %arg40) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%244) : (tensor<f32>) -> ()
    }) : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %60 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %61 = "stablehlo.broadcast_in_dim"(%60) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %62 = "stablehlo.maximum"(%61, %59) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %63 = "stablehlo.broadcast_in_dim"(%62) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %64 = "stablehlo.broadcast_in_dim"(%63) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %65 = "stablehlo.subtract"(%57, %64) : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %66 = "stablehlo.exponential"(%65) : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %67 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %68 = "stablehlo.reduce"(%66, %67) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg37: tensor<f32>, %arg38: tensor<f32>):
      %243 = "stablehlo.add"(%arg37, %arg38) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%243) : (tensor<f32>) -> ()
    }) : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %69 = "stablehlo.broadcast_in_dim"(%68) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %70 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %71 = "stablehlo.divide"(%66, %70) : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %72 = "stablehlo.dot_general"(%47, %71) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %73 = "stablehlo.dot_general"(%72, %arg8) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8x8xf32>, tensor<4x8x32xf32>) -> tensor<8x32xf32>
    %74 = "stablehlo.add"(%arg4, %73) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %75 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %76 = "stablehlo.reduce"(%74, %75) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg35: tensor<f32>, %arg36: tensor<f32>):
      %242 = "stablehlo.add"(%arg35, %arg36) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%242) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %77 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %78 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %79 = "stablehlo.broadcast_in_dim"(%78) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %80 = "stablehlo.divide"(%77, %79) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %81 = "stablehlo.broadcast_in_dim"(%80) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %82 = "stablehlo.subtract"(%74, %81) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %83 = "stablehlo.multiply"(%82, %82) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %84 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %85 = "stablehlo.reduce"(%83, %84) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg33: tensor<f32>, %arg34: tensor<f32>):
      %241 = "stablehlo.add"(%arg33, %arg34) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%241) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %86 = "stablehlo.broadcast_in_dim"(%85) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %87 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %88 = "stablehlo.broadcast_in_dim"(%87) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %89 = "stablehlo.divide"(%86, %88) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %90 = "stablehlo.broadcast_in_dim"(%80) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %91 = "stablehlo.subtract"(%74, %90) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %92 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %93 = "stablehlo.broadcast_in_dim"(%92) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %94 = "stablehlo.add"(%89, %93) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %95 = "stablehlo.rsqrt"(%94) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %96 = "stablehlo.broadcast_in_dim"(%95) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %97 = "stablehlo.multiply"(%91, %96) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %98 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> tensor<1x32xf32>
    %99 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %100 = "stablehlo.multiply"(%97, %99) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %101 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %102 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %103 = "stablehlo.add"(%100, %102) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %104 = "stablehlo.dot_general"(%103, %arg9) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %105 = "stablehlo.multiply"(%104, %104) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %106 = "stablehlo.multiply"(%105, %104) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %107 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %108 = "stablehlo.broadcast_in_dim"(%107) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %109 = "stablehlo.multiply"(%108, %106) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %110 = "stablehlo.add"(%104, %109) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %111 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %112 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %113 = "stablehlo.multiply"(%112, %110) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %114 = "stablehlo.tanh"(%113) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %115 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %116 = "stablehlo.broadcast_in_dim"(%115) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %117 = "stablehlo.add"(%116, %114) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %118 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %119 = "stablehlo.broadcast_in_dim"(%118) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %120 = "stablehlo.multiply"(%119, %117) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %121 = "stablehlo.multiply"(%104, %120) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %122 = "stablehlo.dot_general"(%121, %arg10) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %123 = "stablehlo.add"(%74, %122) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %124 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %125 = "stablehlo.reduce"(%123, %124) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %240 = "stablehlo.add"(%arg31, %arg32) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%240) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %126 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %127 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %128 = "stablehlo.broadcast_in_dim"(%127) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %129 = "stablehlo.divide"(%126, %128) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %130 = "stablehlo.broadcast_in_dim"(%129) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %131 = "stablehlo.subtract"(%123, %130) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %132 = "stablehlo.multiply"(%131, %131) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %133 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %134 = "stablehlo.reduce"(%132, %133) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg29: tensor<f32>, %arg30: tensor<f32>):
      %239 = "stablehlo.add"(%arg29, %arg30) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%239) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %135 = "stablehlo.broadcast_in_dim"(%134) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %136 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %137 = "stablehlo.broadcast_in_dim"(%136) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %138 = "stablehlo.divide"(%135, %137) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %139 = "stablehlo.broadcast_in_dim"(%129) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %140 = "stablehlo.subtract"(%123, %139) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %141 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %142 = "stablehlo.broadcast_in_dim"(%141) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %143 = "stablehlo.add"(%138, %142) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %144 = "stablehlo.rsqrt"(%143) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %145 = "stablehlo.broadcast_in_dim"(%144) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %146 = "stablehlo.multiply"(%140, %145) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %147 = "stablehlo.broadcast_in_dim"(%arg19) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> tensor<1x32xf32>
    %148 = "stablehlo.broadcast_in_dim"(%147) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %149 = "stablehlo.multiply"(%146, %148) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %150 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %151 = "stablehlo.broadcast_in_dim"(%150) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %152 = "stablehlo.add"(%149, %151) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %153 = "stablehlo.dot_general"(%arg13, %152) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %154 = "stablehlo.transpose"(%153) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %155 = "stablehlo.dot_general"(%arg14, %152) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %156 = "stablehlo.transpose"(%155) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %157 = "stablehlo.dot_general"(%arg15, %152) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<32x4x8xf32>, tensor<8x32xf32>) -> tensor<4x8x8xf32>
    %158 = "stablehlo.transpose"(%157) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %159 = "stablehlo.dot_general"(%154, %156) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %160 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %161 = "stablehlo.sqrt"(%160) : (tensor<f32>) -> tensor<f32>
    %162 = "stablehlo.broadcast_in_dim"(%161) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8x8xf32>
    %163 = "stablehlo.divide"(%159, %162) : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %164 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %165 = "stablehlo.broadcast_in_dim"(%164) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<8x8xi1>
    %166 = "func.call"(%165) <{callee = @tril}> : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %167 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %168 = "func.call"(%166, %163, %167) <{callee = @_where}> : (tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8x8xf32>
    %169 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %170 = "stablehlo.reduce"(%168, %169) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg27: tensor<f32>, %arg28: tensor<f32>):
      %238 = "stablehlo.maximum"(%arg27, %arg28) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%238) : (tensor<f32>) -> ()
    }) : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %171 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %172 = "stablehlo.broadcast_in_dim"(%171) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %173 = "stablehlo.maximum"(%172, %170) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %174 = "stablehlo.broadcast_in_dim"(%173) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %175 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %176 = "stablehlo.subtract"(%168, %175) : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %177 = "stablehlo.exponential"(%176) : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %178 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %179 = "stablehlo.reduce"(%177, %178) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg25: tensor<f32>, %arg26: tensor<f32>):
      %237 = "stablehlo.add"(%arg25, %arg26) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%237) : (tensor<f32>) -> ()
    }) : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %180 = "stablehlo.broadcast_in_dim"(%179) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %181 = "stablehlo.broadcast_in_dim"(%180) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
    %182 = "stablehlo.divide"(%177, %181) : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %183 = "stablehlo.dot_general"(%158, %182) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %184 = "stablehlo.dot_general"(%183, %arg16) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8x8xf32>, tensor<4x8x32xf32>) -> tensor<8x32xf32>
    %185 = "stablehlo.add"(%123, %184) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %186 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %187 = "stablehlo.reduce"(%185, %186) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg23: tensor<f32>, %arg24: tensor<f32>):
      %236 = "stablehlo.add"(%arg23, %arg24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%236) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %188 = "stablehlo.broadcast_in_dim"(%187) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %189 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %190 = "stablehlo.broadcast_in_dim"(%189) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %191 = "stablehlo.divide"(%188, %190) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %192 = "stablehlo.broadcast_in_dim"(%191) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %193 = "stablehlo.subtract"(%185, %192) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %194 = "stablehlo.multiply"(%193, %193) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %195 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %196 = "stablehlo.reduce"(%194, %195) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
      %235 = "stablehlo.add"(%arg21, %arg22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%235) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %197 = "stablehlo.broadcast_in_dim"(%196) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %198 = "stablehlo.constant"() <{value = dense<3.200000e+01> : tensor<f32>}> : () -> tensor<f32>
    %199 = "stablehlo.broadcast_in_dim"(%198) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %200 = "stablehlo.divide"(%197, %199) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %201 = "stablehlo.broadcast_in_dim"(%191) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %202 = "stablehlo.subtract"(%185, %201) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %203 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %204 = "stablehlo.broadcast_in_dim"(%203) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %205 = "stablehlo.add"(%200, %204) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %206 = "stablehlo.rsqrt"(%205) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %207 = "stablehlo.broadcast_in_dim"(%206) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x32xf32>
    %208 = "stablehlo.multiply"(%202, %207) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %209 = "stablehlo.broadcast_in_dim"(%arg20) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> tensor<1x32xf32>
    %210 = "stablehlo.broadcast_in_dim"(%209) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %211 = "stablehlo.multiply"(%208, %210) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %212 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %213 = "stablehlo.broadcast_in_dim"(%212) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %214 = "stablehlo.add"(%211, %213) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %215 = "stablehlo.dot_general"(%214, %arg17) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %216 = "stablehlo.multiply"(%215, %215) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %217 = "stablehlo.multiply"(%216, %215) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %218 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %219 = "stablehlo.broadcast_in_dim"(%218) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %220 = "stablehlo.multiply"(%219, %217) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %221 = "stablehlo.add"(%215, %220) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %222 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %223 = "stablehlo.broadcast_in_dim"(%222) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %224 = "stablehlo.multiply"(%223, %221) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %225 = "stablehlo.tanh"(%224) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %226 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %227 = "stablehlo.broadcast_in_dim"(%226) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %228 = "stablehlo.add"(%227, %225) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %229 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %230 = "stablehlo.broadcast_in_dim"(%229) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x64xf32>
    %231 = "stablehlo.multiply"(%230, %228) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %232 = "stablehlo.multiply"(%215, %231) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
    %233 = "stablehlo.dot_general"(%232, %arg18) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %234 = "stablehlo.add"(%185, %233) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    "func.return"(%234) : (tensor<8x32xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x8xi1>) -> tensor<8x8xi1>, sym_name = "tril", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<8x8xi1>):
    %4 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<8x8xi32>
    %5 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x8xi32>
    %7 = "stablehlo.add"(%4, %6) : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
    %8 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<8x8xi32>
    %9 = "stablehlo.compare"(%7, %8) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %10 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<8x8xi1>
    %12 = "stablehlo.select"(%9, %arg3, %11) : (tensor<8x8xi1>, tensor<8x8xi1>, tensor<8x8xi1>) -> tensor<8x8xi1>
    "func.return"(%12) : (tensor<8x8xi1>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8x8xf32>, sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8x8xi1>, %arg1: tensor<4x8x8xf32>, %arg2: tensor<f32>):
    %0 = "stablehlo.convert"(%arg2) : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%arg0) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<8x8xi1>) -> tensor<4x8x8xi1>
    %2 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8x8xf32>
    %3 = "stablehlo.select"(%1, %arg1, %2) : (tensor<4x8x8xi1>, tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    "func.return"(%3) : (tensor<4x8x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
