"builtin.module"() <{sym_name = "jit_complex_fft"}> ({
  "func.func"() <{function_type = (tensor<8xcomplex<f32>>) -> (tensor<8xcomplex<f32>>, tensor<5xcomplex<f32>>, tensor<8xf32>, tensor<8xf32>, tensor<8xcomplex<f32>>, tensor<8xf32>, tensor<8xcomplex<f32>>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg2: tensor<8xcomplex<f32>>):
    %2 = "func.call"(%arg2) <{callee = @fft}> : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    %3 = "stablehlo.real"(%arg2) : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %4 = "func.call"(%3) <{callee = @fft_0}> : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    %5 = "stablehlo.real"(%arg2) : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %6 = "stablehlo.imag"(%arg2) : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %7 = "stablehlo.real"(%arg2) : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %8 = "stablehlo.imag"(%arg2) : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %9 = "stablehlo.complex"(%7, %8) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xcomplex<f32>>
    %10 = "stablehlo.abs"(%arg2) : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %11 = "stablehlo.multiply"(%arg2, %arg2) : (tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    "func.return"(%2, %4, %5, %6, %9, %10, %11) : (tensor<8xcomplex<f32>>, tensor<5xcomplex<f32>>, tensor<8xf32>, tensor<8xf32>, tensor<8xcomplex<f32>>, tensor<8xf32>, tensor<8xcomplex<f32>>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>, sym_name = "fft", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<8xcomplex<f32>>):
    %1 = "stablehlo.fft"(%arg1) <{fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type FFT>}> : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    "func.return"(%1) : (tensor<8xcomplex<f32>>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<5xcomplex<f32>>, sym_name = "fft_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.fft"(%arg0) <{fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type RFFT>}> : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    "func.return"(%0) : (tensor<5xcomplex<f32>>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
