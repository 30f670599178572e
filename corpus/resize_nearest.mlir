module @jit_resize_nearest attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x4x3xf32>) -> (tensor<2x8x8x3xf32> {jax.result_info = "result"}) {
    %0 = call @_resize(%arg0) : (tensor<2x4x4x3xf32>) -> tensor<2x8x8x3xf32>
    return %0 : tensor<2x8x8x3xf32>
  }
  func.func private @_resize(%arg0: tensor<2x4x4x3xf32>) -> tensor<2x8x8x3xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.add %0, %1 : tensor<8xf32>
    %cst_0 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<8xf32>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %6 = stablehlo.divide %4, %5 : tensor<8xf32>
    %7 = stablehlo.floor %6 : tensor<8xf32>
    %8 = stablehlo.convert %7 : (tensor<8xf32>) -> tensor<8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %10 = stablehlo.compare LT, %8, %9, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_2 = stablehlo.constant dense<4> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %12 = stablehlo.add %8, %11 : tensor<8xi32>
    %13 = stablehlo.select %10, %12, %8 : tensor<8xi1>, tensor<8xi32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %15 = "stablehlo.gather"(%arg0, %14) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2, 3], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1, 4, 3>}> : (tensor<2x4x4x3xf32>, tensor<8x1xi32>) -> tensor<2x8x4x3xf32>
    %16 = stablehlo.iota dim = 0 : tensor<8xf32>
    %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %18 = stablehlo.add %16, %17 : tensor<8xf32>
    %cst_4 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %20 = stablehlo.multiply %18, %19 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %22 = stablehlo.divide %20, %21 : tensor<8xf32>
    %23 = stablehlo.floor %22 : tensor<8xf32>
    %24 = stablehlo.convert %23 : (tensor<8xf32>) -> tensor<8xi32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %25 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %26 = stablehlo.compare LT, %24, %25, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_7 = stablehlo.constant dense<4> : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %28 = stablehlo.add %24, %27 : tensor<8xi32>
    %29 = stablehlo.select %26, %28, %24 : tensor<8xi1>, tensor<8xi32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %31 = "stablehlo.gather"(%15, %30) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1, 3], collapsed_slice_dims = [2], start_index_map = [2], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 8, 1, 3>}> : (tensor<2x8x4x3xf32>, tensor<8x1xi32>) -> tensor<2x8x8x3xf32>
    return %31 : tensor<2x8x8x3xf32>
  }
}
