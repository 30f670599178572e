module @jit_kv_cache_decode attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x16x8xf32>, %arg1: tensor<2x4x16x8xf32>, %arg2: tensor<2x4x1x8xf32>, %arg3: tensor<2x4x1x8xf32>, %arg4: tensor<2x4x1x8xf32>, %arg5: tensor<i32>) -> (tensor<2x4x1x8xf32> {jax.result_info = "result[0]"}, tensor<2x4x16x8xf32> {jax.result_info = "result[1]"}, tensor<2x4x16x8xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg5, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<16> : tensor<i32>
    %1 = stablehlo.add %arg5, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg5 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.dynamic_update_slice %arg0, %arg3, %c_1, %c_2, %2, %c_3 : (tensor<2x4x16x8xf32>, tensor<2x4x1x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x16x8xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %arg5, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<16> : tensor<i32>
    %5 = stablehlo.add %arg5, %c_5 : tensor<i32>
    %6 = stablehlo.select %4, %5, %arg5 : tensor<i1>, tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.dynamic_update_slice %arg1, %arg4, %c_6, %c_7, %6, %c_8 : (tensor<2x4x16x8xf32>, tensor<2x4x1x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x16x8xf32>
    %8 = stablehlo.dot_general %arg2, %3, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x1x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x1x16xf32>
    %cst = stablehlo.constant dense<2.82842708> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x1x16xf32>
    %10 = stablehlo.divide %8, %9 : tensor<2x4x1x16xf32>
    %11 = stablehlo.iota dim = 0 : tensor<16xi32>
    %12 = stablehlo.broadcast_in_dim %arg5, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %13 = stablehlo.compare LE, %11, %12, SIGNED : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %14 = stablehlo.broadcast_in_dim %13, dims = [3] : (tensor<16xi1>) -> tensor<1x1x1x16xi1>
    %cst_9 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %15 = call @_where(%14, %10, %cst_9) : (tensor<1x1x1x16xi1>, tensor<2x4x1x16xf32>, tensor<f32>) -> tensor<2x4x1x16xf32>
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst_10) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x1x16xf32>, tensor<f32>) -> tensor<2x4x1xf32>
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x4x1xf32>
    %18 = stablehlo.maximum %17, %16 : tensor<2x4x1xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<2x4x1xf32>) -> tensor<2x4x1x1xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2, 3] : (tensor<2x4x1x1xf32>) -> tensor<2x4x1x16xf32>
    %21 = stablehlo.subtract %15, %20 : tensor<2x4x1x16xf32>
    %22 = stablehlo.exponential %21 : tensor<2x4x1x16xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.reduce(%22 init: %cst_12) applies stablehlo.add across dimensions = [3] : (tensor<2x4x1x16xf32>, tensor<f32>) -> tensor<2x4x1xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2] : (tensor<2x4x1xf32>) -> tensor<2x4x1x1xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2, 3] : (tensor<2x4x1x1xf32>) -> tensor<2x4x1x16xf32>
    %26 = stablehlo.divide %22, %25 : tensor<2x4x1x16xf32>
    %27 = stablehlo.dot_general %26, %7, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x1x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x1x8xf32>
    return %27, %3, %7 : tensor<2x4x1x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
  }
  func.func private @_where(%arg0: tensor<1x1x1x16xi1>, %arg1: tensor<2x4x1x16xf32>, %arg2: tensor<f32>) -> tensor<2x4x1x16xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xi1>) -> tensor<2x4x1x16xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x4x1x16xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x4x1x16xi1>, tensor<2x4x1x16xf32>
    return %3 : tensor<2x4x1x16xf32>
  }
}
