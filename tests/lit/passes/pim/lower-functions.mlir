// Operators built from several vector instructions: GELU from erf, SiLU
// from the sigmoid, a matrix product of two activations on the extension's
// vector-matrix instruction, average pooling, nearest upsampling, RMS
// normalization with a weight, and constant padding.
// RUN: %raptor-opt %s --split-input-file --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// gelu(x) = x * 0.5 * (1 + erf(x / sqrt 2)) over the whole row-major tensor.
// CHECK-LABEL: pim.chip @gelu_chip
// (The task's three constants arrive in one load.)
// CHECK-DAG:   pim.data @{{.*}} dense<[{{(0\.707106769, ){16}(1\.000000e\+00, ){16}(5\.000000e-01, ){15}5\.000000e-01}}]> : tensor<48xf32>
// CHECK:       pim.vvmul [[E:r[0-9]+]], [[X:r[0-9]+]], {{r[0-9]+}} len 16 : f32
// CHECK-NEXT:  pim.ext.verf [[E]], [[E]] len 16 : f32
// CHECK:       pim.vvadd [[E]], [[E]], {{r[0-9]+}} len 16 : f32
// CHECK-NEXT:  pim.vvmul [[E]], [[E]], [[X]] len 16 : f32
// CHECK:       pim.vvmul [[G:r[0-9]+]], [[G]], {{r[0-9]+}} len 16 : f32
// silu(g) = g * sigmoid(g).
// CHECK-NEXT:  pim.vsigm [[S:r[0-9]+]], [[G]] len 16 : f32
// CHECK-NEXT:  pim.vvmul [[S]], [[S]], [[G]] len 16 : f32
// The product of two activations: one vector-matrix product per row of
// the left operand, walking its rows and the output's.
// CHECK:       pim.repeat 2 [[[L:r[0-9]+]] += 32, [[O:r[0-9]+]] += 16] {
// CHECK-NEXT:    pim.ext.vvecmat [[O]], {{r[0-9]+}}, [[L]] rows 8 len 4 : f32
// CHECK-NEXT:  }
// CHECK:       pim.st r0, {{r[0-9]+}} size 32
func.func @gelu(%in: tensor<2x8xf32> {nn.input = "x"}, %y: tensor<8x4xf32> {nn.input = "y"}) -> tensor<2x4xf32> {
  %0 = nn.gelu %in : tensor<2x8xf32> loc("gelu")
  %1 = nn.silu %0 : tensor<2x8xf32> loc("silu")
  %2 = nn.matmul %1, %y : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32> loc("matmul")
  return %2 : tensor<2x4xf32>
}

// -----

