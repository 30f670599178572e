module @jit_adam_update attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32xf32>, %arg7: tensor<32x64xf32>, %arg8: tensor<64xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32x32xf32>, %arg12: tensor<32xf32>, %arg13: tensor<32xf32>, %arg14: tensor<32x64xf32>, %arg15: tensor<64xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<32xf32>, %arg18: tensor<32x32xf32>, %arg19: tensor<32xf32>, %arg20: tensor<32xf32>, %arg21: tensor<32x64xf32>, %arg22: tensor<64xf32>, %arg23: tensor<64x32xf32>, %arg24: tensor<32xf32>, %arg25: tensor<32x32xf32>, %arg26: tensor<32xf32>, %arg27: tensor<32xf32>, %arg28: tensor<f32>) -> (tensor<32x64xf32> {jax.result_info = "result[0][0]"}, tensor<64xf32> {jax.result_info = "result[0][1]"}, tensor<64x32xf32> {jax.result_info = "result[0][2]"}, tensor<32xf32> {jax.result_info = "result[0][3]"}, tensor<32x32xf32> {jax.result_info = "result[0][4]"}, tensor<32xf32> {jax.result_info = "result[0][5]"}, tensor<32xf32> {jax.result_info = "result[0][6]"}, tensor<32x64xf32> {jax.result_info = "result[1][0]"}, tensor<64xf32> {jax.result_info = "result[1][1]"}, tensor<64x32xf32> {jax.result_info = "result[1][2]"}, tensor<32xf32> {jax.result_info = "result[1][3]"}, tensor<32x32xf32> {jax.result_info = "result[1][4]"}, tensor<32xf32> {jax.result_info = "result[1][5]"}, tensor<32xf32> {jax.result_info = "result[1][6]"}, tensor<32x64xf32> {jax.result_info = "result[2][0]"}, tensor<64xf32> {jax.result_info = "result[2][1]"}, tensor<64x32xf32> {jax.result_info = "result[2][2]"}, tensor<32xf32> {jax.result_info = "result[2][3]"}, tensor<32x32xf32> {jax.result_info = "result[2][4]"}, tensor<32xf32> {jax.result_info = "result[2][5]"}, tensor<32xf32> {jax.result_info = "result[2][6]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.add %arg28, %cst : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %2 = stablehlo.multiply %1, %arg14 : tensor<32x64xf32>
    %cst_1 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %4 = stablehlo.multiply %3, %arg7 : tensor<32x64xf32>
    %5 = stablehlo.add %2, %4 : tensor<32x64xf32>
    %cst_2 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %7 = stablehlo.multiply %6, %arg21 : tensor<32x64xf32>
    %cst_3 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %9 = stablehlo.multiply %8, %arg7 : tensor<32x64xf32>
    %10 = stablehlo.multiply %9, %arg7 : tensor<32x64xf32>
    %11 = stablehlo.add %7, %10 : tensor<32x64xf32>
    %cst_4 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %12 = stablehlo.power %cst_4, %0 : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.subtract %cst_5, %12 : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %15 = stablehlo.divide %5, %14 : tensor<32x64xf32>
    %cst_6 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %16 = stablehlo.power %cst_6, %0 : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.subtract %cst_7, %16 : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %19 = stablehlo.divide %11, %18 : tensor<32x64xf32>
    %cst_8 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %21 = stablehlo.multiply %20, %15 : tensor<32x64xf32>
    %22 = stablehlo.sqrt %19 : tensor<32x64xf32>
    %cst_9 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %24 = stablehlo.add %22, %23 : tensor<32x64xf32>
    %25 = stablehlo.divide %21, %24 : tensor<32x64xf32>
    %26 = stablehlo.subtract %arg0, %25 : tensor<32x64xf32>
    %cst_10 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %28 = stablehlo.multiply %27, %arg15 : tensor<64xf32>
    %cst_11 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %30 = stablehlo.multiply %29, %arg8 : tensor<64xf32>
    %31 = stablehlo.add %28, %30 : tensor<64xf32>
    %cst_12 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %33 = stablehlo.multiply %32, %arg22 : tensor<64xf32>
    %cst_13 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %35 = stablehlo.multiply %34, %arg8 : tensor<64xf32>
    %36 = stablehlo.multiply %35, %arg8 : tensor<64xf32>
    %37 = stablehlo.add %33, %36 : tensor<64xf32>
    %cst_14 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %38 = stablehlo.power %cst_14, %0 : tensor<f32>
    %cst_15 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.subtract %cst_15, %38 : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %41 = stablehlo.divide %31, %40 : tensor<64xf32>
    %cst_16 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %42 = stablehlo.power %cst_16, %0 : tensor<f32>
    %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %43 = stablehlo.subtract %cst_17, %42 : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %45 = stablehlo.divide %37, %44 : tensor<64xf32>
    %cst_18 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %47 = stablehlo.multiply %46, %41 : tensor<64xf32>
    %48 = stablehlo.sqrt %45 : tensor<64xf32>
    %cst_19 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %50 = stablehlo.add %48, %49 : tensor<64xf32>
    %51 = stablehlo.divide %47, %50 : tensor<64xf32>
    %52 = stablehlo.subtract %arg1, %51 : tensor<64xf32>
    %cst_20 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %54 = stablehlo.multiply %53, %arg16 : tensor<64x32xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %56 = stablehlo.multiply %55, %arg9 : tensor<64x32xf32>
    %57 = stablehlo.add %54, %56 : tensor<64x32xf32>
    %cst_22 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %59 = stablehlo.multiply %58, %arg23 : tensor<64x32xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %61 = stablehlo.multiply %60, %arg9 : tensor<64x32xf32>
    %62 = stablehlo.multiply %61, %arg9 : tensor<64x32xf32>
    %63 = stablehlo.add %59, %62 : tensor<64x32xf32>
    %cst_24 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %64 = stablehlo.power %cst_24, %0 : tensor<f32>
    %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %65 = stablehlo.subtract %cst_25, %64 : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %67 = stablehlo.divide %57, %66 : tensor<64x32xf32>
    %cst_26 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %68 = stablehlo.power %cst_26, %0 : tensor<f32>
    %cst_27 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %69 = stablehlo.subtract %cst_27, %68 : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %71 = stablehlo.divide %63, %70 : tensor<64x32xf32>
    %cst_28 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %73 = stablehlo.multiply %72, %67 : tensor<64x32xf32>
    %74 = stablehlo.sqrt %71 : tensor<64x32xf32>
    %cst_29 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %76 = stablehlo.add %74, %75 : tensor<64x32xf32>
    %77 = stablehlo.divide %73, %76 : tensor<64x32xf32>
    %78 = stablehlo.subtract %arg2, %77 : tensor<64x32xf32>
    %cst_30 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %80 = stablehlo.multiply %79, %arg17 : tensor<32xf32>
    %cst_31 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %82 = stablehlo.multiply %81, %arg10 : tensor<32xf32>
    %83 = stablehlo.add %80, %82 : tensor<32xf32>
    %cst_32 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %85 = stablehlo.multiply %84, %arg24 : tensor<32xf32>
    %cst_33 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %87 = stablehlo.multiply %86, %arg10 : tensor<32xf32>
    %88 = stablehlo.multiply %87, %arg10 : tensor<32xf32>
    %89 = stablehlo.add %85, %88 : tensor<32xf32>
    %cst_34 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %90 = stablehlo.power %cst_34, %0 : tensor<f32>
    %cst_35 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %91 = stablehlo.subtract %cst_35, %90 : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %93 = stablehlo.divide %83, %92 : tensor<32xf32>
    %cst_36 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %94 = stablehlo.power %cst_36, %0 : tensor<f32>
    %cst_37 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %95 = stablehlo.subtract %cst_37, %94 : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %97 = stablehlo.divide %89, %96 : tensor<32xf32>
    %cst_38 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %99 = stablehlo.multiply %98, %93 : tensor<32xf32>
    %100 = stablehlo.sqrt %97 : tensor<32xf32>
    %cst_39 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %102 = stablehlo.add %100, %101 : tensor<32xf32>
    %103 = stablehlo.divide %99, %102 : tensor<32xf32>
    %104 = stablehlo.subtract %arg3, %103 : tensor<32xf32>
    %cst_40 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %106 = stablehlo.multiply %105, %arg18 : tensor<32x32xf32>
    %cst_41 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %107 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %108 = stablehlo.multiply %107, %arg11 : tensor<32x32xf32>
    %109 = stablehlo.add %106, %108 : tensor<32x32xf32>
    %cst_42 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %111 = stablehlo.multiply %110, %arg25 : tensor<32x32xf32>
    %cst_43 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %112 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %113 = stablehlo.multiply %112, %arg11 : tensor<32x32xf32>
    %114 = stablehlo.multiply %113, %arg11 : tensor<32x32xf32>
    %115 = stablehlo.add %111, %114 : tensor<32x32xf32>
    %cst_44 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %116 = stablehlo.power %cst_44, %0 : tensor<f32>
    %cst_45 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %117 = stablehlo.subtract %cst_45, %116 : tensor<f32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %119 = stablehlo.divide %109, %118 : tensor<32x32xf32>
    %cst_46 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %120 = stablehlo.power %cst_46, %0 : tensor<f32>
    %cst_47 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %121 = stablehlo.subtract %cst_47, %120 : tensor<f32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %123 = stablehlo.divide %115, %122 : tensor<32x32xf32>
    %cst_48 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %125 = stablehlo.multiply %124, %119 : tensor<32x32xf32>
    %126 = stablehlo.sqrt %123 : tensor<32x32xf32>
    %cst_49 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %128 = stablehlo.add %126, %127 : tensor<32x32xf32>
    %129 = stablehlo.divide %125, %128 : tensor<32x32xf32>
    %130 = stablehlo.subtract %arg4, %129 : tensor<32x32xf32>
    %cst_50 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %132 = stablehlo.multiply %131, %arg19 : tensor<32xf32>
    %cst_51 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %134 = stablehlo.multiply %133, %arg12 : tensor<32xf32>
    %135 = stablehlo.add %132, %134 : tensor<32xf32>
    %cst_52 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %137 = stablehlo.multiply %136, %arg26 : tensor<32xf32>
    %cst_53 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %139 = stablehlo.multiply %138, %arg12 : tensor<32xf32>
    %140 = stablehlo.multiply %139, %arg12 : tensor<32xf32>
    %141 = stablehlo.add %137, %140 : tensor<32xf32>
    %cst_54 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %142 = stablehlo.power %cst_54, %0 : tensor<f32>
    %cst_55 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %143 = stablehlo.subtract %cst_55, %142 : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %143, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %145 = stablehlo.divide %135, %144 : tensor<32xf32>
    %cst_56 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %146 = stablehlo.power %cst_56, %0 : tensor<f32>
    %cst_57 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %147 = stablehlo.subtract %cst_57, %146 : tensor<f32>
    %148 = stablehlo.broadcast_in_dim %147, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %149 = stablehlo.divide %141, %148 : tensor<32xf32>
    %cst_58 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %150 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %151 = stablehlo.multiply %150, %145 : tensor<32xf32>
    %152 = stablehlo.sqrt %149 : tensor<32xf32>
    %cst_59 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %153 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %154 = stablehlo.add %152, %153 : tensor<32xf32>
    %155 = stablehlo.divide %151, %154 : tensor<32xf32>
    %156 = stablehlo.subtract %arg5, %155 : tensor<32xf32>
    %cst_60 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %158 = stablehlo.multiply %157, %arg20 : tensor<32xf32>
    %cst_61 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %160 = stablehlo.multiply %159, %arg13 : tensor<32xf32>
    %161 = stablehlo.add %158, %160 : tensor<32xf32>
    %cst_62 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %162 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %163 = stablehlo.multiply %162, %arg27 : tensor<32xf32>
    %cst_63 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %165 = stablehlo.multiply %164, %arg13 : tensor<32xf32>
    %166 = stablehlo.multiply %165, %arg13 : tensor<32xf32>
    %167 = stablehlo.add %163, %166 : tensor<32xf32>
    %cst_64 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %168 = stablehlo.power %cst_64, %0 : tensor<f32>
    %cst_65 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %169 = stablehlo.subtract %cst_65, %168 : tensor<f32>
    %170 = stablehlo.broadcast_in_dim %169, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %171 = stablehlo.divide %161, %170 : tensor<32xf32>
    %cst_66 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %172 = stablehlo.power %cst_66, %0 : tensor<f32>
    %cst_67 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %173 = stablehlo.subtract %cst_67, %172 : tensor<f32>
    %174 = stablehlo.broadcast_in_dim %173, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %175 = stablehlo.divide %167, %174 : tensor<32xf32>
    %cst_68 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %176 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %177 = stablehlo.multiply %176, %171 : tensor<32xf32>
    %178 = stablehlo.sqrt %175 : tensor<32xf32>
    %cst_69 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %180 = stablehlo.add %178, %179 : tensor<32xf32>
    %181 = stablehlo.divide %177, %180 : tensor<32xf32>
    %182 = stablehlo.subtract %arg6, %181 : tensor<32xf32>
    return %26, %52, %78, %104, %130, %156, %182, %5, %31, %57, %83, %109, %135, %161, %11, %37, %63, %89, %115, %141, %167 : tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>
  }
}
