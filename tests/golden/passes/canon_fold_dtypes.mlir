// pipeline: canonicalize
// folds in each dtype: 0-d tensors, i8 and u8 wrap around, f16 overflows to inf, bf16 rounds; zero-size tensors are not splats of 0
builtin.module ({
  builtin.func <{function_type = (tensor<i32>, tensor<0xi32>) -> (tensor<i32>, tensor<0xi32>, tensor<i32>, tensor<0xi32>, tensor<2xi8>, tensor<2xu8>, tensor<2xf16>, tensor<2xbf16>), sym_name = "f"}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<0xi32>):
    %c = test.constant <{value = dense<3> : tensor<i32>}> : tensor<i32>
    %z = test.constant <{value = dense<0> : tensor<i32>}> : tensor<i32>
    %e = test.constant <{value = dense<[]> : tensor<0xi32>}> : tensor<0xi32>
    %a = test.add %c, %c : tensor<i32>
    %b = test.add %e, %e : tensor<0xi32>
    %d = test.add %x, %z : tensor<i32>
    %g = test.add %y, %e : tensor<0xi32>
    %i8 = test.constant <{value = dense<[100, -128]> : tensor<2xi8>}> : tensor<2xi8>
    %i8s = test.add %i8, %i8 : tensor<2xi8>
    %u8 = test.constant <{value = dense<[3, 250]> : tensor<2xui8>}> : tensor<2xui8>
    %u8b = test.constant <{value = dense<[5, 10]> : tensor<2xu8>}> : tensor<2xu8>
    %u8s = test.sub %u8, %u8b : tensor<2xu8>
    %h = test.constant <{value = dense<[0.1, 65504.0]> : tensor<2xf16>}> : tensor<2xf16>
    %hs = test.add %h, %h : tensor<2xf16>
    %bf = test.constant <{value = dense<[0.1, 3.0]> : tensor<2xbf16>}> : tensor<2xbf16>
    %bfs = test.mul %bf, %bf : tensor<2xbf16>
    builtin.return %a, %b, %d, %g, %i8s, %u8s, %hs, %bfs
  })
})
// expected:
builtin.module ({
  builtin.func <{function_type = (tensor<i32>, tensor<0xi32>) -> (tensor<i32>, tensor<0xi32>, tensor<i32>, tensor<0xi32>, tensor<2xi8>, tensor<2xui8>, tensor<2xf16>, tensor<2xbf16>), sym_name = "f"}> ({
  ^bb0(%0: tensor<i32>, %1: tensor<0xi32>):
    %2 = test.constant <{value = dense<[]> : tensor<0xi32>}> : tensor<0xi32>
    %3 = test.constant <{value = dense<6> : tensor<i32>}> : tensor<i32>
    %4 = test.constant <{value = dense<[]> : tensor<0xi32>}> : tensor<0xi32>
    %5 = test.add %1, %2 : tensor<0xi32>
    %6 = test.constant <{value = dense<[-56, 0]> : tensor<2xi8>}> : tensor<2xi8>
    %7 = test.constant <{value = dense<[254, 240]> : tensor<2xui8>}> : tensor<2xui8>
    %8 = test.constant <{value = dense<"0x6632007C"> : tensor<2xf16>}> : tensor<2xf16>
    %9 = test.constant <{value = dense<[0.0100098, 9.0]> : tensor<2xbf16>}> : tensor<2xbf16>
    builtin.return %3, %4, %0, %5, %6, %7, %8, %9
  })
})
