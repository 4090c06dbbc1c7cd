module @spec_regions attributes {mhlo.num_partitions = 1 : i32} {
  func.func private @decl(tensor<f32> {mhlo.sharding = "{replicated}"}) -> (tensor<f32> {jax.result_info = "r"})
  func.func private @helper(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {mhlo.kind = "helper", no_inline} {
    return %arg1, %arg0 : tensor<f32>, tensor<f32>
  }
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<i1>) -> (tensor<4xf32>, tensor<f32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [0] {mhlo.note = "pairs"} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
     reducer(%arg3: tensor<f32>, %arg5: tensor<f32>) (%arg4: tensor<i32>, %arg6: tensor<i32>)  {
      %6 = stablehlo.add %arg3, %arg5 : tensor<f32>
      %7 = stablehlo.multiply %arg4, %arg6 : tensor<i32>
      stablehlo.return %6, %7 : tensor<f32>, tensor<i32>
    }
    %1 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %2:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4xf32> attributes {mhlo.loop = "outer"}
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %6 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %6 = stablehlo.add %iterArg, %c : tensor<i32>
      %7 = stablehlo.sine %iterArg_0 : tensor<4xf32>
      stablehlo.return %6, %7 : tensor<i32>, tensor<4xf32>
    }
    stablehlo.while()
    cond {
      %c_0 = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %c_0 : tensor<i1>
    } do {
      stablehlo.return 
    }
    %3 = "stablehlo.if"(%arg2) ({
      stablehlo.return %cst : tensor<f32>
    }, {
      %6:2 = func.call @helper(%cst, %1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      stablehlo.return %6#1 : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    %4 = call @decl(%3) : (tensor<f32>) -> tensor<f32>
    %5 = stablehlo.add %4, %0#0 : tensor<f32>
    return %2#1, %5 : tensor<4xf32>, tensor<f32>
  }
}
