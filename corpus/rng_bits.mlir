module @jit_rng_bits attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>) -> (tensor<4xui32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}, tensor<4xui32> {jax.result_info = "result[2]"}, tensor<3x5xui32> {jax.result_info = "result[3]"}, tensor<4xui32> {jax.result_info = "result[4]"}, tensor<7xui16> {jax.result_info = "result[5]"}) {
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
    %11 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %12 = stablehlo.bitcast_convert %11 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_1, %output_2 = stablehlo.rng_bit_generator %12, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>)
    %13 = stablehlo.bitcast_convert %output_state_1 : (tensor<2xui64>) -> tensor<2x2xui32>
    %14 = stablehlo.reshape %13 : (tensor<2x2xui32>) -> tensor<4xui32>
    %15 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %16 = stablehlo.bitcast_convert %15 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_3, %output_4 = stablehlo.rng_bit_generator %16, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xui16>)
    %17 = stablehlo.bitcast_convert %output_state_3 : (tensor<2xui64>) -> tensor<2x2xui32>
    %18 = stablehlo.reshape %17 : (tensor<2x2xui32>) -> tensor<4xui32>
    return %3, %10, %14, %output_2, %18, %output_4 : tensor<4xui32>, tensor<4x8xf32>, tensor<4xui32>, tensor<3x5xui32>, tensor<4xui32>, tensor<7xui16>
  }
}
