module @jit_int_mix attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xi8>, %arg1: tensor<4x8xi16>, %arg2: tensor<4x8xi64>) -> (tensor<4x8xi16> {jax.result_info = "result[0]"}, tensor<4x8xui16> {jax.result_info = "result[1]"}, tensor<4x8xi64> {jax.result_info = "result[2]"}, tensor<4x8xui64> {jax.result_info = "result[3]"}, tensor<4x8xui8> {jax.result_info = "result[4]"}, tensor<4x8xi1> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4x8xi8>) -> tensor<4x8xi16>
    %c = stablehlo.constant dense<3> : tensor<i16>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i16>) -> tensor<4x8xi16>
    %2 = stablehlo.multiply %0, %1 : tensor<4x8xi16>
    %3 = stablehlo.add %2, %arg1 : tensor<4x8xi16>
    %4 = stablehlo.convert %3 : (tensor<4x8xi16>) -> tensor<4x8xui16>
    %c_0 = stablehlo.constant dense<2> : tensor<ui16>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui16>) -> tensor<4x8xui16>
    %6 = stablehlo.shift_left %4, %5 : tensor<4x8xui16>
    %c_1 = stablehlo.constant dense<23130> : tensor<ui16>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui16>) -> tensor<4x8xui16>
    %8 = stablehlo.xor %6, %7 : tensor<4x8xui16>
    %9 = stablehlo.popcnt %8 : tensor<4x8xui16>
    %10 = stablehlo.convert %9 : (tensor<4x8xui16>) -> tensor<4x8xi64>
    %c_2 = stablehlo.constant dense<3> : tensor<i64>
    %11 = call @floor_divide(%arg2, %c_2) : (tensor<4x8xi64>, tensor<i64>) -> tensor<4x8xi64>
    %12 = stablehlo.add %10, %11 : tensor<4x8xi64>
    %c_3 = stablehlo.constant dense<5> : tensor<i64>
    %13 = call @remainder(%arg2, %c_3) : (tensor<4x8xi64>, tensor<i64>) -> tensor<4x8xi64>
    %14 = stablehlo.add %12, %13 : tensor<4x8xi64>
    %15 = stablehlo.convert %14 : (tensor<4x8xi64>) -> tensor<4x8xui64>
    %c_4 = stablehlo.constant dense<1> : tensor<ui64>
    %16 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui64>) -> tensor<4x8xui64>
    %17 = stablehlo.shift_right_logical %15, %16 : tensor<4x8xui64>
    %c_5 = stablehlo.constant dense<-100> : tensor<i64>
    %c_6 = stablehlo.constant dense<100> : tensor<i64>
    %18 = call @clip(%14, %c_5, %c_6) : (tensor<4x8xi64>, tensor<i64>, tensor<i64>) -> tensor<4x8xi64>
    %19 = stablehlo.convert %18 : (tensor<4x8xi64>) -> tensor<4x8xui8>
    %20 = stablehlo.abs %arg0 : tensor<4x8xi8>
    %c_7 = stablehlo.constant dense<5> : tensor<i8>
    %21 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i8>) -> tensor<4x8xi8>
    %22 = stablehlo.compare GT, %20, %21, SIGNED : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
    return %3, %8, %14, %17, %19, %22 : tensor<4x8xi16>, tensor<4x8xui16>, tensor<4x8xi64>, tensor<4x8xui64>, tensor<4x8xui8>, tensor<4x8xi1>
  }
  func.func private @floor_divide(%arg0: tensor<4x8xi64>, %arg1: tensor<i64>) -> tensor<4x8xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %2 = stablehlo.divide %arg0, %1 : tensor<4x8xi64>
    %3 = stablehlo.sign %arg0 : tensor<4x8xi64>
    %4 = stablehlo.sign %0 : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %8 = stablehlo.remainder %arg0, %7 : tensor<4x8xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
    %11 = stablehlo.and %6, %10 : tensor<4x8xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %13 = stablehlo.subtract %2, %12 : tensor<4x8xi64>
    %14 = call @_where(%11, %13, %2) : (tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
    return %14 : tensor<4x8xi64>
  }
  func.func private @_where(%arg0: tensor<4x8xi1>, %arg1: tensor<4x8xi64>, %arg2: tensor<4x8xi64>) -> tensor<4x8xi64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4x8xi1>, tensor<4x8xi64>
    return %0 : tensor<4x8xi64>
  }
  func.func private @remainder(%arg0: tensor<4x8xi64>, %arg1: tensor<i64>) -> tensor<4x8xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %2 = call @_where_0(%1, %c_0, %0) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %4 = stablehlo.remainder %arg0, %3 : tensor<4x8xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<4x8xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
    %12 = stablehlo.and %11, %6 : tensor<4x8xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %14 = stablehlo.add %4, %13 : tensor<4x8xi64>
    %15 = stablehlo.select %12, %14, %4 : tensor<4x8xi1>, tensor<4x8xi64>
    return %15 : tensor<4x8xi64>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
    return %0 : tensor<i64>
  }
  func.func private @clip(%arg0: tensor<4x8xi64>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<4x8xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4x8xi64>
    %3 = stablehlo.convert %arg2 : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %5 = stablehlo.minimum %4, %2 : tensor<4x8xi64>
    return %5 : tensor<4x8xi64>
  }
}
