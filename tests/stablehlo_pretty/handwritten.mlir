// no module around the functions: MLIR puts them in one
func.func @main(%x: tensor<4xf32>,   %y: tensor<4xf32>) -> tensor<4xf32>
    attributes {z.last = 1, a.first = 2, m.mid = [1, 2], n.nested = {b = 1, a = 0x10}} {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]>
      : tensor<4xf32>
  %0 = stablehlo.add %x,%y : tensor<4xf32>   // a comment
  %1 = stablehlo.multiply %0, %c {z.b = 2, z.a = 1.5} : tensor<4xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
  %s = stablehlo.slice %2 [0:4:1] : (tensor<4xf32>) -> tensor<4xf32>
  %3 = call @twice(%s) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
func.func private @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.add %a, %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
