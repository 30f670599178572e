module @jit_attn_rotary attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x8x8xf32>, %arg1: tensor<2x4x8x8xf32>, %arg2: tensor<2x4x8x8xf32>) -> (tensor<2x4x8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.iota dim = 0 : tensor<4xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.add %3, %2 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.divide %4, %5 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.power %7, %6 : tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.divide %9, %8 : tensor<4xf32>
    %11 = stablehlo.iota dim = 0 : tensor<8xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %13 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<8x4xf32>
    %16 = stablehlo.multiply %14, %15 : tensor<8x4xf32>
    %17 = stablehlo.cosine %16 : tensor<8x4xf32>
    %18 = stablehlo.sine %16 : tensor<8x4xf32>
    %19 = stablehlo.slice %arg0 [0:2, 0:4, 0:8, 0:8:2] : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x4xf32>
    %20 = stablehlo.slice %arg0 [0:2, 0:4, 0:8, 1:8:2] : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x4xf32>
    %21 = stablehlo.broadcast_in_dim %17, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %23 = stablehlo.multiply %19, %22 : tensor<2x4x8x4xf32>
    %24 = stablehlo.broadcast_in_dim %18, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %26 = stablehlo.multiply %20, %25 : tensor<2x4x8x4xf32>
    %27 = stablehlo.subtract %23, %26 : tensor<2x4x8x4xf32>
    %28 = stablehlo.broadcast_in_dim %18, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %30 = stablehlo.multiply %19, %29 : tensor<2x4x8x4xf32>
    %31 = stablehlo.broadcast_in_dim %17, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %33 = stablehlo.multiply %20, %32 : tensor<2x4x8x4xf32>
    %34 = stablehlo.add %30, %33 : tensor<2x4x8x4xf32>
    %35 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2, 3] : (tensor<2x4x8x4xf32>) -> tensor<2x4x8x4x1xf32>
    %36 = stablehlo.broadcast_in_dim %34, dims = [0, 1, 2, 3] : (tensor<2x4x8x4xf32>) -> tensor<2x4x8x4x1xf32>
    %37 = stablehlo.concatenate %35, %36, dim = 4 : (tensor<2x4x8x4x1xf32>, tensor<2x4x8x4x1xf32>) -> tensor<2x4x8x4x2xf32>
    %38 = stablehlo.reshape %37 : (tensor<2x4x8x4x2xf32>) -> tensor<2x4x8x8xf32>
    %39 = stablehlo.iota dim = 0 : tensor<4xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %41 = stablehlo.multiply %40, %39 : tensor<4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %43 = stablehlo.add %42, %41 : tensor<4xf32>
    %cst_6 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %45 = stablehlo.divide %43, %44 : tensor<4xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %47 = stablehlo.power %46, %45 : tensor<4xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %49 = stablehlo.divide %48, %47 : tensor<4xf32>
    %50 = stablehlo.iota dim = 0 : tensor<8xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %52 = stablehlo.broadcast_in_dim %49, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %53 = stablehlo.broadcast_in_dim %51, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %54 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<8x4xf32>
    %55 = stablehlo.multiply %53, %54 : tensor<8x4xf32>
    %56 = stablehlo.cosine %55 : tensor<8x4xf32>
    %57 = stablehlo.sine %55 : tensor<8x4xf32>
    %58 = stablehlo.slice %arg1 [0:2, 0:4, 0:8, 0:8:2] : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x4xf32>
    %59 = stablehlo.slice %arg1 [0:2, 0:4, 0:8, 1:8:2] : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x4xf32>
    %60 = stablehlo.broadcast_in_dim %56, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %62 = stablehlo.multiply %58, %61 : tensor<2x4x8x4xf32>
    %63 = stablehlo.broadcast_in_dim %57, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %64 = stablehlo.broadcast_in_dim %63, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %65 = stablehlo.multiply %59, %64 : tensor<2x4x8x4xf32>
    %66 = stablehlo.subtract %62, %65 : tensor<2x4x8x4xf32>
    %67 = stablehlo.broadcast_in_dim %57, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %69 = stablehlo.multiply %58, %68 : tensor<2x4x8x4xf32>
    %70 = stablehlo.broadcast_in_dim %56, dims = [2, 3] : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1, 2, 3] : (tensor<1x1x8x4xf32>) -> tensor<2x4x8x4xf32>
    %72 = stablehlo.multiply %59, %71 : tensor<2x4x8x4xf32>
    %73 = stablehlo.add %69, %72 : tensor<2x4x8x4xf32>
    %74 = stablehlo.broadcast_in_dim %66, dims = [0, 1, 2, 3] : (tensor<2x4x8x4xf32>) -> tensor<2x4x8x4x1xf32>
    %75 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2, 3] : (tensor<2x4x8x4xf32>) -> tensor<2x4x8x4x1xf32>
    %76 = stablehlo.concatenate %74, %75, dim = 4 : (tensor<2x4x8x4x1xf32>, tensor<2x4x8x4x1xf32>) -> tensor<2x4x8x4x2xf32>
    %77 = stablehlo.reshape %76 : (tensor<2x4x8x4x2xf32>) -> tensor<2x4x8x8xf32>
    %78 = stablehlo.dot_general %38, %77, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %cst_9 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %80 = stablehlo.divide %78, %79 : tensor<2x4x8x8xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %81 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %82 = call @tril(%81) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %cst_10 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %83 = call @_where(%82, %80, %cst_10) : (tensor<8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8x8xf32>
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %84 = stablehlo.reduce(%83 init: %cst_11) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %cst_12 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x4x8xf32>
    %86 = stablehlo.maximum %85, %84 : tensor<2x4x8xf32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %88 = stablehlo.broadcast_in_dim %87, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %89 = stablehlo.subtract %83, %88 : tensor<2x4x8x8xf32>
    %90 = stablehlo.exponential %89 : tensor<2x4x8x8xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %91 = stablehlo.reduce(%90 init: %cst_13) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %93 = stablehlo.broadcast_in_dim %92, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %94 = stablehlo.divide %90, %93 : tensor<2x4x8x8xf32>
    %95 = stablehlo.dot_general %94, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    return %95 : tensor<2x4x8x8xf32>
  }
  func.func private @tril(%arg0: tensor<8x8xi1>) -> tensor<8x8xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %2 = stablehlo.add %0, %1 : tensor<8x8xi32>
    %3 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<8x8xi1>, tensor<8x8xi1>
    return %6 : tensor<8x8xi1>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<2x4x8x8xf32>, %arg2: tensor<f32>) -> tensor<2x4x8x8xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x4x8x8xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    return %3 : tensor<2x4x8x8xf32>
  }
}
