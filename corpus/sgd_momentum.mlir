module @jit_sgd_momentum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32xf32>, %arg7: tensor<32x64xf32>, %arg8: tensor<64xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32x32xf32>, %arg12: tensor<32xf32>, %arg13: tensor<32xf32>, %arg14: tensor<32x64xf32>, %arg15: tensor<64xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<32xf32>, %arg18: tensor<32x32xf32>, %arg19: tensor<32xf32>, %arg20: tensor<32xf32>) -> (tensor<32x64xf32> {jax.result_info = "result[0][0]"}, tensor<64xf32> {jax.result_info = "result[0][1]"}, tensor<64x32xf32> {jax.result_info = "result[0][2]"}, tensor<32xf32> {jax.result_info = "result[0][3]"}, tensor<32x32xf32> {jax.result_info = "result[0][4]"}, tensor<32xf32> {jax.result_info = "result[0][5]"}, tensor<32xf32> {jax.result_info = "result[0][6]"}, tensor<32x64xf32> {jax.result_info = "result[1][0]"}, tensor<64xf32> {jax.result_info = "result[1][1]"}, tensor<64x32xf32> {jax.result_info = "result[1][2]"}, tensor<32xf32> {jax.result_info = "result[1][3]"}, tensor<32x32xf32> {jax.result_info = "result[1][4]"}, tensor<32xf32> {jax.result_info = "result[1][5]"}, tensor<32xf32> {jax.result_info = "result[1][6]"}) {
    %cst = stablehlo.constant dense<0.899999976> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %1 = stablehlo.multiply %0, %arg14 : tensor<32x64xf32>
    %2 = stablehlo.add %1, %arg7 : tensor<32x64xf32>
    %cst_0 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %4 = stablehlo.multiply %3, %arg0 : tensor<32x64xf32>
    %5 = stablehlo.add %2, %4 : tensor<32x64xf32>
    %cst_1 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<32x64xf32>
    %8 = stablehlo.subtract %arg0, %7 : tensor<32x64xf32>
    %cst_2 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %10 = stablehlo.multiply %9, %arg15 : tensor<64xf32>
    %11 = stablehlo.add %10, %arg8 : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %13 = stablehlo.multiply %12, %arg1 : tensor<64xf32>
    %14 = stablehlo.add %11, %13 : tensor<64xf32>
    %cst_4 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<64xf32>
    %17 = stablehlo.subtract %arg1, %16 : tensor<64xf32>
    %cst_5 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %19 = stablehlo.multiply %18, %arg16 : tensor<64x32xf32>
    %20 = stablehlo.add %19, %arg9 : tensor<64x32xf32>
    %cst_6 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %22 = stablehlo.multiply %21, %arg2 : tensor<64x32xf32>
    %23 = stablehlo.add %20, %22 : tensor<64x32xf32>
    %cst_7 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %25 = stablehlo.multiply %24, %23 : tensor<64x32xf32>
    %26 = stablehlo.subtract %arg2, %25 : tensor<64x32xf32>
    %cst_8 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %28 = stablehlo.multiply %27, %arg17 : tensor<32xf32>
    %29 = stablehlo.add %28, %arg10 : tensor<32xf32>
    %cst_9 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %31 = stablehlo.multiply %30, %arg3 : tensor<32xf32>
    %32 = stablehlo.add %29, %31 : tensor<32xf32>
    %cst_10 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %34 = stablehlo.multiply %33, %32 : tensor<32xf32>
    %35 = stablehlo.subtract %arg3, %34 : tensor<32xf32>
    %cst_11 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %37 = stablehlo.multiply %36, %arg18 : tensor<32x32xf32>
    %38 = stablehlo.add %37, %arg11 : tensor<32x32xf32>
    %cst_12 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %40 = stablehlo.multiply %39, %arg4 : tensor<32x32xf32>
    %41 = stablehlo.add %38, %40 : tensor<32x32xf32>
    %cst_13 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %43 = stablehlo.multiply %42, %41 : tensor<32x32xf32>
    %44 = stablehlo.subtract %arg4, %43 : tensor<32x32xf32>
    %cst_14 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %46 = stablehlo.multiply %45, %arg19 : tensor<32xf32>
    %47 = stablehlo.add %46, %arg12 : tensor<32xf32>
    %cst_15 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %49 = stablehlo.multiply %48, %arg5 : tensor<32xf32>
    %50 = stablehlo.add %47, %49 : tensor<32xf32>
    %cst_16 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %52 = stablehlo.multiply %51, %50 : tensor<32xf32>
    %53 = stablehlo.subtract %arg5, %52 : tensor<32xf32>
    %cst_17 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %55 = stablehlo.multiply %54, %arg20 : tensor<32xf32>
    %56 = stablehlo.add %55, %arg13 : tensor<32xf32>
    %cst_18 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %58 = stablehlo.multiply %57, %arg6 : tensor<32xf32>
    %59 = stablehlo.add %56, %58 : tensor<32xf32>
    %cst_19 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %61 = stablehlo.multiply %60, %59 : tensor<32xf32>
    %62 = stablehlo.subtract %arg6, %61 : tensor<32xf32>
    return %8, %17, %26, %35, %44, %53, %62, %5, %14, %23, %32, %41, %50, %59 : tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>
  }
}
