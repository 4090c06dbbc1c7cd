module @jit_loops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2][0]"}, tensor<4xf32> {jax.result_info = "result[2][1]"}, tensor<2x2xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_6 = %arg0) : tensor<i32>, tensor<4xf32>
    cond {
      %c_7 = stablehlo.constant dense<5> : tensor<i32>
      %7 = stablehlo.compare LT, %iterArg, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %iterArg, %c_7 : tensor<i32>
      %cst_8 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %9 = stablehlo.multiply %iterArg_6, %8 : tensor<4xf32>
      %10 = stablehlo.sine %iterArg_6 : tensor<4xf32>
      %11 = stablehlo.add %9, %10 : tensor<4xf32>
      stablehlo.return %7, %11 : tensor<i32>, tensor<4xf32>
    }
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1:3 = stablehlo.while(%iterArg = %c_1, %iterArg_6 = %c_0, %iterArg_7 = %arg0) : tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %c_8 = stablehlo.constant dense<3> : tensor<i32>
      %7 = stablehlo.compare LT, %iterArg, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:2 = func.call @closed_call(%iterArg_6, %iterArg_7) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
      %c_8 = stablehlo.constant dense<1> : tensor<i32>
      %8 = stablehlo.add %iterArg, %c_8 : tensor<i32>
      stablehlo.return %8, %7#0, %7#1 : tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %3:4 = stablehlo.while(%iterArg = %arg0, %iterArg_6 = %c_3, %iterArg_7 = %cst, %iterArg_8 = %2) : tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<4xf32>
    cond {
      %c_9 = stablehlo.constant dense<4> : tensor<i32>
      %7 = stablehlo.compare LT, %iterArg_6, %c_9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_6) : (tensor<4xf32>, tensor<i32>) -> tensor<f32>
      %8:2 = func.call @closed_call_0(%iterArg_7, %7) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      %9 = func.call @dynamic_update_index_in_dim(%iterArg_8, %8#1, %iterArg_6) : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
      %c_9 = stablehlo.constant dense<1> : tensor<i32>
      %10 = stablehlo.add %iterArg_6, %c_9 : tensor<i32>
      stablehlo.return %iterArg, %10, %8#0, %9 : tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<4xf32>
    }
    %4 = stablehlo.reshape %arg0 : (tensor<4xf32>) -> tensor<2x2xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %6:3 = stablehlo.while(%iterArg = %4, %iterArg_6 = %c_5, %iterArg_7 = %5) : tensor<2x2xf32>, tensor<i32>, tensor<2x2xf32>
    cond {
      %c_8 = stablehlo.constant dense<2> : tensor<i32>
      %7 = stablehlo.compare LT, %iterArg_6, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7 = func.call @dynamic_index_in_dim_1(%iterArg, %iterArg_6) : (tensor<2x2xf32>, tensor<i32>) -> tensor<2xf32>
      %8 = func.call @closed_call_2(%7) : (tensor<2xf32>) -> tensor<2xf32>
      %9 = func.call @dynamic_update_index_in_dim_3(%iterArg_7, %8, %iterArg_6) : (tensor<2x2xf32>, tensor<2xf32>, tensor<i32>) -> tensor<2x2xf32>
      %c_8 = stablehlo.constant dense<1> : tensor<i32>
      %10 = stablehlo.add %iterArg_6, %c_8 : tensor<i32>
      stablehlo.return %iterArg, %10, %9 : tensor<2x2xf32>, tensor<i32>, tensor<2x2xf32>
    }
    return %0#1, %1#2, %3#2, %3#3, %6#2 : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<2x2xf32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %1 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.add %arg1, %2 : tensor<4xf32>
    return %0, %3 : tensor<i32>, tensor<4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @closed_call_0(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %0 = stablehlo.convert %arg0 : tensor<f32>
    %1 = stablehlo.add %0, %arg1 : tensor<f32>
    %2 = stablehlo.convert %arg0 : tensor<f32>
    %3 = stablehlo.multiply %2, %arg1 : tensor<f32>
    return %1, %3 : tensor<f32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @dynamic_index_in_dim_1(%arg0: tensor<2x2xf32>, %arg1: tensor<i32>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 2] : (tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func private @closed_call_2(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.sine %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func private @dynamic_update_index_in_dim_3(%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<i32>) -> tensor<2x2xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    return %1 : tensor<2x2xf32>
  }
}
