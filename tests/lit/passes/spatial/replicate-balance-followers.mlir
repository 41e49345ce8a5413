// Copies weighed with their followers challenge copies weighed by their
// MVMs (balance-followers-challenger, on in every pipelined compile): the
// builder adds @main_tasks_followers when its tasks differ, and
// raptor-schedule-spatial keeps it when its predicted interval is at least
// 2.1% shorter; the graph it replaced stays as its fallback.
// The model: int8 (integer arithmetic, codecs materialized) convolutions
// followed by depthwise convolutions, a residual add and requantizers, on
// 16 cores of 8 crossbars. Weighing the followers (the depthwise
// convolutions, codecs and add that ride on its copies) makes the first
// convolution's copies heavier, so it takes more of them: 18, not 10.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/chip16.json replicate=balance mode=pipeline balance-followers-challenger" | FileCheck %s --check-prefix=BUILT
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/chip16.json replicate=balance mode=pipeline" | FileCheck %s --check-prefix=ALONE
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/chip16.json replicate=balance mode=pipeline balance-followers-challenger" --raptor-schedule-spatial="mode=pipeline depth=2" | FileCheck %s --check-prefix=KEPT
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/chip16.json replicate=time mode=pipeline balance-followers-challenger" | FileCheck %s --check-prefix=TIME

// BUILT:     spatial.graph @main_tasks for {{.*}}copies_weighed_by = "matrix"
// BUILT:     spatial.task "convolution#0@9"
// BUILT-NOT: spatial.task "convolution#0@10"
// BUILT:     spatial.graph @main_tasks_followers for {{.*}}challenger_of = @main_tasks{{.*}}copies_weighed_by = "matrix and followers"
// BUILT:     spatial.task "convolution#0@17"
// BUILT-NOT: spatial.task "convolution#0@18"

// ALONE:     spatial.graph @main_tasks for {{.*}}copies_weighed_by = "matrix"
// ALONE-NOT: spatial.graph

// The kept graph's interval against the one it replaced, both predicted:
// KEPT:     spatial.graph @main_tasks_challenged for {{.*}}copies_weighed_by = "matrix",{{.*}}fallback_of = @main_tasks,{{.*}}predicted_interval_ns = [[OLD:[0-9]+]]
// KEPT:     spatial.graph @main_tasks for {{.*}}challenged_interval_ns = [[OLD]] : i64,{{.*}}copies_weighed_by = "matrix and followers"
// KEPT-NOT: spatial.graph

// Only the balance rule weighs copies:
// TIME-NOT: copies_weighed_by
// TIME-NOT: _followers

