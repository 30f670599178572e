module @jit_mlp_bf16 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xbf16>, %arg1: tensor<32x64xbf16>, %arg2: tensor<64xbf16>, %arg3: tensor<64x32xbf16>, %arg4: tensor<32xbf16>) -> (tensor<16x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xbf16>, tensor<32x64xbf16>) -> tensor<16x64xf32>
    %1 = stablehlo.convert %0 : (tensor<16x64xf32>) -> tensor<16x64xbf16>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xbf16>) -> tensor<1x64xbf16>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x64xbf16>) -> tensor<16x64xbf16>
    %4 = stablehlo.add %1, %3 : tensor<16x64xbf16>
    %5 = stablehlo.multiply %4, %4 : tensor<16x64xbf16>
    %6 = stablehlo.multiply %5, %4 : tensor<16x64xbf16>
    %cst = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %8 = stablehlo.multiply %7, %6 : tensor<16x64xbf16>
    %9 = stablehlo.add %4, %8 : tensor<16x64xbf16>
    %cst_0 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %11 = stablehlo.multiply %10, %9 : tensor<16x64xbf16>
    %12 = stablehlo.tanh %11 : tensor<16x64xbf16>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %14 = stablehlo.add %13, %12 : tensor<16x64xbf16>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<16x64xbf16>
    %16 = stablehlo.multiply %15, %14 : tensor<16x64xbf16>
    %17 = stablehlo.multiply %4, %16 : tensor<16x64xbf16>
    %18 = stablehlo.dot_general %17, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xbf16>, tensor<64x32xbf16>) -> tensor<16x32xf32>
    %19 = stablehlo.convert %arg4 : (tensor<32xbf16>) -> tensor<32xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %22 = stablehlo.add %18, %21 : tensor<16x32xf32>
    return %22 : tensor<16x32xf32>
  }
}
