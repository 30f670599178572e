module @jit_kv_cache_window attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x16x32xf32>, %arg1: tensor<2x32xf32>, %arg2: tensor<i32>) -> (tensor<2x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg2, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<16> : tensor<i32>
    %1 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg2 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.dynamic_slice %arg0, %c_1, %2, %c_2, sizes = [2, 4, 32] : (tensor<2x16x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32xf32>
    %4 = stablehlo.dot_general %arg1, %3, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<2x4x32xf32>) -> tensor<2x4xf32>
    return %4 : tensor<2x4xf32>
  }
}
