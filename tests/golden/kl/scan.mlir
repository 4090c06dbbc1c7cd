builtin.module ({
  kl.kernel <{max_threads = 128, sym_name = "main$k0$scan"}> ({
  ^bb0(%0: !kl.ptr<f32>, %1: !kl.ptr<f32>, %2: tensor<i64>, %3: tensor<i64>):
    %4 = kl.constant <{value = dense<32> : tensor<i64>}> : tensor<i64>
    %5 = kl.constant <{value = dense<4> : tensor<i64>}> : tensor<i64>
    %6 = kl.constant <{value = dense<0> : tensor<i64>}> : tensor<i64>
    %7 = kl.constant <{value = dense<0.0> : tensor<f32>}> : tensor<f32>
    %8 = kl.constant <{value = dense<50> : tensor<i64>}> : tensor<i64>
    %9 = kl.constant <{value = dense<128> : tensor<i64>}> : tensor<i64>
    %10 = kl.constant <{value = dense<49> : tensor<i64>}> : tensor<i64>
    %11 = kl.constant <{value = dense<2.0> : tensor<f32>}> : tensor<f32>
    %12 = kl.constant <{value = dense<-0.0> : tensor<f32>}> : tensor<f32>
    %13 = kl.constant <{value = dense<1> : tensor<i64>}> : tensor<i64>
    %14 = kl.constant <{value = dense<2> : tensor<i64>}> : tensor<i64>
    %15 = kl.constant <{value = dense<3> : tensor<i64>}> : tensor<i64>
    %16 = kl.constant <{value = dense<1> : tensor<i32>}> : tensor<i32>
    %17 = kl.constant <{value = dense<2> : tensor<i32>}> : tensor<i32>
    %18 = kl.constant <{value = dense<4> : tensor<i32>}> : tensor<i32>
    %19 = kl.constant <{value = dense<8> : tensor<i32>}> : tensor<i32>
    %20 = kl.constant <{value = dense<8> : tensor<i64>}> : tensor<i64>
    %21 = kl.constant <{value = dense<16> : tensor<i32>}> : tensor<i32>
    %22 = kl.constant <{value = dense<16> : tensor<i64>}> : tensor<i64>
    %23 = kl.constant <{value = dense<31> : tensor<i32>}> : tensor<i32>
    %24 = kl.constant <{value = dense<1.0> : tensor<f32>}> : tensor<f32>
    %25 = kl.special <{register = "tid.x"}> : tensor<i32>
    %26 = kl.convert %25 : tensor<i64>
    %27 = kl.rem %26, %4 : tensor<i64>
    %28 = kl.special <{register = "ctaid.x"}> : tensor<i32>
    %29 = kl.convert %28 : tensor<i64>
    %30 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %31 = kl.convert %30 : tensor<i64>
    %32 = kl.special <{register = "tid.x"}> : tensor<i32>
    %33 = kl.convert %32 : tensor<i64>
    %34 = kl.mul %29, %31 : tensor<i64>
    %35 = kl.add %34, %33 : tensor<i64>
    %36 = kl.div %35, %4 : tensor<i64>
    %37 = kl.special <{register = "nctaid.x"}> : tensor<i32>
    %38 = kl.convert %37 : tensor<i64>
    %39 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %40 = kl.convert %39 : tensor<i64>
    %41 = kl.mul %38, %40 : tensor<i64>
    %42 = kl.div %41, %4 : tensor<i64>
    kl.for %36, %5, %42 ({
    ^bb0(%43: tensor<i64>):
      %44 = kl.rem %43, %5 : tensor<i64>
      %45 = kl.div %43, %5 : tensor<i64>
      %46 = kl.for %6, %8, %9, %7 : tensor<f32> ({
      ^bb0(%47: tensor<i64>, %48: tensor<f32>):
        %49 = kl.mul %27, %5 : tensor<i64>
        %50 = kl.add %47, %49 : tensor<i64>
        %51 = kl.add %50, %6 : tensor<i64>
        %52 = kl.cmp %51, %8 <{predicate = "LT"}> : tensor<i1>
        %53 = kl.min %51, %10 : tensor<i64>
        %54 = kl.mul %44, %8 : tensor<i64>
        %55 = kl.add %54, %53 : tensor<i64>
        %56 = kl.load %0, %55 : tensor<f32>
        %57 = kl.exp %56 : tensor<f32>
        %58 = kl.mul %57, %11 : tensor<f32>
        %59 = kl.select %52, %58, %12 : tensor<f32>
        %60 = kl.add %50, %13 : tensor<i64>
        %61 = kl.cmp %60, %8 <{predicate = "LT"}> : tensor<i1>
        %62 = kl.min %60, %10 : tensor<i64>
        %63 = kl.mul %44, %8 : tensor<i64>
        %64 = kl.add %63, %62 : tensor<i64>
        %65 = kl.load %0, %64 : tensor<f32>
        %66 = kl.exp %65 : tensor<f32>
        %67 = kl.mul %66, %11 : tensor<f32>
        %68 = kl.select %61, %67, %12 : tensor<f32>
        %69 = kl.add %50, %14 : tensor<i64>
        %70 = kl.cmp %69, %8 <{predicate = "LT"}> : tensor<i1>
        %71 = kl.min %69, %10 : tensor<i64>
        %72 = kl.mul %44, %8 : tensor<i64>
        %73 = kl.add %72, %71 : tensor<i64>
        %74 = kl.load %0, %73 : tensor<f32>
        %75 = kl.exp %74 : tensor<f32>
        %76 = kl.mul %75, %11 : tensor<f32>
        %77 = kl.select %70, %76, %12 : tensor<f32>
        %78 = kl.add %50, %15 : tensor<i64>
        %79 = kl.cmp %78, %8 <{predicate = "LT"}> : tensor<i1>
        %80 = kl.min %78, %10 : tensor<i64>
        %81 = kl.mul %44, %8 : tensor<i64>
        %82 = kl.add %81, %80 : tensor<i64>
        %83 = kl.load %0, %82 : tensor<f32>
        %84 = kl.exp %83 : tensor<f32>
        %85 = kl.mul %84, %11 : tensor<f32>
        %86 = kl.select %79, %85, %12 : tensor<f32>
        %87 = kl.add %59, %68 : tensor<f32>
        %88 = kl.add %87, %77 : tensor<f32>
        %89 = kl.add %88, %86 : tensor<f32>
        %90 = kl.shuffle %89, %16 <{mode = "up"}> : tensor<f32>
        %91 = kl.cmp %27, %13 <{predicate = "GE"}> : tensor<i1>
        %92 = kl.add %90, %89 : tensor<f32>
        %93 = kl.select %91, %92, %89 : tensor<f32>
        %94 = kl.shuffle %93, %17 <{mode = "up"}> : tensor<f32>
        %95 = kl.cmp %27, %14 <{predicate = "GE"}> : tensor<i1>
        %96 = kl.add %94, %93 : tensor<f32>
        %97 = kl.select %95, %96, %93 : tensor<f32>
        %98 = kl.shuffle %97, %18 <{mode = "up"}> : tensor<f32>
        %99 = kl.cmp %27, %5 <{predicate = "GE"}> : tensor<i1>
        %100 = kl.add %98, %97 : tensor<f32>
        %101 = kl.select %99, %100, %97 : tensor<f32>
        %102 = kl.shuffle %101, %19 <{mode = "up"}> : tensor<f32>
        %103 = kl.cmp %27, %20 <{predicate = "GE"}> : tensor<i1>
        %104 = kl.add %102, %101 : tensor<f32>
        %105 = kl.select %103, %104, %101 : tensor<f32>
        %106 = kl.shuffle %105, %21 <{mode = "up"}> : tensor<f32>
        %107 = kl.cmp %27, %22 <{predicate = "GE"}> : tensor<i1>
        %108 = kl.add %106, %105 : tensor<f32>
        %109 = kl.select %107, %108, %105 : tensor<f32>
        %110 = kl.shuffle %109, %16 <{mode = "up"}> : tensor<f32>
        %111 = kl.cmp %27, %6 <{predicate = "EQ"}> : tensor<i1>
        %112 = kl.select %111, %12, %110 : tensor<f32>
        %113 = kl.shuffle %109, %23 <{mode = "idx"}> : tensor<f32>
        %114 = kl.add %48, %112 : tensor<f32>
        %115 = kl.add %114, %59 : tensor<f32>
        kl.if %52 ({
          %116 = kl.add %115, %24 : tensor<f32>
          kl.store %116, %1, %55
          kl.yield
        }, {
          kl.yield
        })
        %117 = kl.add %115, %68 : tensor<f32>
        kl.if %61 ({
          %118 = kl.add %117, %24 : tensor<f32>
          kl.store %118, %1, %64
          kl.yield
        }, {
          kl.yield
        })
        %119 = kl.add %117, %77 : tensor<f32>
        kl.if %70 ({
          %120 = kl.add %119, %24 : tensor<f32>
          kl.store %120, %1, %73
          kl.yield
        }, {
          kl.yield
        })
        %121 = kl.add %119, %86 : tensor<f32>
        kl.if %79 ({
          %122 = kl.add %121, %24 : tensor<f32>
          kl.store %122, %1, %82
          kl.yield
        }, {
          kl.yield
        })
        %123 = kl.add %48, %113 : tensor<f32>
        kl.yield %123
      })
      kl.yield
    })
    kl.return
  })
})
