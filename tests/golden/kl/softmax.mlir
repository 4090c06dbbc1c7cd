builtin.module ({
  kl.kernel <{max_threads = 256, sym_name = "main$k0$row_pipeline"}> ({
  ^bb0(%0: !kl.ptr<f32>, %1: !kl.ptr<f32>, %2: tensor<i64>, %3: tensor<i64>):
    %4 = kl.constant <{value = dense<31> : tensor<i32>}> : tensor<i32>
    %5 = kl.constant <{value = dense<5> : tensor<i32>}> : tensor<i32>
    %6 = kl.constant <{value = dense<67> : tensor<i64>}> : tensor<i64>
    %7 = kl.constant <{value = dense<1> : tensor<i64>}> : tensor<i64>
    %8 = kl.constant <{value = dense<8> : tensor<i64>}> : tensor<i64>
    %9 = kl.constant <{value = dense<5> : tensor<i64>}> : tensor<i64>
    %10 = kl.constant <{value = dense<4> : tensor<i64>}> : tensor<i64>
    %11 = kl.constant <{value = dense<32> : tensor<i64>}> : tensor<i64>
    %12 = kl.constant <{value = dense<64> : tensor<i64>}> : tensor<i64>
    %13 = kl.constant <{value = dense<66> : tensor<i64>}> : tensor<i64>
    %14 = kl.constant <{value = dense<1> : tensor<i32>}> : tensor<i32>
    %15 = kl.constant <{value = dense<0> : tensor<i32>}> : tensor<i32>
    %16 = kl.constant <{value = dense<2> : tensor<i32>}> : tensor<i32>
    %17 = kl.constant <{value = dense<4> : tensor<i32>}> : tensor<i32>
    %18 = kl.constant <{value = dense<8> : tensor<i32>}> : tensor<i32>
    %19 = kl.constant <{value = dense<16> : tensor<i32>}> : tensor<i32>
    %20 = kl.constant <{value = dense<"0x000080FF"> : tensor<f32>}> : tensor<f32>
    %21 = kl.constant <{value = dense<0.0> : tensor<f32>}> : tensor<f32>
    %22 = kl.special <{register = "tid.x"}> : tensor<i32>
    %23 = kl.and %22, %4 : tensor<i32>
    %24 = kl.shr %22, %5 : tensor<i32>
    %25 = kl.convert %24 : tensor<i64>
    %26 = kl.convert %23 : tensor<i64>
    %27 = kl.special <{register = "ctaid.x"}> : tensor<i32>
    %28 = kl.convert %27 : tensor<i64>
    %29 = kl.special <{register = "nctaid.x"}> : tensor<i32>
    %30 = kl.convert %29 : tensor<i64>
    kl.for %28, %7, %30 ({
    ^bb0(%31: tensor<i64>):
      %32 = kl.mul %31, %8 : tensor<i64>
      %33 = kl.add %32, %25 : tensor<i64>
      %34 = kl.cmp %33, %9 <{predicate = "LT"}> : tensor<i1>
      %35 = kl.min %33, %10 : tensor<i64>
      %36 = kl.mul %35, %6 : tensor<i64>
      %37 = kl.select %34, %26, %6 : tensor<i64>
      %38 = kl.add %36, %26 : tensor<i64>
      %39 = kl.add %26, %11 : tensor<i64>
      %40 = kl.add %36, %39 : tensor<i64>
      %41 = kl.add %37, %12 : tensor<i64>
      %42 = kl.cmp %41, %6 <{predicate = "LT"}> : tensor<i1>
      %43 = kl.min %41, %13 : tensor<i64>
      %44 = kl.add %36, %43 : tensor<i64>
      %45 = kl.load %0, %38 : tensor<f32>
      %46 = kl.load %0, %40 : tensor<f32>
      %47 = kl.max %45, %46 : tensor<f32>
      %48 = kl.select %34, %47, %45 : tensor<f32>
      %49 = kl.load %0, %44 : tensor<f32>
      %50 = kl.max %48, %49 : tensor<f32>
      %51 = kl.select %42, %50, %48 : tensor<f32>
      %52 = kl.shuffle %51, %14 <{mode = "xor"}> : tensor<f32>
      %53 = kl.and %23, %14 : tensor<i32>
      %54 = kl.cmp %53, %15 <{predicate = "EQ"}> : tensor<i1>
      %55 = kl.select %54, %51, %52 : tensor<f32>
      %56 = kl.select %54, %52, %51 : tensor<f32>
      %57 = kl.max %55, %56 : tensor<f32>
      %58 = kl.shuffle %57, %16 <{mode = "xor"}> : tensor<f32>
      %59 = kl.and %23, %16 : tensor<i32>
      %60 = kl.cmp %59, %15 <{predicate = "EQ"}> : tensor<i1>
      %61 = kl.select %60, %57, %58 : tensor<f32>
      %62 = kl.select %60, %58, %57 : tensor<f32>
      %63 = kl.max %61, %62 : tensor<f32>
      %64 = kl.shuffle %63, %17 <{mode = "xor"}> : tensor<f32>
      %65 = kl.and %23, %17 : tensor<i32>
      %66 = kl.cmp %65, %15 <{predicate = "EQ"}> : tensor<i1>
      %67 = kl.select %66, %63, %64 : tensor<f32>
      %68 = kl.select %66, %64, %63 : tensor<f32>
      %69 = kl.max %67, %68 : tensor<f32>
      %70 = kl.shuffle %69, %18 <{mode = "xor"}> : tensor<f32>
      %71 = kl.and %23, %18 : tensor<i32>
      %72 = kl.cmp %71, %15 <{predicate = "EQ"}> : tensor<i1>
      %73 = kl.select %72, %69, %70 : tensor<f32>
      %74 = kl.select %72, %70, %69 : tensor<f32>
      %75 = kl.max %73, %74 : tensor<f32>
      %76 = kl.shuffle %75, %19 <{mode = "xor"}> : tensor<f32>
      %77 = kl.and %23, %19 : tensor<i32>
      %78 = kl.cmp %77, %15 <{predicate = "EQ"}> : tensor<i1>
      %79 = kl.select %78, %75, %76 : tensor<f32>
      %80 = kl.select %78, %76, %75 : tensor<f32>
      %81 = kl.max %79, %80 : tensor<f32>
      %82 = kl.max %20, %81 : tensor<f32>
      %83 = kl.sub %45, %82 : tensor<f32>
      %84 = kl.exp %83 : tensor<f32>
      %85 = kl.sub %46, %82 : tensor<f32>
      %86 = kl.exp %85 : tensor<f32>
      %87 = kl.add %84, %86 : tensor<f32>
      %88 = kl.select %34, %87, %84 : tensor<f32>
      %89 = kl.sub %49, %82 : tensor<f32>
      %90 = kl.exp %89 : tensor<f32>
      %91 = kl.add %88, %90 : tensor<f32>
      %92 = kl.select %42, %91, %88 : tensor<f32>
      %93 = kl.shuffle %92, %14 <{mode = "xor"}> : tensor<f32>
      %94 = kl.and %23, %14 : tensor<i32>
      %95 = kl.cmp %94, %15 <{predicate = "EQ"}> : tensor<i1>
      %96 = kl.select %95, %92, %93 : tensor<f32>
      %97 = kl.select %95, %93, %92 : tensor<f32>
      %98 = kl.add %96, %97 : tensor<f32>
      %99 = kl.shuffle %98, %16 <{mode = "xor"}> : tensor<f32>
      %100 = kl.and %23, %16 : tensor<i32>
      %101 = kl.cmp %100, %15 <{predicate = "EQ"}> : tensor<i1>
      %102 = kl.select %101, %98, %99 : tensor<f32>
      %103 = kl.select %101, %99, %98 : tensor<f32>
      %104 = kl.add %102, %103 : tensor<f32>
      %105 = kl.shuffle %104, %17 <{mode = "xor"}> : tensor<f32>
      %106 = kl.and %23, %17 : tensor<i32>
      %107 = kl.cmp %106, %15 <{predicate = "EQ"}> : tensor<i1>
      %108 = kl.select %107, %104, %105 : tensor<f32>
      %109 = kl.select %107, %105, %104 : tensor<f32>
      %110 = kl.add %108, %109 : tensor<f32>
      %111 = kl.shuffle %110, %18 <{mode = "xor"}> : tensor<f32>
      %112 = kl.and %23, %18 : tensor<i32>
      %113 = kl.cmp %112, %15 <{predicate = "EQ"}> : tensor<i1>
      %114 = kl.select %113, %110, %111 : tensor<f32>
      %115 = kl.select %113, %111, %110 : tensor<f32>
      %116 = kl.add %114, %115 : tensor<f32>
      %117 = kl.shuffle %116, %19 <{mode = "xor"}> : tensor<f32>
      %118 = kl.and %23, %19 : tensor<i32>
      %119 = kl.cmp %118, %15 <{predicate = "EQ"}> : tensor<i1>
      %120 = kl.select %119, %116, %117 : tensor<f32>
      %121 = kl.select %119, %117, %116 : tensor<f32>
      %122 = kl.add %120, %121 : tensor<f32>
      %123 = kl.add %21, %122 : tensor<f32>
      %124 = kl.div %84, %123 : tensor<f32>
      kl.if %34 ({
        kl.store %124, %1, %38
        kl.yield
      }, {
        kl.yield
      })
      %125 = kl.div %86, %123 : tensor<f32>
      kl.if %34 ({
        kl.store %125, %1, %40
        kl.yield
      }, {
        kl.yield
      })
      %126 = kl.div %90, %123 : tensor<f32>
      kl.if %42 ({
        kl.store %126, %1, %44
        kl.yield
      }, {
        kl.yield
      })
      kl.yield
    })
    kl.return
  })
})
