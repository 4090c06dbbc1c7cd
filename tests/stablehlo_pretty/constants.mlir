module @jit_constants attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<128xui8>, %arg2: tensor<128xi1>) -> (tensor<128xf32> {jax.result_info = "result[0]"}, tensor<128xf32> {jax.result_info = "result[1]"}, tensor<128xui8> {jax.result_info = "result[2]"}, tensor<3xf32> {jax.result_info = "result[3]"}, tensor<3xf32> {jax.result_info = "result[4]"}, tensor<3x4xf32> {jax.result_info = "result[5]"}, tensor<2xbf16> {jax.result_info = "result[6]"}, tensor<2xf16> {jax.result_info = "result[7]"}, tensor<1xi32> {jax.result_info = "result[8]"}) {
    %cst = stablehlo.constant dense<"0x000080BFF0F77BBFE0EF77BFD0E773BFBFDF6FBFAFD76BBF9FCF67BF8FC763BF7FBF5FBF6FB75BBF5FAF57BF4FA753BF3E9F4FBF2E974BBF1E8F47BF0E8743BFFE7E3FBFEE763BBFDE6E37BFCE6633BFBD5E2FBFAD562BBF9D4E27BF8D4623BF7D3E1FBF6D361BBF5D2E17BF4D2613BF3C1E0FBF2C160BBF1C0E07BF0C0603BFF8FBFDBED8EBF5BEB7DBEDBE97CBE5BE77BBDDBE57ABD5BE369BCDBE168BC5BEF67ABDBED66AB5BEB55AADBE954AA5BE753A9DBE552A95BE341A8DBE140A85BEE8F379BEA7D369BE67B359BE269349BEE67239BEA55229BE653219BE241209BEC8E3F1BD47A3D1BDC662B1BD452291BD87C361BD854221BD0683C1BC040201BC0402013C0683C13C8542213D87C3613D4522913DC662B13D47A3D13DC8E3F13D2412093E6532193EA552293EE672393E2693493E67B3593EA7D3693EE8F3793E140A853E341A8D3E552A953E753A9D3E954AA53EB55AAD3ED66AB53EF67ABD3E168BC53E369BCD3E57ABD53E77BBDD3E97CBE53EB7DBED3ED8EBF53EF8FBFD3E0C06033F1C0E073F2C160B3F3C1E0F3F4D26133F5D2E173F6D361B3F7D3E1F3F8D46233F9D4E273FAD562B3FBD5E2F3FCE66333FDE6E373FEE763B3FFE7E3F3F0E87433F1E8F473F2E974B3F3E9F4F3F4FA7533F5FAF573F6FB75B3F7FBF5F3F8FC7633F9FCF673FAFD76B3FBFDF6F3FD0E7733FE0EF773FF0F77B3F0000803F"> : tensor<128xf32>
    %cst_0 = stablehlo.constant dense<[0x7FC00000, 1.500000e+00, 0xFF800000]> : tensor<3xf32>
    %c = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
    %0 = stablehlo.multiply %arg0, %cst : tensor<128xf32>
    %1 = stablehlo.convert %arg1 : (tensor<128xui8>) -> tensor<128xf32>
    %cst_1 = stablehlo.constant dense<2.550000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %3 = stablehlo.divide %1, %2 : tensor<128xf32>
    %4 = stablehlo.add %0, %3 : tensor<128xf32>
    %cst_2 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %5 = call @_where(%arg2, %4, %cst_2) : (tensor<128xi1>, tensor<128xf32>, tensor<f32>) -> tensor<128xf32>
    %cst_3 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %7 = stablehlo.add %arg0, %6 : tensor<128xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %9 = stablehlo.compare GT, %arg0, %8, FLOAT : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xi1>
    %10 = stablehlo.convert %9 : (tensor<128xi1>) -> tensor<128xui8>
    %11 = stablehlo.slice %arg0 [0:3] : (tensor<128xf32>) -> tensor<3xf32>
    %12 = stablehlo.add %11, %cst_0 : tensor<3xf32>
    %13 = stablehlo.slice %arg0 [0:3] : (tensor<128xf32>) -> tensor<3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = call @_where_0(%c, %13, %cst_5) : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %15 = stablehlo.slice %arg0 [0:12] : (tensor<128xf32>) -> tensor<12xf32>
    %16 = stablehlo.reshape %15 : (tensor<12xf32>) -> tensor<3x4xf32>
    %17 = stablehlo.iota dim = 0 : tensor<12xf32>
    %18 = stablehlo.reshape %17 : (tensor<12xf32>) -> tensor<3x4xf32>
    %19 = stablehlo.add %16, %18 : tensor<3x4xf32>
    %20 = stablehlo.slice %arg0 [0:2] : (tensor<128xf32>) -> tensor<2xf32>
    %21 = stablehlo.convert %20 : (tensor<2xf32>) -> tensor<2xbf16>
    %cst_6 = stablehlo.constant dense<1.000980e-01> : tensor<bf16>
    %22 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<bf16>) -> tensor<2xbf16>
    %23 = stablehlo.multiply %21, %22 : tensor<2xbf16>
    %24 = stablehlo.slice %arg0 [0:2] : (tensor<128xf32>) -> tensor<2xf32>
    %25 = stablehlo.convert %24 : (tensor<2xf32>) -> tensor<2xf16>
    %cst_7 = stablehlo.constant dense<3.000490e-01> : tensor<f16>
    %26 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f16>) -> tensor<2xf16>
    %27 = stablehlo.add %25, %26 : tensor<2xf16>
    %28 = stablehlo.slice %arg1 [0:1] : (tensor<128xui8>) -> tensor<1xui8>
    %29 = stablehlo.convert %28 : (tensor<1xui8>) -> tensor<1xi32>
    %c_8 = stablehlo.constant dense<7> : tensor<i32>
    %30 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %31 = stablehlo.add %30, %29 : tensor<1xi32>
    return %5, %7, %10, %12, %14, %19, %23, %27, %31 : tensor<128xf32>, tensor<128xf32>, tensor<128xui8>, tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<2xbf16>, tensor<2xf16>, tensor<1xi32>
  }
  func.func private @_where(%arg0: tensor<128xi1>, %arg1: tensor<128xf32>, %arg2: tensor<f32>) -> tensor<128xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<128xi1>, tensor<128xf32>
    return %2 : tensor<128xf32>
  }
  func.func private @_where_0(%arg0: tensor<3xi1>, %arg1: tensor<3xf32>, %arg2: tensor<f32>) -> tensor<3xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<3xi1>, tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}
