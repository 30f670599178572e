module @jit_rng_bits attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>) -> (tensor<4xui32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %1 = stablehlo.bitcast_convert %0 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %1, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x8xui32>)
    %2 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %3 = stablehlo.reshape %2 : (tensor<2x2xui32>) -> tensor<4xui32>
    %c = stablehlo.constant dense<9> : tensor<ui32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<4x8xui32>
    %5 = stablehlo.shift_right_logical %output, %4 : tensor<4x8xui32>
    %c_0 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<4x8xui32>
    %7 = stablehlo.or %5, %6 : tensor<4x8xui32>
    %8 = stablehlo.bitcast_convert %7 : (tensor<4x8xui32>) -> tensor<4x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %10 = stablehlo.subtract %8, %9 : tensor<4x8xf32>
    return %3, %10 : tensor<4xui32>, tensor<4x8xf32>
  }
}
