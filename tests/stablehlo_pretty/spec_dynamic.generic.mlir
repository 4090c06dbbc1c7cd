"builtin.module"() ({
  "func.func"() <{function_type = (tensor<?xf32>, tensor<1xi64>, tensor<i32>) -> tensor<?xf32>, sym_name = "dynamic"}> ({
  ^bb0(%arg0: tensor<?xf32>, %arg1: tensor<1xi64>, %arg2: tensor<i32>):
    %0 = "stablehlo.dynamic_iota"(%arg1) <{iota_dimension = 0 : i64}> : (tensor<1xi64>) -> tensor<?xf32>
    %1 = "stablehlo.get_dimension_size"(%arg0) <{dimension = 0 : i64}> : (tensor<?xf32>) -> tensor<i32>
    %2 = "stablehlo.set_dimension_size"(%arg0, %arg2) <{dimension = 0 : i64}> : (tensor<?xf32>, tensor<i32>) -> tensor<?xf32>
    %3 = "stablehlo.dynamic_broadcast_in_dim"(%arg0, %arg1) <{broadcast_dimensions = array<i64: 0>, known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>}> : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
    %4 = "stablehlo.dynamic_reshape"(%arg0, %arg1) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
    %5 = "stablehlo.real_dynamic_slice"(%arg0, %arg1, %arg1, %arg1) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    %6 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %7 = "stablehlo.dynamic_pad"(%arg0, %6, %arg1, %arg1, %arg1) : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    %8 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<4xf32>}> : () -> tensor<4xf32>
    %9 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %10 = "stablehlo.select"(%9, %arg0, %8) : (tensor<i1>, tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    %11 = "stablehlo.add"(%0, %3) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %12 = "stablehlo.add"(%11, %8) : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    "func.return"(%12) : (tensor<?xf32>) -> ()
  }) : () -> ()
}) : () -> ()
