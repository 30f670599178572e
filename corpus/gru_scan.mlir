module @jit_gru_scan attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x64xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<32x96xf32>, %arg5: tensor<6x2x32xf32>, %arg6: tensor<2x32xf32>) -> (tensor<2x32xf32> {jax.result_info = "result[0]"}, tensor<6x2x32xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x2x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:9 = stablehlo.while(%iterArg = %arg5, %iterArg_0 = %arg4, %iterArg_1 = %arg2, %iterArg_2 = %arg0, %iterArg_3 = %arg3, %iterArg_4 = %arg1, %iterArg_5 = %c, %iterArg_6 = %arg6, %iterArg_7 = %0) : tensor<6x2x32xf32>, tensor<32x96xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<i32>, tensor<2x32xf32>, tensor<6x2x32xf32>
    cond {
      %c_8 = stablehlo.constant dense<6> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_5, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_5) : (tensor<6x2x32xf32>, tensor<i32>) -> tensor<2x32xf32>
      %3:2 = func.call @closed_call(%iterArg_0, %iterArg_1, %iterArg_2, %iterArg_3, %iterArg_4, %iterArg_6, %2) : (tensor<32x96xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2x32xf32>, tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2x32xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_7, %3#1, %iterArg_5) : (tensor<6x2x32xf32>, tensor<2x32xf32>, tensor<i32>) -> tensor<6x2x32xf32>
      %c_8 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_5, %c_8 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %iterArg_2, %iterArg_3, %iterArg_4, %5, %3#0, %4 : tensor<6x2x32xf32>, tensor<32x96xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<i32>, tensor<2x32xf32>, tensor<6x2x32xf32>
    }
    return %1#7, %1#8 : tensor<2x32xf32>, tensor<6x2x32xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x2x32xf32>, %arg1: tensor<i32>) -> tensor<2x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2, 32] : (tensor<6x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x32xf32>) -> tensor<2x32xf32>
    return %1 : tensor<2x32xf32>
  }
  func.func private @closed_call(%arg0: tensor<32x96xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<2x32xf32>, %arg6: tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2x32xf32>) {
    %0 = stablehlo.slice %arg0 [0:32, 0:64] : (tensor<32x96xf32>) -> tensor<32x64xf32>
    %1 = stablehlo.dot_general %arg6, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<32x64xf32>) -> tensor<2x64xf32>
    %2 = stablehlo.dot_general %arg5, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<32x64xf32>) -> tensor<2x64xf32>
    %3 = stablehlo.add %1, %2 : tensor<2x64xf32>
    %4 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<2x64xf32>
    %6 = stablehlo.add %3, %5 : tensor<2x64xf32>
    %7 = stablehlo.negate %6 : tensor<2x64xf32>
    %8 = stablehlo.exponential %7 : tensor<2x64xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x64xf32>
    %10 = stablehlo.add %9, %8 : tensor<2x64xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x64xf32>
    %12 = stablehlo.divide %11, %10 : tensor<2x64xf32>
    %13 = stablehlo.slice %12 [0:2, 0:32] : (tensor<2x64xf32>) -> tensor<2x32xf32>
    %14 = stablehlo.slice %12 [0:2, 32:64] : (tensor<2x64xf32>) -> tensor<2x32xf32>
    %15 = stablehlo.slice %arg0 [0:32, 64:96] : (tensor<32x96xf32>) -> tensor<32x32xf32>
    %16 = stablehlo.dot_general %arg6, %15, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<32x32xf32>) -> tensor<2x32xf32>
    %17 = stablehlo.multiply %14, %arg5 : tensor<2x32xf32>
    %18 = stablehlo.dot_general %17, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<32x32xf32>) -> tensor<2x32xf32>
    %19 = stablehlo.add %16, %18 : tensor<2x32xf32>
    %20 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<2x32xf32>
    %22 = stablehlo.add %19, %21 : tensor<2x32xf32>
    %23 = stablehlo.tanh %22 : tensor<2x32xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x32xf32>
    %25 = stablehlo.subtract %24, %13 : tensor<2x32xf32>
    %26 = stablehlo.multiply %25, %23 : tensor<2x32xf32>
    %27 = stablehlo.multiply %13, %arg5 : tensor<2x32xf32>
    %28 = stablehlo.add %26, %27 : tensor<2x32xf32>
    return %28, %28 : tensor<2x32xf32>, tensor<2x32xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x2x32xf32>, %arg1: tensor<2x32xf32>, %arg2: tensor<i32>) -> tensor<6x2x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x32xf32>) -> tensor<1x2x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<6x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x2x32xf32>
    return %1 : tensor<6x2x32xf32>
  }
}
