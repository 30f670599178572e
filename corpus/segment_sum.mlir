module @jit_segment_sum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<16xi32>, %arg2: tensor<16xi32>) -> (tensor<8x32xf32> {jax.result_info = "result[0]"}, tensor<16x8xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %2 = "stablehlo.scatter"(%0, %1, %arg0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %20 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %20 : tensor<f32>
    }) : (tensor<8x32xf32>, tensor<16x1xi32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %4 = stablehlo.iota dim = 0 : tensor<16xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %6 = stablehlo.compare LT, %4, %5, SIGNED : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %c_1 = stablehlo.constant dense<16> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %8 = stablehlo.add %4, %7 : tensor<16xi32>
    %9 = stablehlo.select %6, %8, %4 : tensor<16xi1>, tensor<16xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %11 = stablehlo.compare LT, %arg2, %10, SIGNED : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %c_3 = stablehlo.constant dense<8> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %13 = stablehlo.add %arg2, %12 : tensor<16xi32>
    %14 = stablehlo.select %11, %13, %arg2 : tensor<16xi1>, tensor<16xi32>
    %15 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %17 = stablehlo.concatenate %15, %16, dim = 1 : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x2xi32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %19 = "stablehlo.scatter"(%3, %17, %18) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16xf32>) -> tensor<16x8xf32>
    return %2, %19 : tensor<8x32xf32>, tensor<16x8xf32>
  }
}
