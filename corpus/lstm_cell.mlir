module @jit_lstm_cell attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<32x128xf32>, %arg2: tensor<32x128xf32>, %arg3: tensor<2x32xf32>, %arg4: tensor<2x32xf32>, %arg5: tensor<2x32xf32>) -> (tensor<2x32xf32> {jax.result_info = "result[0]"}, tensor<2x32xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg3, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<32x128xf32>) -> tensor<2x128xf32>
    %1 = stablehlo.dot_general %arg4, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<32x128xf32>) -> tensor<2x128xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x128xf32>
    %3 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<2x128xf32>
    %5 = stablehlo.add %2, %4 : tensor<2x128xf32>
    %6 = stablehlo.slice %5 [0:2, 0:32] : (tensor<2x128xf32>) -> tensor<2x32xf32>
    %7 = stablehlo.slice %5 [0:2, 32:64] : (tensor<2x128xf32>) -> tensor<2x32xf32>
    %8 = stablehlo.slice %5 [0:2, 64:96] : (tensor<2x128xf32>) -> tensor<2x32xf32>
    %9 = stablehlo.slice %5 [0:2, 96:128] : (tensor<2x128xf32>) -> tensor<2x32xf32>
    %10 = stablehlo.negate %7 : tensor<2x32xf32>
    %11 = stablehlo.exponential %10 : tensor<2x32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %13 = stablehlo.add %12, %11 : tensor<2x32xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %15 = stablehlo.divide %14, %13 : tensor<2x32xf32>
    %16 = stablehlo.multiply %15, %arg5 : tensor<2x32xf32>
    %17 = stablehlo.negate %6 : tensor<2x32xf32>
    %18 = stablehlo.exponential %17 : tensor<2x32xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %20 = stablehlo.add %19, %18 : tensor<2x32xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %22 = stablehlo.divide %21, %20 : tensor<2x32xf32>
    %23 = stablehlo.tanh %8 : tensor<2x32xf32>
    %24 = stablehlo.multiply %22, %23 : tensor<2x32xf32>
    %25 = stablehlo.add %16, %24 : tensor<2x32xf32>
    %26 = stablehlo.negate %9 : tensor<2x32xf32>
    %27 = stablehlo.exponential %26 : tensor<2x32xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %29 = stablehlo.add %28, %27 : tensor<2x32xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %31 = stablehlo.divide %30, %29 : tensor<2x32xf32>
    %32 = stablehlo.tanh %25 : tensor<2x32xf32>
    %33 = stablehlo.multiply %31, %32 : tensor<2x32xf32>
    return %33, %25 : tensor<2x32xf32>, tensor<2x32xf32>
  }
}
