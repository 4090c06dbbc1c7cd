"builtin.module"() <{sym_name = "spec_regions"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{replicated}"}], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [{jax.result_info = "r"}], sym_name = "decl", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>), no_inline, sym_name = "helper", sym_visibility = "private"}> ({
  ^bb0(%arg13: tensor<f32>, %arg14: tensor<f32>):
    "func.return"(%arg14, %arg13) : (tensor<f32>, tensor<f32>) -> ()
  }) {mhlo.kind = "helper"} : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xi32>, tensor<i1>) -> (tensor<4xf32>, tensor<f32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<i1>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %2:2 = "stablehlo.reduce"(%arg0, %arg1, %0, %1) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg9: tensor<f32>, %arg10: tensor<i32>, %arg11: tensor<f32>, %arg12: tensor<i32>):
      %15 = "stablehlo.add"(%arg9, %arg11) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %16 = "stablehlo.multiply"(%arg10, %arg12) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%15, %16) : (tensor<f32>, tensor<i32>) -> ()
    }) {mhlo.note = "pairs"} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    %3 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %14 = "stablehlo.maximum"(%arg7, %arg8) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%14) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %4:2 = "stablehlo.while"(%1, %arg0) ({
    ^bb0(%arg5: tensor<i32>, %arg6: tensor<4xf32>):
      %12 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %13 = "stablehlo.compare"(%arg5, %12) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%13) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<4xf32>):
      %10 = "stablehlo.add"(%arg3, %1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %11 = "stablehlo.sine"(%arg4) : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%10, %11) : (tensor<i32>, tensor<4xf32>) -> ()
    }) {mhlo.loop = "outer"} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    "stablehlo.while"() ({
      %9 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
      "stablehlo.return"(%9) : (tensor<i1>) -> ()
    }, {
      "stablehlo.return"() : () -> ()
    }) : () -> ()
    %5 = "stablehlo.if"(%arg2) ({
      "stablehlo.return"(%0) : (tensor<f32>) -> ()
    }, {
      %8:2 = "func.call"(%0, %3) <{callee = @helper}> : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      "stablehlo.return"(%8#1) : (tensor<f32>) -> ()
    }) : (tensor<i1>) -> tensor<f32>
    %6 = "func.call"(%5) <{callee = @decl}> : (tensor<f32>) -> tensor<f32>
    %7 = "stablehlo.add"(%6, %2#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%4#1, %7) : (tensor<4xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32} : () -> ()
