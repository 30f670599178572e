module @jit_mlp_f16 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf16>, %arg1: tensor<32x64xf16>, %arg2: tensor<64xf16>, %arg3: tensor<64x32xf16>) -> (tensor<16x32xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf16>, tensor<32x64xf16>) -> tensor<16x64xf16>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xf16>) -> tensor<1x64xf16>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf16>) -> tensor<16x64xf16>
    %3 = stablehlo.add %0, %2 : tensor<16x64xf16>
    %4 = call @relu(%3) : (tensor<16x64xf16>) -> tensor<16x64xf16>
    %5 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf16>, tensor<64x32xf16>) -> tensor<16x32xf16>
    %6 = stablehlo.tanh %5 : tensor<16x32xf16>
    return %6 : tensor<16x32xf16>
  }
  func.func private @relu(%arg0: tensor<16x64xf16>) -> tensor<16x64xf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<16x64xf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x64xf16>
    return %1 : tensor<16x64xf16>
  }
}
