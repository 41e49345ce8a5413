// Transfer bytes of int8 data in row blocks (row-block=2, latency mode):
// what a block of an element-wise or pooling task hands on is its rows of
// the encoded tensor, one byte per code (only a matrix lane's partial sums
// travel as 4-byte sums). The model: conv (3 -> 8) + ReLU as a requantizer,
// 2 x 2 max pooling of the codes, conv (8 -> 8), on 8 x 8 (the quantized
// model of `raptor compile --precision int8`).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=2" | FileCheck %s

// The encoded input's blocks: 2 rows x 3 channels x 8 columns = 48 codes.
// CHECK: %[[E0:.*]] = spatial.task "encode#0/0" bytes [] {{.*}}op = "codec.encode", rows = array<i64: 0, 2>
// CHECK: spatial.task "observe#0/0" after(%[[E0]]) bytes [48] {{.*}}op = "codec.observe"
// The requantized block (the ReLU): 2 rows x 8 channels x 8 columns = 128
// codes; the convolution's sums before it 4 bytes each (512).
// CHECK: %[[S0:.*]] = spatial.task "rescale#0/0" {{.*}}bytes [512] {{.*}}op = "codec.rescale", rows = array<i64: 0, 2>
// CHECK: %[[P0:.*]] = spatial.task "max_pool2d#0/0" after(%[[S0]]) bytes [128] {{.*}}op = "nn.max_pool2d", rows = array<i64: 0, 1>
// A pooled block: 1 row x 8 channels x 4 columns = 32 codes.
// CHECK: spatial.task "observe_2#0/0" after(%[[P0]]) bytes [32] {{.*}}op = "codec.observe"

module attributes {pim.target = #pim.target<"ISAAC-like chip: 168 cores x 96 crossbars of 128x128 (the seed's default)", cores = 168, mesh = [12, 14], crossbars = 96, crossbar = [128, 128], cell_bits = 8, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 67108864>, raptor.quantization = {arithmetic = "integer", calibration = {fixed_point_bits = 20 : i64, offset_subgraphs = 1 : i64, samples = 4 : i64, shared = [], source = "4 seeded random inputs", subgraphs = {"1" = {amax = 3.8994216918945313 : f64, min = -3.8994216918945313 : f64, scale = 0.030704107135534286 : f64, zero_point = 0 : i64}, "11" = {amax = 2.0267717838287354 : f64, min = 0 : i64, scale = 0.0079794162884354591 : f64, zero_point = -127 : i64}}, value_amax = 3.8994216918945313 : f64}, encoded_subgraphs = 2 : i64, placement = "nonlocal-coalesced", policy = "Y"}} {
  func.func @main(%arg0: tensor<1x3x8x8xf32> {nn.input = "x"}, %arg1: tensor<8x3x3x3xf32> {nn.param = "a.weight"}, %arg2: tensor<8xf32> {nn.param = "a.bias"}, %arg3: tensor<8x8x3x3xf32> {nn.param = "b.weight"}, %arg4: tensor<8xf32> {nn.param = "b.bias"}) -> tensor<1x8x4x4xf32> attributes {codec.policy = "Y", raptor.fixed_point_bits = 20 : i64} {
    %0 = codec.encode %arg0 to <1 : f32 -> i8> : tensor<1x3x8x8xf32>
    %1 = codec.encode %arg1 to <3 : f32 -> i8> : tensor<8x3x3x3xf32>
    %2 = codec.observe %0 for <1 : f32 -> i8> {scale = 0.0307041071 : f32} : tensor<1x3x8x8xf32>
    %3 = codec.observe %1 for <3 : f32 -> i8> : tensor<8x3x3x3xf32>
    %4 = nn.convolution %2, %3, %arg2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
    %5 = codec.observe %4 for <42 : f32 -> i32> : tensor<1x8x8x8xf32>
    %6 = codec.rescale %5 from <42 : f32 -> i32> to <11 : f32 -> i8> min 0.000000e+00 : tensor<1x8x8x8xf32>
    %out, %indices = nn.max_pool2d %6 {kernel_size = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xi64>)
    %7 = codec.encode %arg3 to <13 : f32 -> i8> : tensor<8x8x3x3xf32>
    %8 = codec.observe %out for <11 : f32 -> i8> {scale = 0.00797941629 : f32, zero_point = -127 : i32} : tensor<1x8x4x4xf32>
    %9 = codec.observe %7 for <13 : f32 -> i8> : tensor<8x8x3x3xf32>
    %10 = nn.convolution %8, %9, %arg4 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    %11 = codec.observe %10 for <44 : f32 -> i32> : tensor<1x8x4x4xf32>
    %12 = codec.decode %11 from <44 : f32 -> i32> : tensor<1x8x4x4xf32>
    return %12 : tensor<1x8x4x4xf32>
  }
}
