module @jit_lm_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<64xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<96xf32>, %arg7: tensor<32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32x64xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<32x32xf32>, %arg12: tensor<32x96xf32>, %arg13: tensor<64x32xf32>, %arg14: tensor<32xf32>, %arg15: tensor<32x64xf32>, %arg16: tensor<8x32xf32>, %arg17: tensor<2x8xi32>, %arg18: tensor<2x8xi32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]['bf']"}, tensor<64xf32> {jax.result_info = "result[1]['block']['b1']"}, tensor<32xf32> {jax.result_info = "result[1]['block']['b1n']"}, tensor<32xf32> {jax.result_info = "result[1]['block']['b2']"}, tensor<32xf32> {jax.result_info = "result[1]['block']['b2n']"}, tensor<32xf32> {jax.result_info = "result[1]['block']['bo']"}, tensor<96xf32> {jax.result_info = "result[1]['block']['bqkv']"}, tensor<32xf32> {jax.result_info = "result[1]['block']['g1']"}, tensor<32xf32> {jax.result_info = "result[1]['block']['g2']"}, tensor<32x64xf32> {jax.result_info = "result[1]['block']['w1']"}, tensor<64x32xf32> {jax.result_info = "result[1]['block']['w2']"}, tensor<32x32xf32> {jax.result_info = "result[1]['block']['wo']"}, tensor<32x96xf32> {jax.result_info = "result[1]['block']['wqkv']"}, tensor<64x32xf32> {jax.result_info = "result[1]['emb']"}, tensor<32xf32> {jax.result_info = "result[1]['gf']"}, tensor<32x64xf32> {jax.result_info = "result[1]['head']"}, tensor<8x32xf32> {jax.result_info = "result[1]['pos']"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x8xi32>
    %1 = stablehlo.compare LT, %arg17, %0, SIGNED : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
    %c_0 = stablehlo.constant dense<64> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x8xi32>
    %3 = stablehlo.add %arg17, %2 : tensor<2x8xi32>
    %4 = stablehlo.select %1, %3, %arg17 : tensor<2x8xi1>, tensor<2x8xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x8xi32>) -> tensor<2x8x1xi32>
    %6 = "stablehlo.gather"(%arg13, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 32>}> : (tensor<64x32xf32>, tensor<2x8x1xi32>) -> tensor<2x8x32xf32>
    %7 = stablehlo.broadcast_in_dim %arg16, dims = [1, 2] : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x8x32xf32>) -> tensor<2x8x32xf32>
    %9 = stablehlo.add %6, %8 : tensor<2x8x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_1 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %13 = stablehlo.divide %11, %12 : tensor<2x8x1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %15 = stablehlo.subtract %9, %14 : tensor<2x8x32xf32>
    %16 = stablehlo.multiply %15, %15 : tensor<2x8x32xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x8x32xf32>
    %18 = stablehlo.multiply %17, %15 : tensor<2x8x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%16 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %22 = stablehlo.divide %20, %21 : tensor<2x8x1xf32>
    %23 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %24 = stablehlo.subtract %9, %23 : tensor<2x8x32xf32>
    %cst_5 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %26 = stablehlo.add %22, %25 : tensor<2x8x1xf32>
    %27 = stablehlo.rsqrt %26 : tensor<2x8x1xf32>
    %28 = stablehlo.divide %27, %26 : tensor<2x8x1xf32>
    %cst_6 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %30 = stablehlo.multiply %29, %28 : tensor<2x8x1xf32>
    %31 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %32 = stablehlo.multiply %24, %31 : tensor<2x8x32xf32>
    %33 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %35 = stablehlo.multiply %32, %34 : tensor<2x8x32xf32>
    %36 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %38 = stablehlo.add %35, %37 : tensor<2x8x32xf32>
    %39 = stablehlo.dot_general %38, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x96xf32>) -> tensor<2x8x96xf32>
    %40 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2] : (tensor<1x1x96xf32>) -> tensor<2x8x96xf32>
    %42 = stablehlo.add %39, %41 : tensor<2x8x96xf32>
    %43 = stablehlo.slice %42 [0:2, 0:8, 0:32] : (tensor<2x8x96xf32>) -> tensor<2x8x32xf32>
    %44 = stablehlo.slice %42 [0:2, 0:8, 32:64] : (tensor<2x8x96xf32>) -> tensor<2x8x32xf32>
    %45 = stablehlo.slice %42 [0:2, 0:8, 64:96] : (tensor<2x8x96xf32>) -> tensor<2x8x32xf32>
    %46 = stablehlo.reshape %43 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %47 = stablehlo.transpose %46, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %48 = stablehlo.reshape %44 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %49 = stablehlo.transpose %48, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %50 = stablehlo.reshape %45 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %51 = stablehlo.transpose %50, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %52 = stablehlo.dot_general %47, %49, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %cst_7 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %54 = stablehlo.divide %52, %53 : tensor<2x4x8x8xf32>
    %c_8 = stablehlo.constant dense<true> : tensor<i1>
    %55 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %56 = call @tril(%55) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %cst_9 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %57:2 = call @_where(%56, %54, %cst_9) : (tensor<8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>)
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %58 = stablehlo.reduce(%57#0 init: %cst_10) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x4x8xf32>
    %60 = stablehlo.maximum %59, %58 : tensor<2x4x8xf32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %63 = stablehlo.subtract %57#0, %62 : tensor<2x4x8x8xf32>
    %64 = stablehlo.exponential %63 : tensor<2x4x8x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_12) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %67 = stablehlo.broadcast_in_dim %66, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %68 = stablehlo.divide %64, %67 : tensor<2x4x8x8xf32>
    %69 = stablehlo.multiply %66, %66 : tensor<2x4x8x1xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x4x8x1xf32>
    %71 = stablehlo.divide %70, %69 : tensor<2x4x8x1xf32>
    %72 = stablehlo.dot_general %68, %51, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %73 = stablehlo.transpose %72, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %74 = stablehlo.reshape %73 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %75 = stablehlo.dot_general %74, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %76 = stablehlo.add %9, %75 : tensor<2x8x32xf32>
    %77 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %79 = stablehlo.add %76, %78 : tensor<2x8x32xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %80 = stablehlo.reduce(%79 init: %cst_14) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_15 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %83 = stablehlo.divide %81, %82 : tensor<2x8x1xf32>
    %84 = stablehlo.broadcast_in_dim %83, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %85 = stablehlo.subtract %79, %84 : tensor<2x8x32xf32>
    %86 = stablehlo.multiply %85, %85 : tensor<2x8x32xf32>
    %cst_16 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x8x32xf32>
    %88 = stablehlo.multiply %87, %85 : tensor<2x8x32xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.reduce(%86 init: %cst_17) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %90 = stablehlo.broadcast_in_dim %89, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_18 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %92 = stablehlo.divide %90, %91 : tensor<2x8x1xf32>
    %93 = stablehlo.broadcast_in_dim %83, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %94 = stablehlo.subtract %79, %93 : tensor<2x8x32xf32>
    %cst_19 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %96 = stablehlo.add %92, %95 : tensor<2x8x1xf32>
    %97 = stablehlo.rsqrt %96 : tensor<2x8x1xf32>
    %98 = stablehlo.divide %97, %96 : tensor<2x8x1xf32>
    %cst_20 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %100 = stablehlo.multiply %99, %98 : tensor<2x8x1xf32>
    %101 = stablehlo.broadcast_in_dim %97, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %102 = stablehlo.multiply %94, %101 : tensor<2x8x32xf32>
    %103 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %105 = stablehlo.multiply %102, %104 : tensor<2x8x32xf32>
    %106 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %107 = stablehlo.broadcast_in_dim %106, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %108 = stablehlo.add %105, %107 : tensor<2x8x32xf32>
    %109 = stablehlo.dot_general %108, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %110 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %111 = stablehlo.broadcast_in_dim %110, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x8x64xf32>
    %112 = stablehlo.add %109, %111 : tensor<2x8x64xf32>
    %cst_21 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %114 = stablehlo.multiply %113, %112 : tensor<2x8x64xf32>
    %115 = stablehlo.multiply %112, %112 : tensor<2x8x64xf32>
    %116 = stablehlo.multiply %115, %112 : tensor<2x8x64xf32>
    %117 = stablehlo.multiply %112, %112 : tensor<2x8x64xf32>
    %cst_22 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %118 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %119 = stablehlo.multiply %118, %117 : tensor<2x8x64xf32>
    %cst_23 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %121 = stablehlo.multiply %120, %116 : tensor<2x8x64xf32>
    %122 = stablehlo.add %112, %121 : tensor<2x8x64xf32>
    %cst_24 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %124 = stablehlo.multiply %123, %122 : tensor<2x8x64xf32>
    %125 = stablehlo.tanh %124 : tensor<2x8x64xf32>
    %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %127 = stablehlo.subtract %126, %125 : tensor<2x8x64xf32>
    %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %128 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %129 = stablehlo.add %128, %125 : tensor<2x8x64xf32>
    %130 = stablehlo.multiply %114, %129 : tensor<2x8x64xf32>
    %131 = stablehlo.dot_general %130, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %132 = stablehlo.add %79, %131 : tensor<2x8x32xf32>
    %133 = stablehlo.broadcast_in_dim %arg3, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %135 = stablehlo.add %132, %134 : tensor<2x8x32xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %136 = stablehlo.reduce(%135 init: %cst_27) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %137 = stablehlo.broadcast_in_dim %136, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_28 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %139 = stablehlo.divide %137, %138 : tensor<2x8x1xf32>
    %140 = stablehlo.broadcast_in_dim %139, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %141 = stablehlo.subtract %135, %140 : tensor<2x8x32xf32>
    %142 = stablehlo.multiply %141, %141 : tensor<2x8x32xf32>
    %cst_29 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %143 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<2x8x32xf32>
    %144 = stablehlo.multiply %143, %141 : tensor<2x8x32xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %145 = stablehlo.reduce(%142 init: %cst_30) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %146 = stablehlo.broadcast_in_dim %145, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_31 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %148 = stablehlo.divide %146, %147 : tensor<2x8x1xf32>
    %149 = stablehlo.broadcast_in_dim %139, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %150 = stablehlo.subtract %135, %149 : tensor<2x8x32xf32>
    %cst_32 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %152 = stablehlo.add %148, %151 : tensor<2x8x1xf32>
    %153 = stablehlo.rsqrt %152 : tensor<2x8x1xf32>
    %154 = stablehlo.divide %153, %152 : tensor<2x8x1xf32>
    %cst_33 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %155 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %156 = stablehlo.multiply %155, %154 : tensor<2x8x1xf32>
    %157 = stablehlo.broadcast_in_dim %153, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %158 = stablehlo.multiply %150, %157 : tensor<2x8x32xf32>
    %159 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %160 = stablehlo.broadcast_in_dim %159, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %161 = stablehlo.multiply %158, %160 : tensor<2x8x32xf32>
    %162 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %163 = stablehlo.broadcast_in_dim %162, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %164 = stablehlo.add %161, %163 : tensor<2x8x32xf32>
    %165 = stablehlo.dot_general %164, %arg15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %166:3 = call @log_softmax(%165) : (tensor<2x8x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x1xf32>)
    %167 = stablehlo.broadcast_in_dim %arg18, dims = [0, 1] : (tensor<2x8xi32>) -> tensor<2x8x1xi32>
    %168:2 = call @take_along_axis(%166#0, %167) : (tensor<2x8x64xf32>, tensor<2x8x1xi32>) -> (tensor<2x8x1xf32>, tensor<2x8x1x1xi32>)
    %169 = stablehlo.reshape %168#0 : (tensor<2x8x1xf32>) -> tensor<2x8xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %170 = stablehlo.reduce(%169 init: %cst_34) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_35 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %171 = stablehlo.divide %170, %cst_35 : tensor<f32>
    %172 = stablehlo.negate %171 : tensor<f32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %173 = stablehlo.negate %cst_36 : tensor<f32>
    %cst_37 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %174 = stablehlo.divide %173, %cst_37 : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %174, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
    %176 = stablehlo.broadcast_in_dim %175, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %177 = call @take_along_axis_0(%168#1, %176) : (tensor<2x8x1x1xi32>, tensor<2x8x1xf32>) -> tensor<2x8x64xf32>
    %178 = call @log_softmax_1(%166#1, %166#2, %177) : (tensor<2x8x64xf32>, tensor<2x8x1xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
    %179 = stablehlo.dot_general %178, %164, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<2x8x32xf32>) -> tensor<64x32xf32>
    %180 = stablehlo.transpose %179, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %181 = stablehlo.dot_general %178, %arg15, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<32x64xf32>) -> tensor<2x8x32xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %182 = stablehlo.reduce(%181 init: %cst_38) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %183 = stablehlo.reshape %182 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %184 = stablehlo.reduce(%183 init: %cst_39) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %185 = stablehlo.multiply %158, %181 : tensor<2x8x32xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %186 = stablehlo.reduce(%185 init: %cst_40) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %187 = stablehlo.reshape %186 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %188 = stablehlo.broadcast_in_dim %159, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %189 = stablehlo.multiply %181, %188 : tensor<2x8x32xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %190 = stablehlo.reduce(%187 init: %cst_41) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %191 = stablehlo.multiply %150, %189 : tensor<2x8x32xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %192 = stablehlo.reduce(%191 init: %cst_42) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %193 = stablehlo.reshape %192 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %194 = stablehlo.broadcast_in_dim %153, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %195 = stablehlo.multiply %189, %194 : tensor<2x8x32xf32>
    %196 = stablehlo.multiply %193, %156 : tensor<2x8x1xf32>
    %197 = stablehlo.negate %195 : tensor<2x8x32xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %198 = stablehlo.reduce(%197 init: %cst_43) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %199 = stablehlo.reshape %198 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_44 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %201 = stablehlo.divide %196, %200 : tensor<2x8x1xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %202 = stablehlo.reduce(%201 init: %cst_45) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %203 = stablehlo.broadcast_in_dim %202, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %204 = stablehlo.multiply %203, %144 : tensor<2x8x32xf32>
    %205 = stablehlo.negate %204 : tensor<2x8x32xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %206 = stablehlo.reduce(%205 init: %cst_46) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %207 = stablehlo.reshape %206 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %208 = stablehlo.add %195, %204 : tensor<2x8x32xf32>
    %209 = stablehlo.add %199, %207 : tensor<2x8x1xf32>
    %cst_47 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %210 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %211 = stablehlo.divide %209, %210 : tensor<2x8x1xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %212 = stablehlo.reduce(%211 init: %cst_48) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %213 = stablehlo.broadcast_in_dim %212, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %214 = stablehlo.add %208, %213 : tensor<2x8x32xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %215 = stablehlo.reduce(%214 init: %cst_49) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %216 = stablehlo.reshape %215 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %217 = stablehlo.reduce(%216 init: %cst_50) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %218 = stablehlo.dot_general %214, %130, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x64xf32>) -> tensor<32x64xf32>
    %219 = stablehlo.transpose %218, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>
    %220 = stablehlo.dot_general %214, %arg10, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<64x32xf32>) -> tensor<2x8x64xf32>
    %221 = stablehlo.multiply %114, %220 : tensor<2x8x64xf32>
    %222 = stablehlo.multiply %220, %129 : tensor<2x8x64xf32>
    %223 = stablehlo.multiply %221, %127 : tensor<2x8x64xf32>
    %224 = stablehlo.multiply %223, %125 : tensor<2x8x64xf32>
    %225 = stablehlo.add %223, %224 : tensor<2x8x64xf32>
    %cst_51 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %226 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %227 = stablehlo.multiply %226, %225 : tensor<2x8x64xf32>
    %cst_52 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %228 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %229 = stablehlo.multiply %228, %227 : tensor<2x8x64xf32>
    %230 = stablehlo.multiply %229, %119 : tensor<2x8x64xf32>
    %231 = stablehlo.add %227, %230 : tensor<2x8x64xf32>
    %cst_53 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %232 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %233 = stablehlo.multiply %232, %222 : tensor<2x8x64xf32>
    %234 = stablehlo.add %231, %233 : tensor<2x8x64xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %235 = stablehlo.reduce(%234 init: %cst_54) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x64xf32>, tensor<f32>) -> tensor<64xf32>
    %236 = stablehlo.reshape %235 : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %237 = stablehlo.reduce(%236 init: %cst_55) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %238 = stablehlo.dot_general %234, %108, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<2x8x32xf32>) -> tensor<64x32xf32>
    %239 = stablehlo.transpose %238, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %240 = stablehlo.dot_general %234, %arg9, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<32x64xf32>) -> tensor<2x8x32xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %241 = stablehlo.reduce(%240 init: %cst_56) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %242 = stablehlo.reshape %241 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_57 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %243 = stablehlo.reduce(%242 init: %cst_57) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %244 = stablehlo.multiply %102, %240 : tensor<2x8x32xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %245 = stablehlo.reduce(%244 init: %cst_58) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %246 = stablehlo.reshape %245 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %247 = stablehlo.broadcast_in_dim %103, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %248 = stablehlo.multiply %240, %247 : tensor<2x8x32xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %249 = stablehlo.reduce(%246 init: %cst_59) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %250 = stablehlo.multiply %94, %248 : tensor<2x8x32xf32>
    %cst_60 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %251 = stablehlo.reduce(%250 init: %cst_60) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %252 = stablehlo.reshape %251 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %253 = stablehlo.broadcast_in_dim %97, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %254 = stablehlo.multiply %248, %253 : tensor<2x8x32xf32>
    %255 = stablehlo.multiply %252, %100 : tensor<2x8x1xf32>
    %256 = stablehlo.negate %254 : tensor<2x8x32xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %257 = stablehlo.reduce(%256 init: %cst_61) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %258 = stablehlo.reshape %257 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %259 = stablehlo.add %214, %254 : tensor<2x8x32xf32>
    %cst_62 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %260 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %261 = stablehlo.divide %255, %260 : tensor<2x8x1xf32>
    %cst_63 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %262 = stablehlo.reduce(%261 init: %cst_63) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %263 = stablehlo.broadcast_in_dim %262, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %264 = stablehlo.multiply %263, %88 : tensor<2x8x32xf32>
    %265 = stablehlo.negate %264 : tensor<2x8x32xf32>
    %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %266 = stablehlo.reduce(%265 init: %cst_64) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %267 = stablehlo.reshape %266 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %268 = stablehlo.add %259, %264 : tensor<2x8x32xf32>
    %269 = stablehlo.add %258, %267 : tensor<2x8x1xf32>
    %cst_65 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %270 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %271 = stablehlo.divide %269, %270 : tensor<2x8x1xf32>
    %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %272 = stablehlo.reduce(%271 init: %cst_66) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %273 = stablehlo.broadcast_in_dim %272, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %274 = stablehlo.add %268, %273 : tensor<2x8x32xf32>
    %cst_67 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %275 = stablehlo.reduce(%274 init: %cst_67) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %276 = stablehlo.reshape %275 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_68 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %277 = stablehlo.reduce(%276 init: %cst_68) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %278 = stablehlo.dot_general %274, %74, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<32x32xf32>
    %279 = stablehlo.transpose %278, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %280 = stablehlo.dot_general %274, %arg11, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %281 = stablehlo.reshape %280 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %282 = stablehlo.transpose %281, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %283 = stablehlo.dot_general %282, %68, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %284 = stablehlo.transpose %283, dims = [0, 1, 3, 2] : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %285 = stablehlo.dot_general %282, %51, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %286 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %287 = stablehlo.multiply %285, %286 : tensor<2x4x8x8xf32>
    %288 = stablehlo.multiply %287, %64 : tensor<2x4x8x8xf32>
    %cst_69 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %289 = stablehlo.reduce(%288 init: %cst_69) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %290 = stablehlo.reshape %289 : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %291 = stablehlo.negate %290 : tensor<2x4x8x1xf32>
    %292 = stablehlo.broadcast_in_dim %66, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %293 = stablehlo.divide %285, %292 : tensor<2x4x8x8xf32>
    %cst_70 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %294 = stablehlo.reduce(%291 init: %cst_70) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x1xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %295 = stablehlo.broadcast_in_dim %294, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x8xf32>
    %296 = stablehlo.add %293, %295 : tensor<2x4x8x8xf32>
    %297 = stablehlo.multiply %296, %64 : tensor<2x4x8x8xf32>
    %298 = call @_where_2(%57#1, %297) : (tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %cst_71 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %299 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %300 = stablehlo.divide %298, %299 : tensor<2x4x8x8xf32>
    %301 = stablehlo.dot_general %300, %47, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %302 = stablehlo.dot_general %300, %49, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %303 = stablehlo.transpose %284, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %304 = stablehlo.reshape %303 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %305 = stablehlo.transpose %301, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %306 = stablehlo.reshape %305 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %307 = stablehlo.transpose %302, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %308 = stablehlo.reshape %307 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %309 = stablehlo.concatenate %308, %306, %304, dim = 2 : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x96xf32>
    %cst_72 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %310 = stablehlo.reduce(%309 init: %cst_72) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x96xf32>, tensor<f32>) -> tensor<96xf32>
    %311 = stablehlo.reshape %310 : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %312 = stablehlo.reduce(%311 init: %cst_73) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x96xf32>, tensor<f32>) -> tensor<96xf32>
    %313 = stablehlo.dot_general %309, %38, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x96xf32>, tensor<2x8x32xf32>) -> tensor<96x32xf32>
    %314 = stablehlo.transpose %313, dims = [1, 0] : (tensor<96x32xf32>) -> tensor<32x96xf32>
    %315 = stablehlo.dot_general %309, %arg12, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x96xf32>, tensor<32x96xf32>) -> tensor<2x8x32xf32>
    %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %316 = stablehlo.reduce(%315 init: %cst_74) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %317 = stablehlo.reshape %316 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %318 = stablehlo.reduce(%317 init: %cst_75) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %319 = stablehlo.multiply %32, %315 : tensor<2x8x32xf32>
    %cst_76 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %320 = stablehlo.reduce(%319 init: %cst_76) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %321 = stablehlo.reshape %320 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %322 = stablehlo.broadcast_in_dim %33, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %323 = stablehlo.multiply %315, %322 : tensor<2x8x32xf32>
    %cst_77 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %324 = stablehlo.reduce(%321 init: %cst_77) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %325 = stablehlo.multiply %24, %323 : tensor<2x8x32xf32>
    %cst_78 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %326 = stablehlo.reduce(%325 init: %cst_78) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %327 = stablehlo.reshape %326 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %328 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %329 = stablehlo.multiply %323, %328 : tensor<2x8x32xf32>
    %330 = stablehlo.multiply %327, %30 : tensor<2x8x1xf32>
    %331 = stablehlo.negate %329 : tensor<2x8x32xf32>
    %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %332 = stablehlo.reduce(%331 init: %cst_79) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %333 = stablehlo.reshape %332 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %334 = stablehlo.add %274, %329 : tensor<2x8x32xf32>
    %cst_80 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %335 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %336 = stablehlo.divide %330, %335 : tensor<2x8x1xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %337 = stablehlo.reduce(%336 init: %cst_81) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %338 = stablehlo.broadcast_in_dim %337, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %339 = stablehlo.multiply %338, %18 : tensor<2x8x32xf32>
    %340 = stablehlo.negate %339 : tensor<2x8x32xf32>
    %cst_82 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %341 = stablehlo.reduce(%340 init: %cst_82) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %342 = stablehlo.reshape %341 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %343 = stablehlo.add %334, %339 : tensor<2x8x32xf32>
    %344 = stablehlo.add %333, %342 : tensor<2x8x1xf32>
    %cst_83 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %345 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %346 = stablehlo.divide %344, %345 : tensor<2x8x1xf32>
    %cst_84 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %347 = stablehlo.reduce(%346 init: %cst_84) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %348 = stablehlo.broadcast_in_dim %347, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %349 = stablehlo.add %343, %348 : tensor<2x8x32xf32>
    %cst_85 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %350 = stablehlo.reduce(%349 init: %cst_85) applies stablehlo.add across dimensions = [0] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
    %351 = stablehlo.reshape %350 : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
    %cst_86 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %352 = stablehlo.reduce(%351 init: %cst_86) applies stablehlo.add across dimensions = [0] : (tensor<1x8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
    %cst_87 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %353 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %354 = "stablehlo.scatter"(%353, %5, %349) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %406 = stablehlo.add %arg19, %arg20 : tensor<f32>
      stablehlo.return %406 : tensor<f32>
    }) : (tensor<64x32xf32>, tensor<2x8x1xi32>, tensor<2x8x32xf32>) -> tensor<64x32xf32>
    %cst_88 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %355 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %356 = stablehlo.multiply %355, %184 : tensor<32xf32>
    %357 = stablehlo.subtract %arg0, %356 : tensor<32xf32>
    %cst_89 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %358 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %359 = stablehlo.multiply %358, %237 : tensor<64xf32>
    %360 = stablehlo.subtract %arg1, %359 : tensor<64xf32>
    %cst_90 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %361 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %362 = stablehlo.multiply %361, %318 : tensor<32xf32>
    %363 = stablehlo.subtract %arg2, %362 : tensor<32xf32>
    %cst_91 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %364 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %365 = stablehlo.multiply %364, %217 : tensor<32xf32>
    %366 = stablehlo.subtract %arg3, %365 : tensor<32xf32>
    %cst_92 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %367 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %368 = stablehlo.multiply %367, %243 : tensor<32xf32>
    %369 = stablehlo.subtract %arg4, %368 : tensor<32xf32>
    %cst_93 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %370 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %371 = stablehlo.multiply %370, %277 : tensor<32xf32>
    %372 = stablehlo.subtract %arg5, %371 : tensor<32xf32>
    %cst_94 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %373 = stablehlo.broadcast_in_dim %cst_94, dims = [] : (tensor<f32>) -> tensor<96xf32>
    %374 = stablehlo.multiply %373, %312 : tensor<96xf32>
    %375 = stablehlo.subtract %arg6, %374 : tensor<96xf32>
    %cst_95 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %376 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %377 = stablehlo.multiply %376, %324 : tensor<32xf32>
    %378 = stablehlo.subtract %arg7, %377 : tensor<32xf32>
    %cst_96 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %379 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %380 = stablehlo.multiply %379, %249 : tensor<32xf32>
    %381 = stablehlo.subtract %arg8, %380 : tensor<32xf32>
    %cst_97 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %382 = stablehlo.broadcast_in_dim %cst_97, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %383 = stablehlo.multiply %382, %239 : tensor<32x64xf32>
    %384 = stablehlo.subtract %arg9, %383 : tensor<32x64xf32>
    %cst_98 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %385 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %386 = stablehlo.multiply %385, %219 : tensor<64x32xf32>
    %387 = stablehlo.subtract %arg10, %386 : tensor<64x32xf32>
    %cst_99 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %388 = stablehlo.broadcast_in_dim %cst_99, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %389 = stablehlo.multiply %388, %279 : tensor<32x32xf32>
    %390 = stablehlo.subtract %arg11, %389 : tensor<32x32xf32>
    %cst_100 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %391 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<32x96xf32>
    %392 = stablehlo.multiply %391, %314 : tensor<32x96xf32>
    %393 = stablehlo.subtract %arg12, %392 : tensor<32x96xf32>
    %cst_101 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %394 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %395 = stablehlo.multiply %394, %354 : tensor<64x32xf32>
    %396 = stablehlo.subtract %arg13, %395 : tensor<64x32xf32>
    %cst_102 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %397 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %398 = stablehlo.multiply %397, %190 : tensor<32xf32>
    %399 = stablehlo.subtract %arg14, %398 : tensor<32xf32>
    %cst_103 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %400 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %401 = stablehlo.multiply %400, %180 : tensor<32x64xf32>
    %402 = stablehlo.subtract %arg15, %401 : tensor<32x64xf32>
    %cst_104 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %403 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %404 = stablehlo.multiply %403, %352 : tensor<8x32xf32>
    %405 = stablehlo.subtract %arg16, %404 : tensor<8x32xf32>
    return %172, %357, %360, %363, %366, %369, %372, %375, %378, %381, %384, %387, %390, %393, %396, %399, %402, %405 : tensor<f32>, tensor<32xf32>, tensor<64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<96xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64x32xf32>, tensor<32x32xf32>, tensor<32x96xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<8x32xf32>
  }
  func.func private @tril(%arg0: tensor<8x8xi1>) -> tensor<8x8xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %2 = stablehlo.add %0, %1 : tensor<8x8xi32>
    %3 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<8x8xi1>, tensor<8x8xi1>
    return %6 : tensor<8x8xi1>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<2x4x8x8xf32>, %arg2: tensor<f32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>) {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x4x8x8xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    return %3, %1 : tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>
  }
  func.func private @log_softmax(%arg0: tensor<2x8x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x64xf32>, tensor<f32>) -> tensor<2x8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<2x8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x64xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x8x64xf32>
    %6 = stablehlo.exponential %5 : tensor<2x8x64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x8x64xf32>, tensor<f32>) -> tensor<2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %9 = stablehlo.log %8 : tensor<2x8x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x64xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<2x8x64xf32>
    return %11, %6, %8 : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x1xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<2x8x64xf32>, %arg1: tensor<2x8x1xi32>) -> (tensor<2x8x1xf32>, tensor<2x8x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x8x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<2x8x1xi32>, tensor<2x8x1xi32>) -> tensor<2x8x1xi1>
    %c_0 = stablehlo.constant dense<64> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x8x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<2x8x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<2x8x1xi1>, tensor<2x8x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<2x8x1xi32>) -> tensor<2x8x1x1xi32>
    %c_1 = stablehlo.constant dense<63> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x8x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<2x8x1x1xi32>, tensor<2x8x1x1xi32>) -> tensor<2x8x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [3] : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x1xi32>) -> tensor<2x8x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<2x8x1x1xi32>, tensor<2x8x1x1xi32>) -> tensor<2x8x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<2x8x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [3] : (tensor<2x8x1x1xi1>, tensor<i1>) -> tensor<2x8x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x8x64xf32>, tensor<2x8x1x1xi32>) -> tensor<2x8x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<2x8x1xi1>, tensor<2x8x1xf32>
    return %15, %5 : tensor<2x8x1xf32>, tensor<2x8x1x1xi32>
  }
  func.func private @take_along_axis_0(%arg0: tensor<2x8x1x1xi32>, %arg1: tensor<2x8x1xf32>) -> tensor<2x8x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2x8x64xf32>, tensor<2x8x1x1xi32>, tensor<2x8x1xf32>) -> tensor<2x8x64xf32>
    return %1 : tensor<2x8x64xf32>
  }
  func.func private @log_softmax_1(%arg0: tensor<2x8x64xf32>, %arg1: tensor<2x8x1xf32>, %arg2: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
    %0 = stablehlo.negate %arg2 : tensor<2x8x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x8x64xf32>, tensor<f32>) -> tensor<2x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<2x8x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x64xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<2x8x64xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<2x8x64xf32>
    return %7 : tensor<2x8x64xf32>
  }
  func.func private @_where_2(%arg0: tensor<2x4x8x8xi1>, %arg1: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    return %1 : tensor<2x4x8x8xf32>
  }
}
