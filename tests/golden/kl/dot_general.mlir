builtin.module ({
  kl.kernel <{sym_name = "main$k0$dot_general"}> ({
  ^bb0(%0: !kl.ptr<f32>, %1: !kl.ptr<f32>, %2: !kl.ptr<f32>, %3: tensor<i64>, %4: tensor<i64>, %5: tensor<i64>, %6: tensor<i64>):
    %7 = kl.constant <{value = dense<54> : tensor<i64>}> : tensor<i64>
    %8 = kl.constant <{value = dense<6> : tensor<i64>}> : tensor<i64>
    %9 = kl.constant <{value = dense<9> : tensor<i64>}> : tensor<i64>
    %10 = kl.constant <{value = dense<0> : tensor<i64>}> : tensor<i64>
    %11 = kl.constant <{value = dense<13> : tensor<i64>}> : tensor<i64>
    %12 = kl.constant <{value = dense<1> : tensor<i64>}> : tensor<i64>
    %13 = kl.constant <{value = dense<0.0> : tensor<f64>}> : tensor<f64>
    %14 = kl.special <{register = "ctaid.x"}> : tensor<i32>
    %15 = kl.convert %14 : tensor<i64>
    %16 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %17 = kl.convert %16 : tensor<i64>
    %18 = kl.special <{register = "tid.x"}> : tensor<i32>
    %19 = kl.convert %18 : tensor<i64>
    %20 = kl.mul %15, %17 : tensor<i64>
    %21 = kl.add %20, %19 : tensor<i64>
    %22 = kl.special <{register = "nctaid.x"}> : tensor<i32>
    %23 = kl.convert %22 : tensor<i64>
    %24 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %25 = kl.convert %24 : tensor<i64>
    %26 = kl.mul %23, %25 : tensor<i64>
    kl.for %21, %7, %26 ({
    ^bb0(%27: tensor<i64>):
      %28 = kl.rem %27, %8 : tensor<i64>
      %29 = kl.div %27, %8 : tensor<i64>
      %30 = kl.rem %29, %9 : tensor<i64>
      %31 = kl.div %29, %9 : tensor<i64>
      %32 = kl.for %10, %11, %12, %13 : tensor<f64> ({
      ^bb0(%33: tensor<i64>, %34: tensor<f64>):
        %35 = kl.rem %33, %11 : tensor<i64>
        %36 = kl.div %33, %11 : tensor<i64>
        %37 = kl.mul %30, %11 : tensor<i64>
        %38 = kl.add %37, %35 : tensor<i64>
        %39 = kl.load %0, %38 : tensor<f32>
        %40 = kl.convert %39 : tensor<f64>
        %41 = kl.mul %35, %8 : tensor<i64>
        %42 = kl.add %28, %41 : tensor<i64>
        %43 = kl.load %1, %42 : tensor<f32>
        %44 = kl.convert %43 : tensor<f64>
        %45 = kl.fma %40, %44, %34 : tensor<f64>
        kl.yield %45
      })
      %46 = kl.convert %32 : tensor<f32>
      kl.store %46, %2, %27
      kl.yield
    })
    kl.return
  })
})
