module @jit_f64_math attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf64>, %arg1: tensor<4x8xf64>) -> (tensor<4x8xf64> {jax.result_info = "result[0]"}, tensor<4x8xf64> {jax.result_info = "result[1]"}, tensor<4x8xf64> {jax.result_info = "result[2]"}, tensor<4x8xi1> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.abs %arg0 : tensor<4x8xf64>
    %1 = stablehlo.log_plus_one %0 : tensor<4x8xf64>
    %2 = stablehlo.abs %arg1 : tensor<4x8xf64>
    %3 = stablehlo.negate %2 : tensor<4x8xf64>
    %4 = stablehlo.exponential_minus_one %3 : tensor<4x8xf64>
    %5 = stablehlo.add %1, %4 : tensor<4x8xf64>
    %6 = chlo.erf %arg0 : tensor<4x8xf64> -> tensor<4x8xf64>
    %7 = stablehlo.add %5, %6 : tensor<4x8xf64>
    %8 = stablehlo.atan2 %arg0, %arg1 : tensor<4x8xf64>
    %9 = stablehlo.cbrt %arg0 : tensor<4x8xf64>
    %10 = stablehlo.add %8, %9 : tensor<4x8xf64>
    %11 = stablehlo.abs %arg0 : tensor<4x8xf64>
    %cst = stablehlo.constant dense<1.500000e+00> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x8xf64>
    %13 = stablehlo.power %11, %12 : tensor<4x8xf64>
    %14 = stablehlo.add %10, %13 : tensor<4x8xf64>
    %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f64>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4x8xf64>
    %16 = stablehlo.multiply %arg0, %15 : tensor<4x8xf64>
    %17 = call @round(%16) : (tensor<4x8xf64>) -> tensor<4x8xf64>
    %18 = stablehlo.floor %arg1 : tensor<4x8xf64>
    %19 = stablehlo.add %17, %18 : tensor<4x8xf64>
    %20 = stablehlo.sign %arg0 : tensor<4x8xf64>
    %21 = stablehlo.add %19, %20 : tensor<4x8xf64>
    %22 = stablehlo.subtract %arg1, %arg1 : tensor<4x8xf64>
    %23 = stablehlo.divide %arg0, %22 : tensor<4x8xf64>
    %24 = stablehlo.is_finite %23 : (tensor<4x8xf64>) -> tensor<4x8xi1>
    return %7, %14, %21, %24 : tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xi1>
  }
  func.func private @round(%arg0: tensor<4x8xf64>) -> tensor<4x8xf64> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<4x8xf64>
    return %0 : tensor<4x8xf64>
  }
}
