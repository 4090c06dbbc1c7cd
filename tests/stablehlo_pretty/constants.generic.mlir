"builtin.module"() <{sym_name = "jit_constants"}> ({
  "func.func"() <{function_type = (tensor<128xf32>, tensor<128xui8>, tensor<128xi1>) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xui8>, tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<2xbf16>, tensor<2xf16>, tensor<1xi32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg6: tensor<128xf32>, %arg7: tensor<128xui8>, %arg8: tensor<128xi1>):
    %6 = "stablehlo.constant"() <{value = dense<"0x000080BFF0F77BBFE0EF77BFD0E773BFBFDF6FBFAFD76BBF9FCF67BF8FC763BF7FBF5FBF6FB75BBF5FAF57BF4FA753BF3E9F4FBF2E974BBF1E8F47BF0E8743BFFE7E3FBFEE763BBFDE6E37BFCE6633BFBD5E2FBFAD562BBF9D4E27BF8D4623BF7D3E1FBF6D361BBF5D2E17BF4D2613BF3C1E0FBF2C160BBF1C0E07BF0C0603BFF8FBFDBED8EBF5BEB7DBEDBE97CBE5BE77BBDDBE57ABD5BE369BCDBE168BC5BEF67ABDBED66AB5BEB55AADBE954AA5BE753A9DBE552A95BE341A8DBE140A85BEE8F379BEA7D369BE67B359BE269349BEE67239BEA55229BE653219BE241209BEC8E3F1BD47A3D1BDC662B1BD452291BD87C361BD854221BD0683C1BC040201BC0402013C0683C13C8542213D87C3613D4522913DC662B13D47A3D13DC8E3F13D2412093E6532193EA552293EE672393E2693493E67B3593EA7D3693EE8F3793E140A853E341A8D3E552A953E753A9D3E954AA53EB55AAD3ED66AB53EF67ABD3E168BC53E369BCD3E57ABD53E77BBDD3E97CBE53EB7DBED3ED8EBF53EF8FBFD3E0C06033F1C0E073F2C160B3F3C1E0F3F4D26133F5D2E173F6D361B3F7D3E1F3F8D46233F9D4E273FAD562B3FBD5E2F3FCE66333FDE6E373FEE763B3FFE7E3F3F0E87433F1E8F473F2E974B3F3E9F4F3F4FA7533F5FAF573F6FB75B3F7FBF5F3F8FC7633F9FCF673FAFD76B3FBFDF6F3FD0E7733FE0EF773FF0F77B3F0000803F"> : tensor<128xf32>}> : () -> tensor<128xf32>
    %7 = "stablehlo.constant"() <{value = dense<[0x7FC00000, 1.500000e+00, 0xFF800000]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %8 = "stablehlo.constant"() <{value = dense<[true, false, true]> : tensor<3xi1>}> : () -> tensor<3xi1>
    %9 = "stablehlo.multiply"(%arg6, %6) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %10 = "stablehlo.convert"(%arg7) : (tensor<128xui8>) -> tensor<128xf32>
    %11 = "stablehlo.constant"() <{value = dense<2.550000e+02> : tensor<f32>}> : () -> tensor<f32>
    %12 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<128xf32>
    %13 = "stablehlo.divide"(%10, %12) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %14 = "stablehlo.add"(%9, %13) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %15 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %16 = "func.call"(%arg8, %14, %15) <{callee = @_where}> : (tensor<128xi1>, tensor<128xf32>, tensor<f32>) -> tensor<128xf32>
    %17 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<128xf32>
    %19 = "stablehlo.add"(%arg6, %18) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %20 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %21 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<128xf32>
    %22 = "stablehlo.compare"(%arg6, %21) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xi1>
    %23 = "stablehlo.convert"(%22) : (tensor<128xi1>) -> tensor<128xui8>
    %24 = "stablehlo.slice"(%arg6) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<128xf32>) -> tensor<3xf32>
    %25 = "stablehlo.add"(%24, %7) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %26 = "stablehlo.slice"(%arg6) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<128xf32>) -> tensor<3xf32>
    %27 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %28 = "func.call"(%8, %26, %27) <{callee = @_where_0}> : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %29 = "stablehlo.slice"(%arg6) <{limit_indices = array<i64: 12>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<128xf32>) -> tensor<12xf32>
    %30 = "stablehlo.reshape"(%29) : (tensor<12xf32>) -> tensor<3x4xf32>
    %31 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<12xf32>
    %32 = "stablehlo.reshape"(%31) : (tensor<12xf32>) -> tensor<3x4xf32>
    %33 = "stablehlo.add"(%30, %32) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %34 = "stablehlo.slice"(%arg6) <{limit_indices = array<i64: 2>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<128xf32>) -> tensor<2xf32>
    %35 = "stablehlo.convert"(%34) : (tensor<2xf32>) -> tensor<2xbf16>
    %36 = "stablehlo.constant"() <{value = dense<1.000980e-01> : tensor<bf16>}> : () -> tensor<bf16>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2xbf16>
    %38 = "stablehlo.multiply"(%35, %37) : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
    %39 = "stablehlo.slice"(%arg6) <{limit_indices = array<i64: 2>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<128xf32>) -> tensor<2xf32>
    %40 = "stablehlo.convert"(%39) : (tensor<2xf32>) -> tensor<2xf16>
    %41 = "stablehlo.constant"() <{value = dense<3.000490e-01> : tensor<f16>}> : () -> tensor<f16>
    %42 = "stablehlo.broadcast_in_dim"(%41) <{broadcast_dimensions = array<i64>}> : (tensor<f16>) -> tensor<2xf16>
    %43 = "stablehlo.add"(%40, %42) : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
    %44 = "stablehlo.slice"(%arg7) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<128xui8>) -> tensor<1xui8>
    %45 = "stablehlo.convert"(%44) : (tensor<1xui8>) -> tensor<1xi32>
    %46 = "stablehlo.constant"() <{value = dense<7> : tensor<i32>}> : () -> tensor<i32>
    %47 = "stablehlo.broadcast_in_dim"(%46) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %48 = "stablehlo.add"(%47, %45) : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
    "func.return"(%16, %19, %23, %25, %28, %33, %38, %43, %48) : (tensor<128xf32>, tensor<128xf32>, tensor<128xui8>, tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<2xbf16>, tensor<2xf16>, tensor<1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<128xi1>, tensor<128xf32>, tensor<f32>) -> tensor<128xf32>, sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<128xi1>, %arg4: tensor<128xf32>, %arg5: tensor<f32>):
    %3 = "stablehlo.convert"(%arg5) : (tensor<f32>) -> tensor<f32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<128xf32>
    %5 = "stablehlo.select"(%arg3, %arg4, %4) : (tensor<128xi1>, tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    "func.return"(%5) : (tensor<128xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>, sym_name = "_where_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3xi1>, %arg1: tensor<3xf32>, %arg2: tensor<f32>):
    %0 = "stablehlo.convert"(%arg2) : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %2 = "stablehlo.select"(%arg0, %arg1, %1) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%2) : (tensor<3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
