"builtin.module"() <{sym_name = "jit_transformer"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}, {}, {}, {}, {}], function_type = (tensor<8x16xf32>, tensor<2x2x2x16xf32>, tensor<2x16x48xf32>, tensor<2x16x16xf32>, tensor<2x16x32xf32>, tensor<2x32xf32>, tensor<2x32x16xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg4: tensor<8x16xf32>, %arg5: tensor<2x2x2x16xf32>, %arg6: tensor<2x16x48xf32>, %arg7: tensor<2x16x16xf32>, %arg8: tensor<2x16x32xf32>, %arg9: tensor<2x32xf32>, %arg10: tensor<2x32x16xf32>, %arg11: tensor<2x16xf32>):
    %13 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<8x8xi1>
    %15 = "func.call"(%14) <{callee = @tril}> : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %16 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 1, 1, 1, 16>, start_indices = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %17 = "stablehlo.reshape"(%16) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %18 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 1, 1, 2, 16>, start_indices = array<i64: 0, 0, 1, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %19 = "stablehlo.reshape"(%18) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %20 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %21 = "stablehlo.reduce"(%arg4, %20) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg34: tensor<f32>, %arg35: tensor<f32>):
      %309 = "stablehlo.add"(%arg34, %arg35) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%309) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %22 = "stablehlo.broadcast_in_dim"(%21) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %23 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %25 = "stablehlo.divide"(%22, %24) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %27 = "stablehlo.subtract"(%arg4, %26) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %28 = "stablehlo.multiply"(%27, %27) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %29 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %30 = "stablehlo.reduce"(%28, %29) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg32: tensor<f32>, %arg33: tensor<f32>):
      %308 = "stablehlo.add"(%arg32, %arg33) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%308) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %32 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %34 = "stablehlo.divide"(%31, %33) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %35 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %36 = "stablehlo.subtract"(%arg4, %35) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %37 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %38 = "stablehlo.broadcast_in_dim"(%37) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %39 = "stablehlo.add"(%34, %38) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %40 = "stablehlo.rsqrt"(%39) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %41 = "stablehlo.broadcast_in_dim"(%40) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %42 = "stablehlo.multiply"(%36, %41) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %43 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %44 = "stablehlo.broadcast_in_dim"(%43) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %45 = "stablehlo.multiply"(%42, %44) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %46 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %47 = "stablehlo.broadcast_in_dim"(%46) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %48 = "stablehlo.add"(%45, %47) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %49 = "stablehlo.slice"(%arg6) <{limit_indices = array<i64: 1, 16, 48>, start_indices = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x16x48xf32>) -> tensor<1x16x48xf32>
    %50 = "stablehlo.reshape"(%49) : (tensor<1x16x48xf32>) -> tensor<16x48xf32>
    %51 = "stablehlo.dot_general"(%48, %50) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x48xf32>) -> tensor<8x48xf32>
    %52 = "stablehlo.slice"(%51) <{limit_indices = array<i64: 8, 16>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %53 = "stablehlo.slice"(%51) <{limit_indices = array<i64: 8, 32>, start_indices = array<i64: 0, 16>, strides = array<i64: 1, 1>}> : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %54 = "stablehlo.slice"(%51) <{limit_indices = array<i64: 8, 48>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %55 = "stablehlo.reshape"(%52) : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %56 = "stablehlo.transpose"(%55) <{permutation = array<i64: 1, 0, 2>}> : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %57 = "stablehlo.reshape"(%53) : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %58 = "stablehlo.transpose"(%57) <{permutation = array<i64: 1, 0, 2>}> : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %59 = "stablehlo.reshape"(%54) : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %60 = "stablehlo.transpose"(%59) <{permutation = array<i64: 1, 0, 2>}> : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %61 = "stablehlo.transpose"(%58) <{permutation = array<i64: 0, 2, 1>}> : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %62 = "stablehlo.dot_general"(%56, %61) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %63 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %64 = "stablehlo.sqrt"(%63) : (tensor<f32>) -> tensor<f32>
    %65 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8x8xf32>
    %66 = "stablehlo.divide"(%62, %65) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %67 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %68 = "func.call"(%15, %66, %67) <{callee = @_where}> : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
    %69 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %70 = "stablehlo.reduce"(%68, %69) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg30: tensor<f32>, %arg31: tensor<f32>):
      %307 = "stablehlo.maximum"(%arg30, %arg31) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%307) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %71 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %72 = "stablehlo.broadcast_in_dim"(%71) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8xf32>
    %73 = "stablehlo.maximum"(%72, %70) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %74 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %75 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %76 = "stablehlo.subtract"(%68, %75) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %77 = "stablehlo.exponential"(%76) : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %78 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %79 = "stablehlo.reduce"(%77, %78) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg28: tensor<f32>, %arg29: tensor<f32>):
      %306 = "stablehlo.add"(%arg28, %arg29) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%306) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %80 = "stablehlo.broadcast_in_dim"(%79) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %81 = "stablehlo.broadcast_in_dim"(%80) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %82 = "stablehlo.divide"(%77, %81) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %83 = "stablehlo.dot_general"(%82, %60) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %84 = "stablehlo.transpose"(%83) <{permutation = array<i64: 1, 0, 2>}> : (tensor<2x8x8xf32>) -> tensor<8x2x8xf32>
    %85 = "stablehlo.reshape"(%84) : (tensor<8x2x8xf32>) -> tensor<8x16xf32>
    %86 = "stablehlo.slice"(%arg7) <{limit_indices = array<i64: 1, 16, 16>, start_indices = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x16x16xf32>) -> tensor<1x16x16xf32>
    %87 = "stablehlo.reshape"(%86) : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    %88 = "stablehlo.dot_general"(%85, %87) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %89 = "stablehlo.add"(%arg4, %88) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %90 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 1, 2, 1, 16>, start_indices = array<i64: 0, 1, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %91 = "stablehlo.reshape"(%90) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %92 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 1, 2, 2, 16>, start_indices = array<i64: 0, 1, 1, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %93 = "stablehlo.reshape"(%92) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %94 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %95 = "stablehlo.reduce"(%89, %94) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg26: tensor<f32>, %arg27: tensor<f32>):
      %305 = "stablehlo.add"(%arg26, %arg27) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%305) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %96 = "stablehlo.broadcast_in_dim"(%95) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %97 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %98 = "stablehlo.broadcast_in_dim"(%97) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %99 = "stablehlo.divide"(%96, %98) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %100 = "stablehlo.broadcast_in_dim"(%99) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %101 = "stablehlo.subtract"(%89, %100) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %102 = "stablehlo.multiply"(%101, %101) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %103 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %104 = "stablehlo.reduce"(%102, %103) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
      %304 = "stablehlo.add"(%arg24, %arg25) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%304) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %105 = "stablehlo.broadcast_in_dim"(%104) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %106 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %107 = "stablehlo.broadcast_in_dim"(%106) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %108 = "stablehlo.divide"(%105, %107) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %109 = "stablehlo.broadcast_in_dim"(%99) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %110 = "stablehlo.subtract"(%89, %109) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %111 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %112 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %113 = "stablehlo.add"(%108, %112) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %114 = "stablehlo.rsqrt"(%113) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %115 = "stablehlo.broadcast_in_dim"(%114) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %116 = "stablehlo.multiply"(%110, %115) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %117 = "stablehlo.broadcast_in_dim"(%91) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %118 = "stablehlo.broadcast_in_dim"(%117) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %119 = "stablehlo.multiply"(%116, %118) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %120 = "stablehlo.broadcast_in_dim"(%93) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %121 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %122 = "stablehlo.add"(%119, %121) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %123 = "stablehlo.slice"(%arg8) <{limit_indices = array<i64: 1, 16, 32>, start_indices = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x16x32xf32>) -> tensor<1x16x32xf32>
    %124 = "stablehlo.reshape"(%123) : (tensor<1x16x32xf32>) -> tensor<16x32xf32>
    %125 = "stablehlo.dot_general"(%122, %124) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %126 = "stablehlo.slice"(%arg9) <{limit_indices = array<i64: 1, 32>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<2x32xf32>) -> tensor<1x32xf32>
    %127 = "stablehlo.reshape"(%126) : (tensor<1x32xf32>) -> tensor<32xf32>
    %128 = "stablehlo.broadcast_in_dim"(%127) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> tensor<1x32xf32>
    %129 = "stablehlo.broadcast_in_dim"(%128) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %130 = "stablehlo.add"(%125, %129) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %131 = "stablehlo.multiply"(%130, %130) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %132 = "stablehlo.multiply"(%131, %130) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %133 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %134 = "stablehlo.broadcast_in_dim"(%133) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %135 = "stablehlo.multiply"(%134, %132) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %136 = "stablehlo.add"(%130, %135) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %137 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %138 = "stablehlo.broadcast_in_dim"(%137) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %139 = "stablehlo.multiply"(%138, %136) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %140 = "stablehlo.tanh"(%139) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %141 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %142 = "stablehlo.broadcast_in_dim"(%141) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %143 = "stablehlo.add"(%142, %140) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %144 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %145 = "stablehlo.broadcast_in_dim"(%144) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %146 = "stablehlo.multiply"(%145, %143) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %147 = "stablehlo.multiply"(%130, %146) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %148 = "stablehlo.slice"(%arg10) <{limit_indices = array<i64: 1, 32, 16>, start_indices = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x32x16xf32>) -> tensor<1x32x16xf32>
    %149 = "stablehlo.reshape"(%148) : (tensor<1x32x16xf32>) -> tensor<32x16xf32>
    %150 = "stablehlo.dot_general"(%147, %149) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %151 = "stablehlo.add"(%89, %150) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %152 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 1, 16>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<2x16xf32>) -> tensor<1x16xf32>
    %153 = "stablehlo.reshape"(%152) : (tensor<1x16xf32>) -> tensor<16xf32>
    %154 = "stablehlo.broadcast_in_dim"(%153) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %155 = "stablehlo.broadcast_in_dim"(%154) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %156 = "stablehlo.add"(%151, %155) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %157 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 2, 1, 1, 16>, start_indices = array<i64: 1, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %158 = "stablehlo.reshape"(%157) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %159 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 2, 1, 2, 16>, start_indices = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %160 = "stablehlo.reshape"(%159) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %161 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %162 = "stablehlo.reduce"(%156, %161) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %303 = "stablehlo.add"(%arg22, %arg23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%303) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %163 = "stablehlo.broadcast_in_dim"(%162) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %164 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %165 = "stablehlo.broadcast_in_dim"(%164) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %166 = "stablehlo.divide"(%163, %165) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %167 = "stablehlo.broadcast_in_dim"(%166) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %168 = "stablehlo.subtract"(%156, %167) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %169 = "stablehlo.multiply"(%168, %168) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %170 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %171 = "stablehlo.reduce"(%169, %170) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg20: tensor<f32>, %arg21: tensor<f32>):
      %302 = "stablehlo.add"(%arg20, %arg21) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%302) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %172 = "stablehlo.broadcast_in_dim"(%171) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %173 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %174 = "stablehlo.broadcast_in_dim"(%173) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %175 = "stablehlo.divide"(%172, %174) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %176 = "stablehlo.broadcast_in_dim"(%166) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %177 = "stablehlo.subtract"(%156, %176) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %178 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %179 = "stablehlo.broadcast_in_dim"(%178) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %180 = "stablehlo.add"(%175, %179) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %181 = "stablehlo.rsqrt"(%180) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %182 = "stablehlo.broadcast_in_dim"(%181) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %183 = "stablehlo.multiply"(%177, %182) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %184 = "stablehlo.broadcast_in_dim"(%158) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %185 = "stablehlo.broadcast_in_dim"(%184) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %186 = "stablehlo.multiply"(%183, %185) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %187 = "stablehlo.broadcast_in_dim"(%160) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %188 = "stablehlo.broadcast_in_dim"(%187) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %189 = "stablehlo.add"(%186, %188) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %190 = "stablehlo.slice"(%arg6) <{limit_indices = array<i64: 2, 16, 48>, start_indices = array<i64: 1, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x16x48xf32>) -> tensor<1x16x48xf32>
    %191 = "stablehlo.reshape"(%190) : (tensor<1x16x48xf32>) -> tensor<16x48xf32>
    %192 = "stablehlo.dot_general"(%189, %191) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x48xf32>) -> tensor<8x48xf32>
    %193 = "stablehlo.slice"(%192) <{limit_indices = array<i64: 8, 16>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %194 = "stablehlo.slice"(%192) <{limit_indices = array<i64: 8, 32>, start_indices = array<i64: 0, 16>, strides = array<i64: 1, 1>}> : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %195 = "stablehlo.slice"(%192) <{limit_indices = array<i64: 8, 48>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<8x48xf32>) -> tensor<8x16xf32>
    %196 = "stablehlo.reshape"(%193) : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %197 = "stablehlo.transpose"(%196) <{permutation = array<i64: 1, 0, 2>}> : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %198 = "stablehlo.reshape"(%194) : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %199 = "stablehlo.transpose"(%198) <{permutation = array<i64: 1, 0, 2>}> : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %200 = "stablehlo.reshape"(%195) : (tensor<8x16xf32>) -> tensor<8x2x8xf32>
    %201 = "stablehlo.transpose"(%200) <{permutation = array<i64: 1, 0, 2>}> : (tensor<8x2x8xf32>) -> tensor<2x8x8xf32>
    %202 = "stablehlo.transpose"(%199) <{permutation = array<i64: 0, 2, 1>}> : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %203 = "stablehlo.dot_general"(%197, %202) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %204 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %205 = "stablehlo.sqrt"(%204) : (tensor<f32>) -> tensor<f32>
    %206 = "stablehlo.broadcast_in_dim"(%205) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8x8xf32>
    %207 = "stablehlo.divide"(%203, %206) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %208 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %209 = "func.call"(%15, %207, %208) <{callee = @_where}> : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
    %210 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %211 = "stablehlo.reduce"(%209, %210) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg18: tensor<f32>, %arg19: tensor<f32>):
      %301 = "stablehlo.maximum"(%arg18, %arg19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%301) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %212 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %213 = "stablehlo.broadcast_in_dim"(%212) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8xf32>
    %214 = "stablehlo.maximum"(%213, %211) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %215 = "stablehlo.broadcast_in_dim"(%214) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %216 = "stablehlo.broadcast_in_dim"(%215) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %217 = "stablehlo.subtract"(%209, %216) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %218 = "stablehlo.exponential"(%217) : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %219 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %220 = "stablehlo.reduce"(%218, %219) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
      %300 = "stablehlo.add"(%arg16, %arg17) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%300) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %221 = "stablehlo.broadcast_in_dim"(%220) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %222 = "stablehlo.broadcast_in_dim"(%221) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %223 = "stablehlo.divide"(%218, %222) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %224 = "stablehlo.dot_general"(%223, %201) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %225 = "stablehlo.transpose"(%224) <{permutation = array<i64: 1, 0, 2>}> : (tensor<2x8x8xf32>) -> tensor<8x2x8xf32>
    %226 = "stablehlo.reshape"(%225) : (tensor<8x2x8xf32>) -> tensor<8x16xf32>
    %227 = "stablehlo.slice"(%arg7) <{limit_indices = array<i64: 2, 16, 16>, start_indices = array<i64: 1, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x16x16xf32>) -> tensor<1x16x16xf32>
    %228 = "stablehlo.reshape"(%227) : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    %229 = "stablehlo.dot_general"(%226, %228) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %230 = "stablehlo.add"(%156, %229) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %231 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 2, 2, 1, 16>, start_indices = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %232 = "stablehlo.reshape"(%231) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %233 = "stablehlo.slice"(%arg5) <{limit_indices = array<i64: 2, 2, 2, 16>, start_indices = array<i64: 1, 1, 1, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x2x16xf32>) -> tensor<1x1x1x16xf32>
    %234 = "stablehlo.reshape"(%233) : (tensor<1x1x1x16xf32>) -> tensor<16xf32>
    %235 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %236 = "stablehlo.reduce"(%230, %235) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
      %299 = "stablehlo.add"(%arg14, %arg15) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%299) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %237 = "stablehlo.broadcast_in_dim"(%236) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %238 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %239 = "stablehlo.broadcast_in_dim"(%238) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %240 = "stablehlo.divide"(%237, %239) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %241 = "stablehlo.broadcast_in_dim"(%240) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %242 = "stablehlo.subtract"(%230, %241) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %243 = "stablehlo.multiply"(%242, %242) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %244 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %245 = "stablehlo.reduce"(%243, %244) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
      %298 = "stablehlo.add"(%arg12, %arg13) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%298) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %246 = "stablehlo.broadcast_in_dim"(%245) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %247 = "stablehlo.constant"() <{value = dense<1.600000e+01> : tensor<f32>}> : () -> tensor<f32>
    %248 = "stablehlo.broadcast_in_dim"(%247) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %249 = "stablehlo.divide"(%246, %248) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %250 = "stablehlo.broadcast_in_dim"(%240) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %251 = "stablehlo.subtract"(%230, %250) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %252 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %253 = "stablehlo.broadcast_in_dim"(%252) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %254 = "stablehlo.add"(%249, %253) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %255 = "stablehlo.rsqrt"(%254) : (tensor<8x1xf32>) -> tensor<8x1xf32>
    %256 = "stablehlo.broadcast_in_dim"(%255) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %257 = "stablehlo.multiply"(%251, %256) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %258 = "stablehlo.broadcast_in_dim"(%232) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %259 = "stablehlo.broadcast_in_dim"(%258) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %260 = "stablehlo.multiply"(%257, %259) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %261 = "stablehlo.broadcast_in_dim"(%234) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %262 = "stablehlo.broadcast_in_dim"(%261) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %263 = "stablehlo.add"(%260, %262) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %264 = "stablehlo.slice"(%arg8) <{limit_indices = array<i64: 2, 16, 32>, start_indices = array<i64: 1, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x16x32xf32>) -> tensor<1x16x32xf32>
    %265 = "stablehlo.reshape"(%264) : (tensor<1x16x32xf32>) -> tensor<16x32xf32>
    %266 = "stablehlo.dot_general"(%263, %265) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %267 = "stablehlo.slice"(%arg9) <{limit_indices = array<i64: 2, 32>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 1>}> : (tensor<2x32xf32>) -> tensor<1x32xf32>
    %268 = "stablehlo.reshape"(%267) : (tensor<1x32xf32>) -> tensor<32xf32>
    %269 = "stablehlo.broadcast_in_dim"(%268) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> tensor<1x32xf32>
    %270 = "stablehlo.broadcast_in_dim"(%269) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %271 = "stablehlo.add"(%266, %270) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %272 = "stablehlo.multiply"(%271, %271) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %273 = "stablehlo.multiply"(%272, %271) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %274 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %275 = "stablehlo.broadcast_in_dim"(%274) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %276 = "stablehlo.multiply"(%275, %273) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %277 = "stablehlo.add"(%271, %276) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %278 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %279 = "stablehlo.broadcast_in_dim"(%278) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %280 = "stablehlo.multiply"(%279, %277) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %281 = "stablehlo.tanh"(%280) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %282 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %283 = "stablehlo.broadcast_in_dim"(%282) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %284 = "stablehlo.add"(%283, %281) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %285 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %286 = "stablehlo.broadcast_in_dim"(%285) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %287 = "stablehlo.multiply"(%286, %284) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %288 = "stablehlo.multiply"(%271, %287) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %289 = "stablehlo.slice"(%arg10) <{limit_indices = array<i64: 2, 32, 16>, start_indices = array<i64: 1, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<2x32x16xf32>) -> tensor<1x32x16xf32>
    %290 = "stablehlo.reshape"(%289) : (tensor<1x32x16xf32>) -> tensor<32x16xf32>
    %291 = "stablehlo.dot_general"(%288, %290) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %292 = "stablehlo.add"(%230, %291) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %293 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 2, 16>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 1>}> : (tensor<2x16xf32>) -> tensor<1x16xf32>
    %294 = "stablehlo.reshape"(%293) : (tensor<1x16xf32>) -> tensor<16xf32>
    %295 = "stablehlo.broadcast_in_dim"(%294) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<1x16xf32>
    %296 = "stablehlo.broadcast_in_dim"(%295) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %297 = "stablehlo.add"(%292, %296) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    "func.return"(%297) : (tensor<8x16xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<8x8xi1>) -> tensor<8x8xi1>, res_attrs = [{}], sym_name = "tril", sym_visibility = "private"}> ({
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
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8x8xi1>, %arg1: tensor<2x8x8xf32>, %arg2: tensor<f32>):
    %0 = "stablehlo.convert"(%arg2) : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%arg0) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<8x8xi1>) -> tensor<2x8x8xi1>
    %2 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8x8xf32>
    %3 = "stablehlo.select"(%1, %arg1, %2) : (tensor<2x8x8xi1>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    "func.return"(%3) : (tensor<2x8x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
