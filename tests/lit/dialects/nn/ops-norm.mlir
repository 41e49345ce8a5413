// Round-trip of the normalizations (batch_norm, layer_norm, rms_norm) and
// rotary_embedding. Declared result types are checked by shape inference.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// batch_norm
//===----------------------------------------------------------------------===//

// Three results: the normalized tensor and aten's two empty saved statistics.
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[OUT:[^ ,]+]], %[[MEAN:[^ ,]+]], %[[INVSTD:[^ ,]+]] = nn.batch_norm %arg0, %arg1, %arg2, %arg3, %arg4 : (tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x16x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
// CHECK: return %[[OUT]], %[[MEAN]], %[[INVSTD]] :
func.func @batch_norm(%x: tensor<2x16x8x8xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>,
                      %mean: tensor<16xf32>, %var: tensor<16xf32>)
    -> (tensor<2x16x8x8xf32>, tensor<0xf32>, tensor<0xf32>) {
  %0:3 = nn.batch_norm %x, %w, %b, %mean, %var
      : (tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<2x16x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x16x8x8xf32>, tensor<0xf32>, tensor<0xf32>
}

// Non-default momentum/eps are printed; rank-2 (N, C) and dynamic sizes.
// CHECK-LABEL: func.func @batch_norm_attrs
// CHECK: nn.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 {eps = 1.000000e-03 : f64, momentum = 0.000000e+00 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<0xf32>, tensor<0xf32>)
// CHECK: nn.batch_norm %arg2, %arg3, %arg3, %arg3, %arg3 : (tensor<?x?x5xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<?x?x5xf16>, tensor<0xf16>, tensor<0xf16>)
func.func @batch_norm_attrs(%x: tensor<4x8xf32>, %p: tensor<8xf32>, %d: tensor<?x?x5xf16>, %q: tensor<8xf16>) -> tensor<?x?x5xf16> {
  %0:3 = nn.batch_norm %x, %p, %p, %p, %p {momentum = 0.0, eps = 1.0e-3}
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
      -> (tensor<4x8xf32>, tensor<0xf32>, tensor<0xf32>)
  %1:3 = nn.batch_norm %d, %q, %q, %q, %q {momentum = 0.1, eps = 1.0e-5}
      : (tensor<?x?x5xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>)
      -> (tensor<?x?x5xf16>, tensor<0xf16>, tensor<0xf16>)
  return %1#0 : tensor<?x?x5xf16>
}

//===----------------------------------------------------------------------===//
// layer_norm
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @layer_norm
// CHECK: nn.layer_norm %arg0 weight %arg1 bias %arg2 {normalized_shape = array<i64: 64>} : (tensor<2x10x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x10x64xf32>
// CHECK: nn.layer_norm %arg0 weight %arg1 {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 64>} : (tensor<2x10x64xf32>, tensor<64xf32>) -> tensor<2x10x64xf32>
// CHECK: nn.layer_norm %arg0 bias %arg2 {normalized_shape = array<i64: 64>} : (tensor<2x10x64xf32>, tensor<64xf32>) -> tensor<2x10x64xf32>
// CHECK: nn.layer_norm %arg0 {normalized_shape = array<i64: 64>} : (tensor<2x10x64xf32>) -> tensor<2x10x64xf32>
func.func @layer_norm(%x: tensor<2x10x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>)
    -> (tensor<2x10x64xf32>, tensor<2x10x64xf32>, tensor<2x10x64xf32>, tensor<2x10x64xf32>) {
  %0 = nn.layer_norm %x weight %w bias %b {normalized_shape = array<i64: 64>, eps = 1.0e-5}
      : (tensor<2x10x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x10x64xf32>
  %1 = nn.layer_norm %x weight %w {normalized_shape = array<i64: 64>, eps = 1.0e-6}
      : (tensor<2x10x64xf32>, tensor<64xf32>) -> tensor<2x10x64xf32>
  %2 = nn.layer_norm %x bias %b {normalized_shape = array<i64: 64>}
      : (tensor<2x10x64xf32>, tensor<64xf32>) -> tensor<2x10x64xf32>
  %3 = nn.layer_norm %x {normalized_shape = array<i64: 64>}
      : (tensor<2x10x64xf32>) -> tensor<2x10x64xf32>
  return %0, %1, %2, %3 : tensor<2x10x64xf32>, tensor<2x10x64xf32>, tensor<2x10x64xf32>, tensor<2x10x64xf32>
}

// Several normalized dims; a dynamic leading dim.
// CHECK-LABEL: func.func @layer_norm_multi_dim
// CHECK: nn.layer_norm %arg0 weight %arg1 bias %arg1 {normalized_shape = array<i64: 8, 8>} : (tensor<?x4x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<?x4x8x8xf32>
func.func @layer_norm_multi_dim(%x: tensor<?x4x8x8xf32>, %w: tensor<8x8xf32>) -> tensor<?x4x8x8xf32> {
  %0 = nn.layer_norm %x weight %w bias %w {normalized_shape = array<i64: 8, 8>}
      : (tensor<?x4x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

//===----------------------------------------------------------------------===//
// rms_norm
//===----------------------------------------------------------------------===//

// eps is optional (aten's default: the dtype's epsilon).
// CHECK-LABEL: func.func @rms_norm
// CHECK: nn.rms_norm %arg0 weight %arg1 {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 4096>} : (tensor<1x7x4096xf32>, tensor<4096xf32>) -> tensor<1x7x4096xf32>
// CHECK: nn.rms_norm %arg0 {normalized_shape = array<i64: 4096>} : (tensor<1x7x4096xf32>) -> tensor<1x7x4096xf32>
func.func @rms_norm(%x: tensor<1x7x4096xf32>, %w: tensor<4096xf32>) -> (tensor<1x7x4096xf32>, tensor<1x7x4096xf32>) {
  %0 = nn.rms_norm %x weight %w {normalized_shape = array<i64: 4096>, eps = 1.0e-6}
      : (tensor<1x7x4096xf32>, tensor<4096xf32>) -> tensor<1x7x4096xf32>
  %1 = nn.rms_norm %x {normalized_shape = array<i64: 4096>}
      : (tensor<1x7x4096xf32>) -> tensor<1x7x4096xf32>
  return %0, %1 : tensor<1x7x4096xf32>, tensor<1x7x4096xf32>
}

//===----------------------------------------------------------------------===//
// rotary_embedding
//===----------------------------------------------------------------------===//

// cos/sin broadcast to the input.
// CHECK-LABEL: func.func @rotary_embedding
// CHECK: nn.rotary_embedding %arg0, %arg1, %arg1 : (tensor<1x32x7x128xf32>, tensor<1x1x7x128xf32>, tensor<1x1x7x128xf32>) -> tensor<1x32x7x128xf32>
// CHECK: nn.rotary_embedding %arg0, %arg2, %arg2 : (tensor<1x32x7x128xf32>, tensor<7x128xf32>, tensor<7x128xf32>) -> tensor<1x32x7x128xf32>
// CHECK: nn.rotary_embedding %arg3, %arg4, %arg4 : (tensor<1x32x?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<1x32x?x128xf32>
func.func @rotary_embedding(%x: tensor<1x32x7x128xf32>, %c: tensor<1x1x7x128xf32>, %c2: tensor<7x128xf32>,
                            %d: tensor<1x32x?x128xf32>, %dc: tensor<?x128xf32>)
    -> (tensor<1x32x7x128xf32>, tensor<1x32x7x128xf32>, tensor<1x32x?x128xf32>) {
  %0 = nn.rotary_embedding %x, %c, %c
      : (tensor<1x32x7x128xf32>, tensor<1x1x7x128xf32>, tensor<1x1x7x128xf32>) -> tensor<1x32x7x128xf32>
  %1 = nn.rotary_embedding %x, %c2, %c2
      : (tensor<1x32x7x128xf32>, tensor<7x128xf32>, tensor<7x128xf32>) -> tensor<1x32x7x128xf32>
  %2 = nn.rotary_embedding %d, %dc, %dc
      : (tensor<1x32x?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<1x32x?x128xf32>
  return %0, %1, %2 : tensor<1x32x7x128xf32>, tensor<1x32x7x128xf32>, tensor<1x32x?x128xf32>
}

// Packed heads: the tables broadcast to one head of head_dim features.
// CHECK-LABEL: func.func @rotary_packed_heads
// CHECK: nn.rotary_embedding %arg0, %arg1, %arg1 {head_dim = 64 : i64} : (tensor<1x7x576xf32>, tensor<1x7x64xf32>, tensor<1x7x64xf32>) -> tensor<1x7x576xf32>
// CHECK: nn.rotary_embedding %arg2, %arg3, %arg3 {head_dim = 64 : i64} : (tensor<1x?x192xf32>, tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<1x?x192xf32>
func.func @rotary_packed_heads(%x: tensor<1x7x576xf32>, %c: tensor<1x7x64xf32>, %d: tensor<1x?x192xf32>,
                               %dc: tensor<?x64xf32>) -> (tensor<1x7x576xf32>, tensor<1x?x192xf32>) {
  %0 = nn.rotary_embedding %x, %c, %c {head_dim = 64 : i64}
      : (tensor<1x7x576xf32>, tensor<1x7x64xf32>, tensor<1x7x64xf32>) -> tensor<1x7x576xf32>
  %1 = nn.rotary_embedding %d, %dc, %dc {head_dim = 64 : i64}
      : (tensor<1x?x192xf32>, tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<1x?x192xf32>
  return %0, %1 : tensor<1x7x576xf32>, tensor<1x?x192xf32>
}
