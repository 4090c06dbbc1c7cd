"builtin.module"() <{sym_name = "jit_loops"}> ({
  "func.func"() <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<2x2xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2][0]"}, {jax.result_info = "result[2][1]"}, {jax.result_info = "result[3]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg15: tensor<4xf32>):
    %20 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %21:2 = "stablehlo.while"(%20, %arg15) ({
    ^bb0(%arg38: tensor<i32>, %arg39: tensor<4xf32>):
      %61 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
      %62 = "stablehlo.compare"(%arg38, %61) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%62) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg36: tensor<i32>, %arg37: tensor<4xf32>):
      %54 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %55 = "stablehlo.add"(%arg36, %54) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %56 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
      %57 = "stablehlo.broadcast_in_dim"(%56) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
      %58 = "stablehlo.multiply"(%arg37, %57) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %59 = "stablehlo.sine"(%arg37) : (tensor<4xf32>) -> tensor<4xf32>
      %60 = "stablehlo.add"(%58, %59) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%55, %60) : (tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    %22 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %23 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %24:3 = "stablehlo.while"(%23, %22, %arg15) ({
    ^bb0(%arg33: tensor<i32>, %arg34: tensor<i32>, %arg35: tensor<4xf32>):
      %52 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %53 = "stablehlo.compare"(%arg33, %52) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%53) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg30: tensor<i32>, %arg31: tensor<i32>, %arg32: tensor<4xf32>):
      %49:2 = "func.call"(%arg31, %arg32) <{callee = @closed_call}> : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
      %50 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %51 = "stablehlo.add"(%arg30, %50) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%51, %49#0, %49#1) : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<i32>, tensor<4xf32>)
    %25 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %26 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %27 = "stablehlo.broadcast_in_dim"(%26) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %28 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %29:4 = "stablehlo.while"(%arg15, %28, %25, %27) ({
    ^bb0(%arg26: tensor<4xf32>, %arg27: tensor<i32>, %arg28: tensor<f32>, %arg29: tensor<4xf32>):
      %47 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %48 = "stablehlo.compare"(%arg27, %47) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%48) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg22: tensor<4xf32>, %arg23: tensor<i32>, %arg24: tensor<f32>, %arg25: tensor<4xf32>):
      %42 = "func.call"(%arg22, %arg23) <{callee = @dynamic_index_in_dim}> : (tensor<4xf32>, tensor<i32>) -> tensor<f32>
      %43:2 = "func.call"(%arg24, %42) <{callee = @closed_call_0}> : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      %44 = "func.call"(%arg25, %43#1, %arg23) <{callee = @dynamic_update_index_in_dim}> : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
      %45 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %46 = "stablehlo.add"(%arg23, %45) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg22, %46, %43#0, %44) : (tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> ()
    }) : (tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<4xf32>)
    %30 = "stablehlo.reshape"(%arg15) : (tensor<4xf32>) -> tensor<2x2xf32>
    %31 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %32 = "stablehlo.broadcast_in_dim"(%31) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2xf32>
    %33 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %34:3 = "stablehlo.while"(%30, %33, %32) ({
    ^bb0(%arg19: tensor<2x2xf32>, %arg20: tensor<i32>, %arg21: tensor<2x2xf32>):
      %40 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %41 = "stablehlo.compare"(%arg20, %40) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%41) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg16: tensor<2x2xf32>, %arg17: tensor<i32>, %arg18: tensor<2x2xf32>):
      %35 = "func.call"(%arg16, %arg17) <{callee = @dynamic_index_in_dim_1}> : (tensor<2x2xf32>, tensor<i32>) -> tensor<2xf32>
      %36 = "func.call"(%35) <{callee = @closed_call_2}> : (tensor<2xf32>) -> tensor<2xf32>
      %37 = "func.call"(%arg18, %36, %arg17) <{callee = @dynamic_update_index_in_dim_3}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<i32>) -> tensor<2x2xf32>
      %38 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %39 = "stablehlo.add"(%arg17, %38) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg16, %39, %37) : (tensor<2x2xf32>, tensor<i32>, tensor<2x2xf32>) -> ()
    }) : (tensor<2x2xf32>, tensor<i32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<i32>, tensor<2x2xf32>)
    "func.return"(%21#1, %24#2, %29#2, %29#3, %34#2) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<2x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>), sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg13: tensor<i32>, %arg14: tensor<4xf32>):
    %15 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.add"(%arg13, %15) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %17 = "stablehlo.convert"(%arg13) : (tensor<i32>) -> tensor<f32>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %19 = "stablehlo.add"(%arg14, %18) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%16, %19) : (tensor<i32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<i32>) -> tensor<f32>, sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg11: tensor<4xf32>, %arg12: tensor<i32>):
    %13 = "stablehlo.dynamic_slice"(%arg11, %arg12) <{slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
    %14 = "stablehlo.reshape"(%13) : (tensor<1xf32>) -> tensor<f32>
    "func.return"(%14) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>), sym_name = "closed_call_0", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<f32>, %arg10: tensor<f32>):
    %9 = "stablehlo.convert"(%arg9) : (tensor<f32>) -> tensor<f32>
    %10 = "stablehlo.add"(%9, %arg10) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %11 = "stablehlo.convert"(%arg9) : (tensor<f32>) -> tensor<f32>
    %12 = "stablehlo.multiply"(%11, %arg10) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%10, %12) : (tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xf32>, sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<4xf32>, %arg7: tensor<f32>, %arg8: tensor<i32>):
    %7 = "stablehlo.broadcast_in_dim"(%arg7) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1xf32>
    %8 = "stablehlo.dynamic_update_slice"(%arg6, %7, %arg8) : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
    "func.return"(%8) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2x2xf32>, tensor<i32>) -> tensor<2xf32>, sym_name = "dynamic_index_in_dim_1", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<2x2xf32>, %arg5: tensor<i32>):
    %4 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.dynamic_slice"(%arg4, %arg5, %4) <{slice_sizes = array<i64: 1, 2>}> : (tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %6 = "stablehlo.reshape"(%5) : (tensor<1x2xf32>) -> tensor<2xf32>
    "func.return"(%6) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "closed_call_2", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<2xf32>):
    %3 = "stablehlo.sine"(%arg3) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%3) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2x2xf32>, tensor<2xf32>, tensor<i32>) -> tensor<2x2xf32>, sym_name = "dynamic_update_index_in_dim_3", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<i32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<2xf32>) -> tensor<1x2xf32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.dynamic_update_slice"(%arg0, %0, %arg2, %1) : (tensor<2x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    "func.return"(%2) : (tensor<2x2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
