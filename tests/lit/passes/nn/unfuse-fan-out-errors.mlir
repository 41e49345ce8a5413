// RUN: %raptor-opt %s --raptor-unfuse-fan-out -verify-diagnostics

func.func @dynamic(%k: tensor<1x3x?x8xf32> {nn.input = "k"}) -> tensor<1x12x?x8xf32> {
  // expected-error @+1 {{cannot unfuse the fan-out of a dynamically shaped tensor (its views need static sizes)}}
  %f = nn.fan_out %k {repeats = 4 : i64} : (tensor<1x3x?x8xf32>) -> tensor<1x12x?x8xf32>
  return %f : tensor<1x12x?x8xf32>
}