module attributes {raptor.quantization = {arithmetic = "integer", calibration = {fixed_point_bits = 19 : i64, offset_subgraphs = 4 : i64, samples = 4 : i64, shared = [], source = "4 seeded random inputs", subgraphs = {"1" = {amax = 4.7319579124450684 : f64, min = -4.494117259979248 : f64, scale = 0.037259511649608612 : f64, zero_point = 0 : i64}, "17" = {amax = 1.4152686595916748 : f64, min = 0 : i64, scale = 0.0055719236843287945 : f64, zero_point = -127 : i64}, "29" = {amax = 1.8352745771408081 : f64, min = 0 : i64, scale = 0.007225490640848875 : f64, zero_point = -127 : i64}, "37" = {amax = 0.94315278530120849 : f64, min = 0 : i64, scale = 0.0037131998687982559 : f64, zero_point = -127 : i64}, "9" = {amax = 2.8241796493530273 : f64, min = 0 : i64, scale = 0.011118817143142223 : f64, zero_point = -127 : i64}}, value_amax = 4.7319579124450684 : f64}, encoded_subgraphs = 5 : i64, placement = "nonlocal-coalesced", policy = "Y"}} {
  func.func @main(%arg0: tensor<1x3x64x64xf32> {nn.input = "x"}, %arg1: tensor<16x3x3x3xf32> {nn.param = "a.weight"}, %arg2: tensor<16xf32> {nn.param = "a.bias"}, %arg3: tensor<16x1x3x3xf32> {nn.param = "dw.weight"}, %arg4: tensor<16xf32> {nn.param = "dw.bias"}, %arg5: tensor<16x16x1x1xf32> {nn.param = "b.weight"}, %arg6: tensor<16xf32> {nn.param = "b.bias"}, %arg7: tensor<16x1x3x3xf32> {nn.param = "dw2.weight"}, %arg8: tensor<16xf32> {nn.param = "dw2.bias"}, %arg9: tensor<8x16x1x1xf32> {nn.param = "c.weight"}, %arg10: tensor<8xf32> {nn.param = "c.bias"}) -> tensor<1x8x64x64xf32> attributes {codec.policy = "Y", raptor.fixed_point_bits = 19 : i64} {
    %0 = codec.encode %arg0 to <1 : f32 -> i8> : tensor<1x3x64x64xf32>
    %1 = codec.encode %arg1 to <3 : f32 -> i8> : tensor<16x3x3x3xf32>
    %2 = codec.observe %0 for <1 : f32 -> i8> {scale = 0.0372595116 : f32} : tensor<1x3x64x64xf32>
    %3 = codec.observe %1 for <3 : f32 -> i8> : tensor<16x3x3x3xf32>
    %4 = nn.convolution %2, %3, %arg2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x64x64xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x64x64xf32>
    %5 = codec.observe %4 for <98 : f32 -> i32> : tensor<1x16x64x64xf32>
    %6 = codec.rescale %5 from <98 : f32 -> i32> to <9 : f32 -> i8> min 0.000000e+00 : tensor<1x16x64x64xf32>
    %7 = codec.encode %arg3 to <11 : f32 -> i8> : tensor<16x1x3x3xf32>
    %8 = codec.observe %6 for <9 : f32 -> i8> {scale = 0.0111188171 : f32, zero_point = -127 : i32} : tensor<1x16x64x64xf32>
    %9 = codec.observe %7 for <11 : f32 -> i8> : tensor<16x1x3x3xf32>
    %10 = nn.convolution %8, %9, %arg4 {dilation = array<i64: 1, 1>, groups = 16 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x64x64xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x64x64xf32>
    %11 = codec.observe %10 for <100 : f32 -> i32> : tensor<1x16x64x64xf32>
    %12 = codec.decode %11 from <100 : f32 -> i32> : tensor<1x16x64x64xf32>
    %13 = nn.relu %12 : tensor<1x16x64x64xf32>
    %14 = codec.encode %13 to <17 : f32 -> i8> : tensor<1x16x64x64xf32>
    %15 = codec.encode %arg5 to <19 : f32 -> i8> : tensor<16x16x1x1xf32>
    %16 = codec.observe %14 for <17 : f32 -> i8> {scale = 0.00557192368 : f32, zero_point = -127 : i32} : tensor<1x16x64x64xf32>
    %17 = codec.observe %15 for <19 : f32 -> i8> : tensor<16x16x1x1xf32>
    %18 = nn.convolution %16, %17, %arg6 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x16x64x64xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>) -> tensor<1x16x64x64xf32>
    %19 = codec.observe %18 for <102 : f32 -> i32> : tensor<1x16x64x64xf32>
    %20 = codec.decode %19 from <102 : f32 -> i32> : tensor<1x16x64x64xf32>
    %21 = nn.relu %20 : tensor<1x16x64x64xf32>
    %22 = nn.add %21, %13 : (tensor<1x16x64x64xf32>, tensor<1x16x64x64xf32>) -> tensor<1x16x64x64xf32>
    %23 = codec.encode %22 to <29 : f32 -> i8> : tensor<1x16x64x64xf32>
    %24 = codec.encode %arg7 to <31 : f32 -> i8> : tensor<16x1x3x3xf32>
    %25 = codec.observe %23 for <29 : f32 -> i8> {scale = 0.00722549064 : f32, zero_point = -127 : i32} : tensor<1x16x64x64xf32>
    %26 = codec.observe %24 for <31 : f32 -> i8> : tensor<16x1x3x3xf32>
    %27 = nn.convolution %25, %26, %arg8 {dilation = array<i64: 1, 1>, groups = 16 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x64x64xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x64x64xf32>
    %28 = codec.observe %27 for <105 : f32 -> i32> : tensor<1x16x64x64xf32>
    %29 = codec.rescale %28 from <105 : f32 -> i32> to <37 : f32 -> i8> min 0.000000e+00 : tensor<1x16x64x64xf32>
    %30 = codec.encode %arg9 to <39 : f32 -> i8> : tensor<8x16x1x1xf32>
    %31 = codec.observe %29 for <37 : f32 -> i8> {scale = 0.00371319987 : f32, zero_point = -127 : i32} : tensor<1x16x64x64xf32>
    %32 = codec.observe %30 for <39 : f32 -> i8> : tensor<8x16x1x1xf32>
    %33 = nn.convolution %31, %32, %arg10 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x16x64x64xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x64x64xf32>
    %34 = codec.observe %33 for <107 : f32 -> i32> : tensor<1x8x64x64xf32>
    %35 = codec.decode %34 from <107 : f32 -> i32> : tensor<1x8x64x64xf32>
    return %35 : tensor<1x8x64x64xf32>
  }
}

