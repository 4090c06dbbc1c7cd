"builtin.module"() <{sym_name = "jit_branches"}> ({
  "func.func"() <{function_type = (tensor<i1>, tensor<i32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2][0]"}, {jax.result_info = "result[2][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<3xf32>):
    %0 = "stablehlo.convert"(%arg0) : (tensor<i1>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %18 = "stablehlo.negate"(%arg2) : (tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%18) : (tensor<3xf32>) -> ()
    }, {
      %15 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
      %17 = "stablehlo.multiply"(%arg2, %16) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%17) : (tensor<3xf32>) -> ()
    }) : (tensor<i32>) -> tensor<3xf32>
    %2 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %3 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %4 = "stablehlo.clamp"(%2, %arg1, %3) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %12 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
      %14 = "stablehlo.multiply"(%arg2, %13) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%14) : (tensor<3xf32>) -> ()
    }, {
      %11 = "stablehlo.negate"(%arg2) : (tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%11) : (tensor<3xf32>) -> ()
    }, {
      %10 = "stablehlo.sine"(%arg2) : (tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%10) : (tensor<3xf32>) -> ()
    }) : (tensor<i32>) -> tensor<3xf32>
    %6 = "stablehlo.convert"(%arg0) : (tensor<i1>) -> tensor<i32>
    %7:2 = "stablehlo.case"(%6) ({
      %9 = "stablehlo.subtract"(%arg2, %arg2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%9, %arg2) : (tensor<3xf32>, tensor<3xf32>) -> ()
    }, {
      %8 = "stablehlo.add"(%arg2, %arg2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%8, %arg2) : (tensor<3xf32>, tensor<3xf32>) -> ()
    }) : (tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>)
    "func.return"(%1, %5, %7#0, %7#1) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
