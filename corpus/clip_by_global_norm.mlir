module @jit_clip_by_global_norm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32xf32>) -> (tensor<32x64xf32> {jax.result_info = "result[0]"}, tensor<64xf32> {jax.result_info = "result[1]"}, tensor<64x32xf32> {jax.result_info = "result[2]"}, tensor<32xf32> {jax.result_info = "result[3]"}, tensor<32x32xf32> {jax.result_info = "result[4]"}, tensor<32xf32> {jax.result_info = "result[5]"}, tensor<32xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<32x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.add %cst_0, %1 : tensor<f32>
    %3 = stablehlo.multiply %arg1, %arg1 : tensor<64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
    %5 = stablehlo.add %2, %4 : tensor<f32>
    %6 = stablehlo.multiply %arg2, %arg2 : tensor<64x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x32xf32>, tensor<f32>) -> tensor<f32>
    %8 = stablehlo.add %5, %7 : tensor<f32>
    %9 = stablehlo.multiply %arg3, %arg3 : tensor<32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
    %11 = stablehlo.add %8, %10 : tensor<f32>
    %12 = stablehlo.multiply %arg4, %arg4 : tensor<32x32xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_4) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x32xf32>, tensor<f32>) -> tensor<f32>
    %14 = stablehlo.add %11, %13 : tensor<f32>
    %15 = stablehlo.multiply %arg5, %arg5 : tensor<32xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
    %17 = stablehlo.add %14, %16 : tensor<f32>
    %18 = stablehlo.multiply %arg6, %arg6 : tensor<32xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
    %20 = stablehlo.add %17, %19 : tensor<f32>
    %21 = stablehlo.sqrt %20 : tensor<f32>
    %cst_7 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %22 = stablehlo.add %21, %cst_7 : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.divide %cst_8, %22 : tensor<f32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.minimum %cst_9, %23 : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %26 = stablehlo.multiply %arg0, %25 : tensor<32x64xf32>
    %27 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %28 = stablehlo.multiply %arg1, %27 : tensor<64xf32>
    %29 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %30 = stablehlo.multiply %arg2, %29 : tensor<64x32xf32>
    %31 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %32 = stablehlo.multiply %arg3, %31 : tensor<32xf32>
    %33 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %34 = stablehlo.multiply %arg4, %33 : tensor<32x32xf32>
    %35 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %36 = stablehlo.multiply %arg5, %35 : tensor<32xf32>
    %37 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %38 = stablehlo.multiply %arg6, %37 : tensor<32xf32>
    return %26, %28, %30, %32, %34, %36, %38 : tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>
  }
}
