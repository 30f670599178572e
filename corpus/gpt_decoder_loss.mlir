module @jit_gpt_decoder_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<64xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<96xf32>, %arg7: tensor<32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32x64xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<32x32xf32>, %arg12: tensor<32x96xf32>, %arg13: tensor<64x32xf32>, %arg14: tensor<32xf32>, %arg15: tensor<32x64xf32>, %arg16: tensor<8x32xf32>, %arg17: tensor<2x8xi32>, %arg18: tensor<2x8xi32>) -> (tensor<f32> {jax.result_info = "result"}) {
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
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %20 = stablehlo.divide %18, %19 : tensor<2x8x1xf32>
    %21 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %22 = stablehlo.subtract %9, %21 : tensor<2x8x32xf32>
    %cst_4 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %24 = stablehlo.add %20, %23 : tensor<2x8x1xf32>
    %25 = stablehlo.rsqrt %24 : tensor<2x8x1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %27 = stablehlo.multiply %22, %26 : tensor<2x8x32xf32>
    %28 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %30 = stablehlo.multiply %27, %29 : tensor<2x8x32xf32>
    %31 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %33 = stablehlo.add %30, %32 : tensor<2x8x32xf32>
    %34 = stablehlo.dot_general %33, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x96xf32>) -> tensor<2x8x96xf32>
    %35 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1, 2] : (tensor<1x1x96xf32>) -> tensor<2x8x96xf32>
    %37 = stablehlo.add %34, %36 : tensor<2x8x96xf32>
    %38 = stablehlo.slice %37 [0:2, 0:8, 0:32] : (tensor<2x8x96xf32>) -> tensor<2x8x32xf32>
    %39 = stablehlo.slice %37 [0:2, 0:8, 32:64] : (tensor<2x8x96xf32>) -> tensor<2x8x32xf32>
    %40 = stablehlo.slice %37 [0:2, 0:8, 64:96] : (tensor<2x8x96xf32>) -> tensor<2x8x32xf32>
    %41 = stablehlo.reshape %38 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %42 = stablehlo.transpose %41, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %43 = stablehlo.reshape %39 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %44 = stablehlo.transpose %43, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %45 = stablehlo.reshape %40 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %46 = stablehlo.transpose %45, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %47 = stablehlo.dot_general %42, %44, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %cst_5 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %49 = stablehlo.divide %47, %48 : tensor<2x4x8x8xf32>
    %c_6 = stablehlo.constant dense<true> : tensor<i1>
    %50 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %51 = call @tril(%50) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %cst_7 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %52 = call @_where(%51, %49, %cst_7) : (tensor<8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8x8xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %53 = stablehlo.reduce(%52 init: %cst_8) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %cst_9 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x4x8xf32>
    %55 = stablehlo.maximum %54, %53 : tensor<2x4x8xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %58 = stablehlo.subtract %52, %57 : tensor<2x4x8x8xf32>
    %59 = stablehlo.exponential %58 : tensor<2x4x8x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %60 = stablehlo.reduce(%59 init: %cst_10) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %63 = stablehlo.divide %59, %62 : tensor<2x4x8x8xf32>
    %64 = stablehlo.dot_general %63, %46, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %65 = stablehlo.transpose %64, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %66 = stablehlo.reshape %65 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %67 = stablehlo.dot_general %66, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %68 = stablehlo.add %9, %67 : tensor<2x8x32xf32>
    %69 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %71 = stablehlo.add %68, %70 : tensor<2x8x32xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_11) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_12 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %75 = stablehlo.divide %73, %74 : tensor<2x8x1xf32>
    %76 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %77 = stablehlo.subtract %71, %76 : tensor<2x8x32xf32>
    %78 = stablehlo.multiply %77, %77 : tensor<2x8x32xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %79 = stablehlo.reduce(%78 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %80 = stablehlo.broadcast_in_dim %79, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_14 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %82 = stablehlo.divide %80, %81 : tensor<2x8x1xf32>
    %83 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %84 = stablehlo.subtract %71, %83 : tensor<2x8x32xf32>
    %cst_15 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %86 = stablehlo.add %82, %85 : tensor<2x8x1xf32>
    %87 = stablehlo.rsqrt %86 : tensor<2x8x1xf32>
    %88 = stablehlo.broadcast_in_dim %87, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %89 = stablehlo.multiply %84, %88 : tensor<2x8x32xf32>
    %90 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %91 = stablehlo.broadcast_in_dim %90, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %92 = stablehlo.multiply %89, %91 : tensor<2x8x32xf32>
    %93 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %94 = stablehlo.broadcast_in_dim %93, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %95 = stablehlo.add %92, %94 : tensor<2x8x32xf32>
    %96 = stablehlo.dot_general %95, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %97 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %98 = stablehlo.broadcast_in_dim %97, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x8x64xf32>
    %99 = stablehlo.add %96, %98 : tensor<2x8x64xf32>
    %cst_16 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<2x8x64xf32>
    %102 = stablehlo.multiply %99, %99 : tensor<2x8x64xf32>
    %103 = stablehlo.multiply %102, %99 : tensor<2x8x64xf32>
    %cst_17 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %105 = stablehlo.multiply %104, %103 : tensor<2x8x64xf32>
    %106 = stablehlo.add %99, %105 : tensor<2x8x64xf32>
    %cst_18 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %107 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %108 = stablehlo.multiply %107, %106 : tensor<2x8x64xf32>
    %109 = stablehlo.tanh %108 : tensor<2x8x64xf32>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %111 = stablehlo.add %110, %109 : tensor<2x8x64xf32>
    %112 = stablehlo.multiply %101, %111 : tensor<2x8x64xf32>
    %113 = stablehlo.dot_general %112, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %114 = stablehlo.add %71, %113 : tensor<2x8x32xf32>
    %115 = stablehlo.broadcast_in_dim %arg3, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %117 = stablehlo.add %114, %116 : tensor<2x8x32xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%117 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %119 = stablehlo.broadcast_in_dim %118, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_21 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %121 = stablehlo.divide %119, %120 : tensor<2x8x1xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %123 = stablehlo.subtract %117, %122 : tensor<2x8x32xf32>
    %124 = stablehlo.multiply %123, %123 : tensor<2x8x32xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %125 = stablehlo.reduce(%124 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %126 = stablehlo.broadcast_in_dim %125, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_23 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %128 = stablehlo.divide %126, %127 : tensor<2x8x1xf32>
    %129 = stablehlo.broadcast_in_dim %121, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %130 = stablehlo.subtract %117, %129 : tensor<2x8x32xf32>
    %cst_24 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %132 = stablehlo.add %128, %131 : tensor<2x8x1xf32>
    %133 = stablehlo.rsqrt %132 : tensor<2x8x1xf32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %135 = stablehlo.multiply %130, %134 : tensor<2x8x32xf32>
    %136 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %137 = stablehlo.broadcast_in_dim %136, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %138 = stablehlo.multiply %135, %137 : tensor<2x8x32xf32>
    %139 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %140 = stablehlo.broadcast_in_dim %139, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %141 = stablehlo.add %138, %140 : tensor<2x8x32xf32>
    %142 = stablehlo.dot_general %141, %arg15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %143 = call @log_softmax(%142) : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
    %144 = stablehlo.broadcast_in_dim %arg18, dims = [0, 1] : (tensor<2x8xi32>) -> tensor<2x8x1xi32>
    %145 = call @take_along_axis(%143, %144) : (tensor<2x8x64xf32>, tensor<2x8x1xi32>) -> tensor<2x8x1xf32>
    %146 = stablehlo.reshape %145 : (tensor<2x8x1xf32>) -> tensor<2x8xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %147 = stablehlo.reduce(%146 init: %cst_25) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_26 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %148 = stablehlo.divide %147, %cst_26 : tensor<f32>
    %149 = stablehlo.negate %148 : tensor<f32>
    return %149 : tensor<f32>
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
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<2x4x8x8xf32>, %arg2: tensor<f32>) -> tensor<2x4x8x8xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x4x8x8xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    return %3 : tensor<2x4x8x8xf32>
  }
  func.func private @log_softmax(%arg0: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
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
    return %11 : tensor<2x8x64xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<2x8x64xf32>, %arg1: tensor<2x8x1xi32>) -> tensor<2x8x1xf32> {
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
    return %15 : tensor<2x8x1xf32>
  }
}