// Average pooling 2x2/2 on the channels-last input: the first tap copied
// into the output (4 channels per position), the other three added, then
// one multiplication by 1/4 over all 16 outputs.
// CHECK-LABEL: pim.chip @pool_chip
// CHECK:       pim.data @{{.*}} dense<2.500000e-01> : tensor<16xf32>
// CHECK:       pim.io @in_x "input" name "x" at 0 : tensor<1x4x4x4xf32> layout #layout.layout<(4,4,4,1):(4,16,1,64)>
// The output keeps the storage order (channels-last) the manifest records.
// CHECK-NEXT:  pim.io @out0 "output" name "out0" at 256 : tensor<1x4x4x4xf32> layout #layout.layout<(4,4,4,1):(4,16,1,64)>
// CHECK:       pim.repeat 2 [{{r[0-9]+}} += 32, {{r[0-9]+}} += 128]
// CHECK-NEXT:    pim.repeat 2 [{{r[0-9]+}} += 16, {{r[0-9]+}} += 32]
// CHECK-NEXT:      pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 16
// CHECK-COUNT-3: pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 4 : f32
// CHECK:       pim.vvmul [[P:r[0-9]+]], [[P]], {{r[0-9]+}} len 16 : f32
// Nearest upsampling by 2: each pooled position (16 bytes of channels)
// copied to four output positions (the 0-stride modes of the access).
// CHECK:       pim.repeat 2 [{{r[0-9]+}} += 128, {{r[0-9]+}} += 32] attributes {access = [#layout.layout<(4,4,4,1):(4,16,1,0)>, #layout.layout<((2,2),(2,2),4,1):((0,4),(0,8),1,16)>]}
// CHECK-NEXT:    pim.repeat 2 [{{r[0-9]+}} += 64] {
// CHECK-NEXT:      pim.repeat 2 [{{r[0-9]+}} += 32, {{r[0-9]+}} += 16] {
// CHECK-NEXT:        pim.repeat 2 [{{r[0-9]+}} += 16] {
// CHECK-NEXT:          pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 16
func.func @pool(%in: tensor<1x4x4x4xf32> {nn.input = "x"}) -> tensor<1x4x4x4xf32> {
  %0 = nn.avg_pool2d %in {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32> loc("avg")
  %1 = nn.upsample_nearest2d %0 {output_size = array<i64: 4, 4>} : (tensor<1x4x2x2xf32>) -> tensor<1x4x4x4xf32> loc("up")
  return %1 : tensor<1x4x4x4xf32>
}

// -----

// RMS normalization per row: the dot product of the row with itself,
// times 1/8, plus eps, its reciprocal square root broadcast over the row,
// then the weight. Padding zero-fills the output and copies the rows one
// element in (40-byte output rows).
// CHECK-LABEL: pim.chip @rms_chip
// CHECK-DAG:   pim.data @{{.*}} dense<[{{(2\.000000e\+00, ){8}(1\.250000e-01, ){8}9\.99999997E-7}}]> : tensor<17xf32>
// CHECK:       pim.repeat 2 [[[R:r[0-9]+]] += 32, [[Y:r[0-9]+]] += 32] {
// CHECK-NEXT:    pim.vvdmul [[T:r[0-9]+]], [[R]], [[R]] len 8 : f32
// CHECK-NEXT:    pim.vvmul [[T]], [[T]], {{r[0-9]+}} len 1 : f32
// CHECK-NEXT:    pim.vvadd [[T]], [[T]], {{r[0-9]+}} len 1 : f32
// CHECK-NEXT:    pim.ext.vrsqrt [[T]], [[T]] len 1 : f32
// CHECK-NEXT:    pim.ext.vbcast [[B:r[0-9]+]], [[T]] len 8 : f32
// CHECK-NEXT:    pim.vvmul [[Y]], [[R]], [[B]] len 8 : f32
// CHECK-NEXT:    pim.vvmul [[Y]], [[Y]], {{r[0-9]+}} len 8 : f32
// CHECK-NEXT:  }
// CHECK:       pim.lldi [[P:r[0-9]+]], 0 len 80
// CHECK:       pim.repeat 2 [{{r[0-9]+}} += 40, [[Y]] += 32] attributes {access = [#layout.layout<(8,2):(1,10)>, #layout.layout<(8,2):(1,8)>]} {
// CHECK-NEXT:    pim.lmv {{r[0-9]+}}, [[Y]] len 32
// CHECK:       pim.st r0, {{r[0-9]+}} size 80
func.func @rms(%in: tensor<2x8xf32> {nn.input = "x"}) -> tensor<2x10xf32> {
  %w = nn.constant dense<2.0> : tensor<8xf32>
  %0 = nn.rms_norm %in weight %w {normalized_shape = array<i64: 8>, eps = 1.0e-6 : f64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32> loc("rms")
  %1 = nn.constant_pad_nd %0 {pad = array<i64: 1, 1>, value = 0.0 : f64} : (tensor<2x8xf32>) -> tensor<2x10xf32> loc("pad")
  return %1 : tensor<2x10xf32>
}

// -----

// softplus's tail, log1p(exp(-x)), on activations: the extension
// instructions, one each over the row-major tensor, each reading the
// result before it.
// CHECK-LABEL: pim.chip @softplus_chip
// CHECK:       pim.vvmul [[N:r[0-9]+]], [[X:r[0-9]+]], {{r[0-9]+}} len 16 : f32
// CHECK-NEXT:  pim.ext.vexp [[E:r[0-9]+]], [[N]] len 16 : f32
// CHECK-NEXT:  pim.ext.vlog1p [[L:r[0-9]+]], [[E]] len 16 : f32
// CHECK:       pim.st r0, [[L]] size 64
func.func @softplus(%in: tensor<2x8xf32> {nn.input = "x"}) -> tensor<2x8xf32> {
  %0 = nn.neg %in : tensor<2x8xf32> loc("neg")
  %1 = nn.exp %0 : tensor<2x8xf32> loc("exp")
  %2 = nn.log1p %1 : tensor<2x8xf32> loc("log1p")
  return %2 : tensor<2x8xf32>
}
