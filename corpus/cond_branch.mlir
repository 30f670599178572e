module @jit_cond_branch attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x32xf32>, %arg1: tensor<f32>) -> (tensor<2x32xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.compare GT, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      %3 = stablehlo.negate %arg0 : tensor<2x32xf32>
      %4 = stablehlo.multiply %3, %arg0 : tensor<2x32xf32>
      %5 = stablehlo.exponential %4 : tensor<2x32xf32>
      stablehlo.return %5 : tensor<2x32xf32>
    }, {
      %3 = stablehlo.tanh %arg0 : tensor<2x32xf32>
      %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
      %5 = stablehlo.multiply %3, %4 : tensor<2x32xf32>
      stablehlo.return %5 : tensor<2x32xf32>
    }) : (tensor<i32>) -> tensor<2x32xf32>
    return %2 : tensor<2x32xf32>
  }
}
