module @jit_mobilenet_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x8xf32>, %arg1: tensor<1x1x8x32xf32>, %arg2: tensor<3x3x1x32xf32>, %arg3: tensor<1x1x32x8xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32xf32>, %arg7: tensor<32xf32>) -> (tensor<2x8x8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<1x1x8x32xf32>) -> tensor<2x8x8x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<2x8x8x32xf32>
    %3 = stablehlo.subtract %0, %2 : tensor<2x8x8x32xf32>
    %cst = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.add %arg5, %4 : tensor<32xf32>
    %6 = stablehlo.rsqrt %5 : tensor<32xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<2x8x8x32xf32>
    %9 = stablehlo.multiply %3, %8 : tensor<2x8x8x32xf32>
    %10 = stablehlo.broadcast_in_dim %arg6, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<2x8x8x32xf32>
    %12 = stablehlo.multiply %9, %11 : tensor<2x8x8x32xf32>
    %13 = stablehlo.broadcast_in_dim %arg7, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<2x8x8x32xf32>
    %15 = stablehlo.add %12, %14 : tensor<2x8x8x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<6> : tensor<i32>
    %16 = call @clip(%15, %c, %c_0) : (tensor<2x8x8x32xf32>, tensor<i32>, tensor<i32>) -> tensor<2x8x8x32xf32>
    %17 = stablehlo.convolution(%16, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 32 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x32xf32>, tensor<3x3x1x32xf32>) -> tensor<2x8x8x32xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<6> : tensor<i32>
    %18 = call @clip(%17, %c_1, %c_2) : (tensor<2x8x8x32xf32>, tensor<i32>, tensor<i32>) -> tensor<2x8x8x32xf32>
    %19 = stablehlo.convolution(%18, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x32xf32>, tensor<1x1x32x8xf32>) -> tensor<2x8x8x8xf32>
    %20 = stablehlo.add %arg0, %19 : tensor<2x8x8x8xf32>
    return %20 : tensor<2x8x8x8xf32>
  }
  func.func private @clip(%arg0: tensor<2x8x8x32xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<2x8x8x32xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x8x8x32xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<2x8x8x32xf32>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<2x8x8x32xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<2x8x8x32xf32>
    return %5 : tensor<2x8x8x32xf32>
  }
}
