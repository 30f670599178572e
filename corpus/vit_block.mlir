module @jit_vit_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x3xf32>, %arg1: tensor<4x4x3x32xf32>, %arg2: tensor<1x1x32xf32>, %arg3: tensor<64xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32xf32>, %arg7: tensor<32xf32>, %arg8: tensor<96xf32>, %arg9: tensor<32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32x64xf32>, %arg12: tensor<64x32xf32>, %arg13: tensor<32x32xf32>, %arg14: tensor<32x96xf32>) -> (tensor<2x5x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x3xf32>, tensor<4x4x3x32xf32>) -> tensor<2x2x2x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<2x2x2x32xf32>) -> tensor<2x4x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x1x32xf32>
    %3 = stablehlo.concatenate %2, %1, dim = 1 : (tensor<2x1x32xf32>, tensor<2x4x32xf32>) -> tensor<2x5x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x5x32xf32>, tensor<f32>) -> tensor<2x5xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x5xf32>) -> tensor<2x5x1xf32>
    %cst_0 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x5x1xf32>
    %7 = stablehlo.divide %5, %6 : tensor<2x5x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x5x1xf32>) -> tensor<2x5x32xf32>
    %9 = stablehlo.subtract %3, %8 : tensor<2x5x32xf32>
    %10 = stablehlo.multiply %9, %9 : tensor<2x5x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x5x32xf32>, tensor<f32>) -> tensor<2x5xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x5xf32>) -> tensor<2x5x1xf32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x5x1xf32>
    %14 = stablehlo.divide %12, %13 : tensor<2x5x1xf32>
    %15 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x5x1xf32>) -> tensor<2x5x32xf32>
    %16 = stablehlo.subtract %3, %15 : tensor<2x5x32xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x5x1xf32>
    %18 = stablehlo.add %14, %17 : tensor<2x5x1xf32>
    %19 = stablehlo.rsqrt %18 : tensor<2x5x1xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<2x5x1xf32>) -> tensor<2x5x32xf32>
    %21 = stablehlo.multiply %16, %20 : tensor<2x5x32xf32>
    %22 = stablehlo.broadcast_in_dim %arg9, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x5x32xf32>
    %24 = stablehlo.multiply %21, %23 : tensor<2x5x32xf32>
    %25 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x5x32xf32>
    %27 = stablehlo.add %24, %26 : tensor<2x5x32xf32>
    %28 = stablehlo.dot_general %27, %arg14, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x5x32xf32>, tensor<32x96xf32>) -> tensor<2x5x96xf32>
    %29 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<96xf32>) -> tensor<1x1x96xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2] : (tensor<1x1x96xf32>) -> tensor<2x5x96xf32>
    %31 = stablehlo.add %28, %30 : tensor<2x5x96xf32>
    %32 = stablehlo.slice %31 [0:2, 0:5, 0:32] : (tensor<2x5x96xf32>) -> tensor<2x5x32xf32>
    %33 = stablehlo.slice %31 [0:2, 0:5, 32:64] : (tensor<2x5x96xf32>) -> tensor<2x5x32xf32>
    %34 = stablehlo.slice %31 [0:2, 0:5, 64:96] : (tensor<2x5x96xf32>) -> tensor<2x5x32xf32>
    %35 = stablehlo.reshape %32 : (tensor<2x5x32xf32>) -> tensor<2x5x4x8xf32>
    %36 = stablehlo.transpose %35, dims = [0, 2, 1, 3] : (tensor<2x5x4x8xf32>) -> tensor<2x4x5x8xf32>
    %37 = stablehlo.reshape %33 : (tensor<2x5x32xf32>) -> tensor<2x5x4x8xf32>
    %38 = stablehlo.transpose %37, dims = [0, 2, 1, 3] : (tensor<2x5x4x8xf32>) -> tensor<2x4x5x8xf32>
    %39 = stablehlo.reshape %34 : (tensor<2x5x32xf32>) -> tensor<2x5x4x8xf32>
    %40 = stablehlo.transpose %39, dims = [0, 2, 1, 3] : (tensor<2x5x4x8xf32>) -> tensor<2x4x5x8xf32>
    %41 = stablehlo.dot_general %36, %38, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x5x5xf32>
    %cst_4 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x4x5x5xf32>
    %43 = stablehlo.divide %41, %42 : tensor<2x4x5x5xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %44 = stablehlo.reduce(%43 init: %cst_5) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x5x5xf32>, tensor<f32>) -> tensor<2x4x5xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x4x5xf32>
    %46 = stablehlo.maximum %45, %44 : tensor<2x4x5xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2] : (tensor<2x4x5xf32>) -> tensor<2x4x5x1xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2, 3] : (tensor<2x4x5x1xf32>) -> tensor<2x4x5x5xf32>
    %49 = stablehlo.subtract %43, %48 : tensor<2x4x5x5xf32>
    %50 = stablehlo.exponential %49 : tensor<2x4x5x5xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.reduce(%50 init: %cst_7) applies stablehlo.add across dimensions = [3] : (tensor<2x4x5x5xf32>, tensor<f32>) -> tensor<2x4x5xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0, 1, 2] : (tensor<2x4x5xf32>) -> tensor<2x4x5x1xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1, 2, 3] : (tensor<2x4x5x1xf32>) -> tensor<2x4x5x5xf32>
    %54 = stablehlo.divide %50, %53 : tensor<2x4x5x5xf32>
    %55 = stablehlo.dot_general %54, %40, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x5x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
    %56 = stablehlo.transpose %55, dims = [0, 2, 1, 3] : (tensor<2x4x5x8xf32>) -> tensor<2x5x4x8xf32>
    %57 = stablehlo.reshape %56 : (tensor<2x5x4x8xf32>) -> tensor<2x5x32xf32>
    %58 = stablehlo.dot_general %57, %arg13, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x5x32xf32>, tensor<32x32xf32>) -> tensor<2x5x32xf32>
    %59 = stablehlo.add %3, %58 : tensor<2x5x32xf32>
    %60 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x5x32xf32>
    %62 = stablehlo.add %59, %61 : tensor<2x5x32xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.reduce(%62 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<2x5x32xf32>, tensor<f32>) -> tensor<2x5xf32>
    %64 = stablehlo.broadcast_in_dim %63, dims = [0, 1] : (tensor<2x5xf32>) -> tensor<2x5x1xf32>
    %cst_9 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x5x1xf32>
    %66 = stablehlo.divide %64, %65 : tensor<2x5x1xf32>
    %67 = stablehlo.broadcast_in_dim %66, dims = [0, 1, 2] : (tensor<2x5x1xf32>) -> tensor<2x5x32xf32>
    %68 = stablehlo.subtract %62, %67 : tensor<2x5x32xf32>
    %69 = stablehlo.multiply %68, %68 : tensor<2x5x32xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.reduce(%69 init: %cst_10) applies stablehlo.add across dimensions = [2] : (tensor<2x5x32xf32>, tensor<f32>) -> tensor<2x5xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1] : (tensor<2x5xf32>) -> tensor<2x5x1xf32>
    %cst_11 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x5x1xf32>
    %73 = stablehlo.divide %71, %72 : tensor<2x5x1xf32>
    %74 = stablehlo.broadcast_in_dim %66, dims = [0, 1, 2] : (tensor<2x5x1xf32>) -> tensor<2x5x32xf32>
    %75 = stablehlo.subtract %62, %74 : tensor<2x5x32xf32>
    %cst_12 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x5x1xf32>
    %77 = stablehlo.add %73, %76 : tensor<2x5x1xf32>
    %78 = stablehlo.rsqrt %77 : tensor<2x5x1xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2] : (tensor<2x5x1xf32>) -> tensor<2x5x32xf32>
    %80 = stablehlo.multiply %75, %79 : tensor<2x5x32xf32>
    %81 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x5x32xf32>
    %83 = stablehlo.multiply %80, %82 : tensor<2x5x32xf32>
    %84 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x5x32xf32>
    %86 = stablehlo.add %83, %85 : tensor<2x5x32xf32>
    %87 = stablehlo.dot_general %86, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x5x32xf32>, tensor<32x64xf32>) -> tensor<2x5x64xf32>
    %88 = stablehlo.broadcast_in_dim %arg3, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x5x64xf32>
    %90 = stablehlo.add %87, %89 : tensor<2x5x64xf32>
    %cst_13 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x5x64xf32>
    %92 = stablehlo.multiply %91, %90 : tensor<2x5x64xf32>
    %93 = stablehlo.negate %90 : tensor<2x5x64xf32>
    %cst_14 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x5x64xf32>
    %95 = stablehlo.multiply %93, %94 : tensor<2x5x64xf32>
    %96 = chlo.erfc %95 : tensor<2x5x64xf32> -> tensor<2x5x64xf32>
    %97 = stablehlo.multiply %92, %96 : tensor<2x5x64xf32>
    %98 = stablehlo.dot_general %97, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x5x64xf32>, tensor<64x32xf32>) -> tensor<2x5x32xf32>
    %99 = stablehlo.add %62, %98 : tensor<2x5x32xf32>
    %100 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %101 = stablehlo.broadcast_in_dim %100, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x5x32xf32>
    %102 = stablehlo.add %99, %101 : tensor<2x5x32xf32>
    return %102 : tensor<2x5x32xf32>
  }
}
