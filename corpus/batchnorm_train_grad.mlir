module @jit_batchnorm_train_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<2x4x4x8xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x4x4x8xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.divide %0, %1 : tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x4x4x8xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x4x4x8xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<2x4x4x8xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x4x4x8xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<2x4x4x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %11 = stablehlo.divide %9, %10 : tensor<8xf32>
    %12 = stablehlo.broadcast_in_dim %2, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x4x4x8xf32>
    %14 = stablehlo.subtract %arg0, %13 : tensor<2x4x4x8xf32>
    %cst_4 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %16 = stablehlo.add %11, %15 : tensor<8xf32>
    %17 = stablehlo.rsqrt %16 : tensor<8xf32>
    %18 = stablehlo.divide %17, %16 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<8xf32>
    %21 = stablehlo.broadcast_in_dim %17, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x4x4x8xf32>
    %23 = stablehlo.multiply %14, %22 : tensor<2x4x4x8xf32>
    %24 = stablehlo.broadcast_in_dim %arg1, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x4x4x8xf32>
    %26 = stablehlo.multiply %23, %25 : tensor<2x4x4x8xf32>
    %27 = stablehlo.broadcast_in_dim %arg2, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x4x4x8xf32>
    %29 = stablehlo.add %26, %28 : tensor<2x4x4x8xf32>
    %30 = stablehlo.tanh %29 : tensor<2x4x4x8xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x4x4x8xf32>
    %32 = stablehlo.subtract %31, %30 : tensor<2x4x4x8xf32>
    %33 = stablehlo.multiply %30, %arg3 : tensor<2x4x4x8xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_7) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x4x4x8xf32>
    %36 = stablehlo.multiply %35, %arg3 : tensor<2x4x4x8xf32>
    %37 = stablehlo.multiply %36, %32 : tensor<2x4x4x8xf32>
    %38 = stablehlo.multiply %37, %30 : tensor<2x4x4x8xf32>
    %39 = stablehlo.add %37, %38 : tensor<2x4x4x8xf32>
    %40 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x4x4x8xf32>
    %41 = stablehlo.multiply %39, %40 : tensor<2x4x4x8xf32>
    %42 = stablehlo.multiply %14, %41 : tensor<2x4x4x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.reduce(%42 init: %cst_9) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %44 = stablehlo.reshape %43 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %45 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x4x4x8xf32>
    %46 = stablehlo.multiply %41, %45 : tensor<2x4x4x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.reduce(%44 init: %cst_10) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %48 = stablehlo.multiply %47, %20 : tensor<8xf32>
    %49 = stablehlo.negate %46 : tensor<2x4x4x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_11) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %51 = stablehlo.reshape %50 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.reduce(%51 init: %cst_12) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_13 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %54 = stablehlo.divide %48, %53 : tensor<8xf32>
    %55 = stablehlo.broadcast_in_dim %54, dims = [3] : (tensor<8xf32>) -> tensor<2x4x4x8xf32>
    %56 = stablehlo.multiply %55, %8 : tensor<2x4x4x8xf32>
    %57 = stablehlo.negate %56 : tensor<2x4x4x8xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %58 = stablehlo.reduce(%57 init: %cst_14) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %59 = stablehlo.reshape %58 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %60 = stablehlo.add %46, %56 : tensor<2x4x4x8xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.reduce(%59 init: %cst_15) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %62 = stablehlo.add %52, %61 : tensor<8xf32>
    %cst_16 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %64 = stablehlo.divide %62, %63 : tensor<8xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [3] : (tensor<8xf32>) -> tensor<2x4x4x8xf32>
    %66 = stablehlo.add %60, %65 : tensor<2x4x4x8xf32>
    return %34, %66 : tensor<f32>, tensor<2x4x4x8xf32>
  }
}
