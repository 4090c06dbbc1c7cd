builtin.module ({
  kl.kernel <{sym_name = "main$k0$flash_attention"}> ({
  ^bb0(%0: !kl.ptr<f32>, %1: !kl.ptr<f32>, %2: !kl.ptr<f32>, %3: !kl.ptr<f32>, %4: tensor<i64>, %5: tensor<i64>, %6: tensor<i64>, %7: tensor<i64>):
    %8 = kl.constant <{value = dense<54> : tensor<i64>}> : tensor<i64>
    %9 = kl.constant <{value = dense<9> : tensor<i64>}> : tensor<i64>
    %10 = kl.constant <{value = dense<3> : tensor<i64>}> : tensor<i64>
    %11 = kl.constant <{value = dense<2> : tensor<i64>}> : tensor<i64>
    %12 = kl.constant <{value = dense<0> : tensor<i64>}> : tensor<i64>
    %13 = kl.constant <{value = dense<"0x000080FF"> : tensor<f32>}> : tensor<f32>
    %14 = kl.constant <{value = dense<1> : tensor<i64>}> : tensor<i64>
    %15 = kl.constant <{value = dense<0.0> : tensor<f64>}> : tensor<f64>
    %16 = kl.constant <{value = dense<5> : tensor<i64>}> : tensor<i64>
    %17 = kl.constant <{value = dense<135> : tensor<i64>}> : tensor<i64>
    %18 = kl.constant <{value = dense<45> : tensor<i64>}> : tensor<i64>
    %19 = kl.constant <{value = dense<0.4472136> : tensor<f32>}> : tensor<f32>
    %20 = kl.constant <{value = dense<0.0> : tensor<f32>}> : tensor<f32>
    %21 = kl.special <{register = "ctaid.x"}> : tensor<i32>
    %22 = kl.convert %21 : tensor<i64>
    %23 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %24 = kl.convert %23 : tensor<i64>
    %25 = kl.special <{register = "tid.x"}> : tensor<i32>
    %26 = kl.convert %25 : tensor<i64>
    %27 = kl.mul %22, %24 : tensor<i64>
    %28 = kl.add %27, %26 : tensor<i64>
    %29 = kl.special <{register = "nctaid.x"}> : tensor<i32>
    %30 = kl.convert %29 : tensor<i64>
    %31 = kl.special <{register = "ntid.x"}> : tensor<i32>
    %32 = kl.convert %31 : tensor<i64>
    %33 = kl.mul %30, %32 : tensor<i64>
    kl.for %28, %8, %33 ({
    ^bb0(%34: tensor<i64>):
      %35 = kl.rem %34, %9 : tensor<i64>
      %36 = kl.div %34, %9 : tensor<i64>
      %37 = kl.rem %36, %10 : tensor<i64>
      %38 = kl.div %36, %10 : tensor<i64>
      %39 = kl.rem %38, %11 : tensor<i64>
      %40 = kl.div %38, %11 : tensor<i64>
      %41 = kl.for %12, %9, %14, %13 : tensor<f32> ({
      ^bb0(%42: tensor<i64>, %43: tensor<f32>):
        %44 = kl.for %12, %16, %14, %15 : tensor<f64> ({
        ^bb0(%45: tensor<i64>, %46: tensor<f64>):
          %47 = kl.mul %39, %17 : tensor<i64>
          %48 = kl.mul %37, %18 : tensor<i64>
          %49 = kl.add %47, %48 : tensor<i64>
          %50 = kl.mul %35, %16 : tensor<i64>
          %51 = kl.add %49, %50 : tensor<i64>
          %52 = kl.add %51, %45 : tensor<i64>
          %53 = kl.load %0, %52 : tensor<f32>
          %54 = kl.convert %53 : tensor<f64>
          %55 = kl.mul %39, %17 : tensor<i64>
          %56 = kl.mul %37, %18 : tensor<i64>
          %57 = kl.add %55, %56 : tensor<i64>
          %58 = kl.mul %42, %16 : tensor<i64>
          %59 = kl.add %57, %58 : tensor<i64>
          %60 = kl.add %59, %45 : tensor<i64>
          %61 = kl.load %1, %60 : tensor<f32>
          %62 = kl.convert %61 : tensor<f64>
          %63 = kl.fma %54, %62, %46 : tensor<f64>
          kl.yield %63
        })
        %64 = kl.convert %44 : tensor<f32>
        %65 = kl.mul %64, %19 : tensor<f32>
        %66 = kl.cmp %42, %35 <{predicate = "GT"}> : tensor<i1>
        %67 = kl.select %66, %13, %65 : tensor<f32>
        %68 = kl.max %43, %67 : tensor<f32>
        kl.yield %68
      })
      %69 = kl.for %12, %9, %14, %20 : tensor<f32> ({
      ^bb0(%70: tensor<i64>, %71: tensor<f32>):
        %72 = kl.for %12, %16, %14, %15 : tensor<f64> ({
        ^bb0(%73: tensor<i64>, %74: tensor<f64>):
          %75 = kl.mul %39, %17 : tensor<i64>
          %76 = kl.mul %37, %18 : tensor<i64>
          %77 = kl.add %75, %76 : tensor<i64>
          %78 = kl.mul %35, %16 : tensor<i64>
          %79 = kl.add %77, %78 : tensor<i64>
          %80 = kl.add %79, %73 : tensor<i64>
          %81 = kl.load %0, %80 : tensor<f32>
          %82 = kl.convert %81 : tensor<f64>
          %83 = kl.mul %39, %17 : tensor<i64>
          %84 = kl.mul %37, %18 : tensor<i64>
          %85 = kl.add %83, %84 : tensor<i64>
          %86 = kl.mul %70, %16 : tensor<i64>
          %87 = kl.add %85, %86 : tensor<i64>
          %88 = kl.add %87, %73 : tensor<i64>
          %89 = kl.load %1, %88 : tensor<f32>
          %90 = kl.convert %89 : tensor<f64>
          %91 = kl.fma %82, %90, %74 : tensor<f64>
          kl.yield %91
        })
        %92 = kl.convert %72 : tensor<f32>
        %93 = kl.mul %92, %19 : tensor<f32>
        %94 = kl.cmp %70, %35 <{predicate = "GT"}> : tensor<i1>
        %95 = kl.select %94, %13, %93 : tensor<f32>
        %96 = kl.sub %95, %41 : tensor<f32>
        %97 = kl.exp %96 : tensor<f32>
        %98 = kl.add %71, %97 : tensor<f32>
        kl.yield %98
      })
      kl.for %12, %16, %14 ({
      ^bb0(%99: tensor<i64>):
        %100 = kl.for %12, %9, %14, %15 : tensor<f64> ({
        ^bb0(%101: tensor<i64>, %102: tensor<f64>):
          %103 = kl.for %12, %16, %14, %15 : tensor<f64> ({
          ^bb0(%104: tensor<i64>, %105: tensor<f64>):
            %106 = kl.mul %39, %17 : tensor<i64>
            %107 = kl.mul %37, %18 : tensor<i64>
            %108 = kl.add %106, %107 : tensor<i64>
            %109 = kl.mul %35, %16 : tensor<i64>
            %110 = kl.add %108, %109 : tensor<i64>
            %111 = kl.add %110, %104 : tensor<i64>
            %112 = kl.load %0, %111 : tensor<f32>
            %113 = kl.convert %112 : tensor<f64>
            %114 = kl.mul %39, %17 : tensor<i64>
            %115 = kl.mul %37, %18 : tensor<i64>
            %116 = kl.add %114, %115 : tensor<i64>
            %117 = kl.mul %101, %16 : tensor<i64>
            %118 = kl.add %116, %117 : tensor<i64>
            %119 = kl.add %118, %104 : tensor<i64>
            %120 = kl.load %1, %119 : tensor<f32>
            %121 = kl.convert %120 : tensor<f64>
            %122 = kl.fma %113, %121, %105 : tensor<f64>
            kl.yield %122
          })
          %123 = kl.convert %103 : tensor<f32>
          %124 = kl.mul %123, %19 : tensor<f32>
          %125 = kl.cmp %101, %35 <{predicate = "GT"}> : tensor<i1>
          %126 = kl.select %125, %13, %124 : tensor<f32>
          %127 = kl.sub %126, %41 : tensor<f32>
          %128 = kl.exp %127 : tensor<f32>
          %129 = kl.div %128, %69 : tensor<f32>
          %130 = kl.convert %129 : tensor<f64>
          %131 = kl.mul %39, %17 : tensor<i64>
          %132 = kl.mul %37, %18 : tensor<i64>
          %133 = kl.add %131, %132 : tensor<i64>
          %134 = kl.mul %101, %16 : tensor<i64>
          %135 = kl.add %133, %134 : tensor<i64>
          %136 = kl.add %135, %99 : tensor<i64>
          %137 = kl.load %2, %136 : tensor<f32>
          %138 = kl.convert %137 : tensor<f64>
          %139 = kl.fma %130, %138, %102 : tensor<f64>
          kl.yield %139
        })
        %140 = kl.convert %100 : tensor<f32>
        %141 = kl.mul %34, %16 : tensor<i64>
        %142 = kl.add %141, %99 : tensor<i64>
        kl.store %140, %3, %142
        kl.yield
      })
      kl.yield
    })
    kl.return
  })
})
