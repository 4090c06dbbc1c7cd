builtin.module ({
  kl.kernel <{max_threads = 256, sym_name = "main$k0$reduction"}> ({
  ^bb0(%0: !kl.ptr<f32>, %1: !kl.ptr<f32>, %2: tensor<i64>, %3: tensor<i64>):
    %4 = kl.constant <{value = dense<31> : tensor<i32>}> : tensor<i32>
    %5 = kl.constant <{value = dense<5> : tensor<i32>}> : tensor<i32>
    %6 = kl.constant <{value = dense<13> : tensor<i64>}> : tensor<i64>
    %7 = kl.constant <{value = dense<1> : tensor<i64>}> : tensor<i64>
    %8 = kl.constant <{value = dense<8> : tensor<i64>}> : tensor<i64>
    %9 = kl.constant <{value = dense<7> : tensor<i64>}> : tensor<i64>
    %10 = kl.constant <{value = dense<6> : tensor<i64>}> : tensor<i64>
    %11 = kl.constant <{value = dense<12> : tensor<i64>}> : tensor<i64>
    %12 = kl.constant <{value = dense<1> : tensor<i32>}> : tensor<i32>
    %13 = kl.constant <{value = dense<0> : tensor<i32>}> : tensor<i32>
    %14 = kl.constant <{value = dense<-2> : tensor<i32>}> : tensor<i32>
    %15 = kl.constant <{value = dense<13> : tensor<i32>}> : tensor<i32>
    %16 = kl.constant <{value = dense<2> : tensor<i32>}> : tensor<i32>
    %17 = kl.constant <{value = dense<-4> : tensor<i32>}> : tensor<i32>
    %18 = kl.constant <{value = dense<4> : tensor<i32>}> : tensor<i32>
    %19 = kl.constant <{value = dense<-8> : tensor<i32>}> : tensor<i32>
    %20 = kl.constant <{value = dense<8> : tensor<i32>}> : tensor<i32>
    %21 = kl.constant <{value = dense<-16> : tensor<i32>}> : tensor<i32>
    %22 = kl.constant <{value = dense<16> : tensor<i32>}> : tensor<i32>
    %23 = kl.constant <{value = dense<-32> : tensor<i32>}> : tensor<i32>
    %24 = kl.constant <{value = dense<0.0> : tensor<f32>}> : tensor<f32>
    %25 = kl.special <{register = "tid.x"}> : tensor<i32>
    %26 = kl.and %25, %4 : tensor<i32>
    %27 = kl.shr %25, %5 : tensor<i32>
    %28 = kl.convert %27 : tensor<i64>
    %29 = kl.convert %26 : tensor<i64>
    %30 = kl.special <{register = "ctaid.x"}> : tensor<i32>
    %31 = kl.convert %30 : tensor<i64>
    %32 = kl.special <{register = "nctaid.x"}> : tensor<i32>
    %33 = kl.convert %32 : tensor<i64>
    kl.for %31, %7, %33 ({
    ^bb0(%34: tensor<i64>):
      %35 = kl.mul %34, %8 : tensor<i64>
      %36 = kl.add %35, %28 : tensor<i64>
      %37 = kl.cmp %36, %9 <{predicate = "LT"}> : tensor<i1>
      %38 = kl.min %36, %10 : tensor<i64>
      %39 = kl.mul %38, %6 : tensor<i64>
      %40 = kl.select %37, %29, %6 : tensor<i64>
      %41 = kl.cmp %40, %6 <{predicate = "LT"}> : tensor<i1>
      %42 = kl.min %40, %11 : tensor<i64>
      %43 = kl.add %39, %42 : tensor<i64>
      %44 = kl.load %0, %43 : tensor<f32>
      %45 = kl.shuffle %44, %12 <{mode = "xor"}> : tensor<f32>
      %46 = kl.and %26, %12 : tensor<i32>
      %47 = kl.cmp %46, %13 <{predicate = "EQ"}> : tensor<i1>
      %48 = kl.select %47, %44, %45 : tensor<f32>
      %49 = kl.select %47, %45, %44 : tensor<f32>
      %50 = kl.add %48, %49 : tensor<f32>
      %51 = kl.and %26, %14 : tensor<i32>
      %52 = kl.add %51, %12 : tensor<i32>
      %53 = kl.cmp %52, %15 <{predicate = "LT"}> : tensor<i1>
      %54 = kl.select %53, %50, %48 : tensor<f32>
      %55 = kl.shuffle %54, %16 <{mode = "xor"}> : tensor<f32>
      %56 = kl.and %26, %16 : tensor<i32>
      %57 = kl.cmp %56, %13 <{predicate = "EQ"}> : tensor<i1>
      %58 = kl.select %57, %54, %55 : tensor<f32>
      %59 = kl.select %57, %55, %54 : tensor<f32>
      %60 = kl.add %58, %59 : tensor<f32>
      %61 = kl.and %26, %17 : tensor<i32>
      %62 = kl.add %61, %16 : tensor<i32>
      %63 = kl.cmp %62, %15 <{predicate = "LT"}> : tensor<i1>
      %64 = kl.select %63, %60, %58 : tensor<f32>
      %65 = kl.shuffle %64, %18 <{mode = "xor"}> : tensor<f32>
      %66 = kl.and %26, %18 : tensor<i32>
      %67 = kl.cmp %66, %13 <{predicate = "EQ"}> : tensor<i1>
      %68 = kl.select %67, %64, %65 : tensor<f32>
      %69 = kl.select %67, %65, %64 : tensor<f32>
      %70 = kl.add %68, %69 : tensor<f32>
      %71 = kl.and %26, %19 : tensor<i32>
      %72 = kl.add %71, %18 : tensor<i32>
      %73 = kl.cmp %72, %15 <{predicate = "LT"}> : tensor<i1>
      %74 = kl.select %73, %70, %68 : tensor<f32>
      %75 = kl.shuffle %74, %20 <{mode = "xor"}> : tensor<f32>
      %76 = kl.and %26, %20 : tensor<i32>
      %77 = kl.cmp %76, %13 <{predicate = "EQ"}> : tensor<i1>
      %78 = kl.select %77, %74, %75 : tensor<f32>
      %79 = kl.select %77, %75, %74 : tensor<f32>
      %80 = kl.add %78, %79 : tensor<f32>
      %81 = kl.and %26, %21 : tensor<i32>
      %82 = kl.add %81, %20 : tensor<i32>
      %83 = kl.cmp %82, %15 <{predicate = "LT"}> : tensor<i1>
      %84 = kl.select %83, %80, %78 : tensor<f32>
      %85 = kl.shuffle %84, %22 <{mode = "xor"}> : tensor<f32>
      %86 = kl.and %26, %22 : tensor<i32>
      %87 = kl.cmp %86, %13 <{predicate = "EQ"}> : tensor<i1>
      %88 = kl.select %87, %84, %85 : tensor<f32>
      %89 = kl.select %87, %85, %84 : tensor<f32>
      %90 = kl.add %88, %89 : tensor<f32>
      %91 = kl.and %26, %23 : tensor<i32>
      %92 = kl.add %91, %22 : tensor<i32>
      %93 = kl.cmp %92, %15 <{predicate = "LT"}> : tensor<i1>
      %94 = kl.select %93, %90, %88 : tensor<f32>
      %95 = kl.add %24, %94 : tensor<f32>
      %96 = kl.cmp %26, %13 <{predicate = "EQ"}> : tensor<i1>
      %97 = kl.and %96, %37 : tensor<i1>
      kl.if %97 ({
        kl.store %95, %1, %38
        kl.yield
      }, {
        kl.yield
      })
      kl.yield
    })
    kl.return
  })
})
