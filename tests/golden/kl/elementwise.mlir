builtin.module ({
  kl.kernel <{sym_name = "main$k0$elementwise"}> ({
  ^bb0(%0: !kl.ptr<f32>, %1: !kl.ptr<f32>, %2: !kl.ptr<f32>, %3: tensor<i64>):
    %4 = kl.constant <{value = dense<22> : tensor<i64>}> : tensor<i64>
    %5 = kl.constant <{value = dense<4> : tensor<i64>}> : tensor<i64>
    %6 = kl.constant <{value = dense<88> : tensor<i64>}> : tensor<i64>
    %7 = kl.constant <{value = dense<91> : tensor<i64>}> : tensor<i64>
    %8 = kl.special <{register = "ctaid.x"}> : tensor<i32>
    %9 = kl.convert %8 : tensor<i64>
    %10 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %11 = kl.convert %10 : tensor<i64>
    %12 = kl.special <{register = "tid.x"}> : tensor<i32>
    %13 = kl.convert %12 : tensor<i64>
    %14 = kl.mul %9, %11 : tensor<i64>
    %15 = kl.add %14, %13 : tensor<i64>
    %16 = kl.special <{register = "nctaid.x"}> : tensor<i32>
    %17 = kl.convert %16 : tensor<i64>
    %18 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %19 = kl.convert %18 : tensor<i64>
    %20 = kl.mul %17, %19 : tensor<i64>
    kl.for %15, %4, %20 ({
    ^bb0(%21: tensor<i64>):
      %22 = kl.mul %21, %5 : tensor<i64>
      %23, %24, %25, %26 = kl.vload %0, %22 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
      %27, %28, %29, %30 = kl.vload %1, %22 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
      %31 = kl.mul %23, %27 : tensor<f32>
      %32 = kl.add %31, %23 : tensor<f32>
      %33 = kl.sub %27, %23 : tensor<f32>
      %34 = kl.max %32, %33 : tensor<f32>
      %35 = kl.mul %24, %28 : tensor<f32>
      %36 = kl.add %35, %24 : tensor<f32>
      %37 = kl.sub %28, %24 : tensor<f32>
      %38 = kl.max %36, %37 : tensor<f32>
      %39 = kl.mul %25, %29 : tensor<f32>
      %40 = kl.add %39, %25 : tensor<f32>
      %41 = kl.sub %29, %25 : tensor<f32>
      %42 = kl.max %40, %41 : tensor<f32>
      %43 = kl.mul %26, %30 : tensor<f32>
      %44 = kl.add %43, %26 : tensor<f32>
      %45 = kl.sub %30, %26 : tensor<f32>
      %46 = kl.max %44, %45 : tensor<f32>
      kl.vstore %34, %38, %42, %46, %2, %22
      kl.yield
    })
    %47 = kl.add %15, %6 : tensor<i64>
    kl.for %47, %7, %20 ({
    ^bb0(%48: tensor<i64>):
      %49 = kl.load %0, %48 : tensor<f32>
      %50 = kl.load %1, %48 : tensor<f32>
      %51 = kl.mul %49, %50 : tensor<f32>
      %52 = kl.add %51, %49 : tensor<f32>
      %53 = kl.sub %50, %49 : tensor<f32>
      %54 = kl.max %52, %53 : tensor<f32>
      kl.store %54, %2, %48
      kl.yield
    })
    kl.return
  })
})
