module @jit_constants attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<128xui8>, %arg2: tensor<128xi1>) -> (tensor<128xf32> {jax.result_info = "result[0]"}, tensor<128xui8> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<"0x000080BFF0F77BBFE0EF77BFD0E773BFBFDF6FBFAFD76BBF9FCF67BF8FC763BF7FBF5FBF6FB75BBF5FAF57BF4FA753BF3E9F4FBF2E974BBF1E8F47BF0E8743BFFE7E3FBFEE763BBFDE6E37BFCE6633BFBD5E2FBFAD562BBF9D4E27BF8D4623BF7D3E1FBF6D361BBF5D2E17BF4D2613BF3C1E0FBF2C160BBF1C0E07BF0C0603BFF8FBFDBED8EBF5BEB7DBEDBE97CBE5BE77BBDDBE57ABD5BE369BCDBE168BC5BEF67ABDBED66AB5BEB55AADBE954AA5BE753A9DBE552A95BE341A8DBE140A85BEE8F379BEA7D369BE67B359BE269349BEE67239BEA55229BE653219BE241209BEC8E3F1BD47A3D1BDC662B1BD452291BD87C361BD854221BD0683C1BC040201BC0402013C0683C13C8542213D87C3613D4522913DC662B13D47A3D13DC8E3F13D2412093E6532193EA552293EE672393E2693493E67B3593EA7D3693EE8F3793E140A853E341A8D3E552A953E753A9D3E954AA53EB55AAD3ED66AB53EF67ABD3E168BC53E369BCD3E57ABD53E77BBDD3E97CBE53EB7DBED3ED8EBF53EF8FBFD3E0C06033F1C0E073F2C160B3F3C1E0F3F4D26133F5D2E173F6D361B3F7D3E1F3F8D46233F9D4E273FAD562B3FBD5E2F3FCE66333FDE6E373FEE763B3FFE7E3F3F0E87433F1E8F473F2E974B3F3E9F4F3F4FA7533F5FAF573F6FB75B3F7FBF5F3F8FC7633F9FCF673FAFD76B3FBFDF6F3FD0E7733FE0EF773FF0F77B3F0000803F"> : tensor<128xf32>
    %0 = stablehlo.multiply %arg0, %cst : tensor<128xf32>
    %1 = stablehlo.convert %arg1 : (tensor<128xui8>) -> tensor<128xf32>
    %cst_0 = stablehlo.constant dense<2.550000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %3 = stablehlo.divide %1, %2 : tensor<128xf32>
    %4 = stablehlo.add %0, %3 : tensor<128xf32>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %5 = call @_where(%arg2, %4, %cst_1) : (tensor<128xi1>, tensor<128xf32>, tensor<f32>) -> tensor<128xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %7 = stablehlo.compare GT, %arg0, %6, FLOAT : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xi1>
    %8 = stablehlo.convert %7 : (tensor<128xi1>) -> tensor<128xui8>
    return %5, %8 : tensor<128xf32>, tensor<128xui8>
  }
  func.func private @_where(%arg0: tensor<128xi1>, %arg1: tensor<128xf32>, %arg2: tensor<f32>) -> tensor<128xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<128xi1>, tensor<128xf32>
    return %2 : tensor<128xf32>
  }
}
