module @jit_pad_interior attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xf32>) -> (tensor<12x15xf32> {jax.result_info = "result[0]"}, tensor<5x3xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %0 = stablehlo.pad %arg0, %cst, low = [1, -1], high = [2, 0], interior = [1, 2] : (tensor<5x6xf32>, tensor<f32>) -> tensor<12x15xf32>
    %1 = stablehlo.slice %arg0 [0:5, 1:6:2] : (tensor<5x6xf32>) -> tensor<5x3xf32>
    %2 = stablehlo.reverse %1, dims = [0] : tensor<5x3xf32>
    return %0, %2 : tensor<12x15xf32>, tensor<5x3xf32>
  }
}
