// A task's constants reach its core in one request: global memory serves
// one request at a time, and each waits for the whole queue ahead of it.
// GELU's three constants (1/sqrt 2, 1 and 1/2, sixteen of each) are one
// pim.data, loaded by one ld at the task's start into the core's staging
// window (the top of local memory) and copied from there into their
// buffers where each is used. The task's first constant was loaded by
// itself until the second came; its ld is gone.
// RUN: %raptor-opt %s --split-input-file --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @gelu_chip
// CHECK:      pim.data @{{.*}} at [[AT:[0-9]+]] dense<[{{(0\.707106769, ){16}(1\.000000e\+00, ){16}(5\.000000e-01, ){15}5\.000000e-01}}]> : tensor<48xf32>
// CHECK:      pim.core 0
// CHECK-NEXT: pim.setbw 32, 32
// CHECK-NEXT: pim.sldi r0, 0
// CHECK-NEXT: pim.sldi r1, [[AT]]
// CHECK-NEXT: pim.sldi [[W:r[0-9]+]], [[#WINDOW:]]
// CHECK-NEXT: pim.ld [[W]], r0 size 192
// The input, then each constant copied from its place in the window.
// CHECK-NEXT: pim.sldi r0, 0
// CHECK-NEXT: pim.sldi r1, 0
// CHECK-NEXT: pim.sldi [[X:r[0-9]+]], 0
// CHECK-NEXT: pim.ld [[X]], r0 size 64
// CHECK-NEXT: pim.sldi [[C0:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.sldi [[S0:r[0-9]+]], [[#WINDOW]]
// CHECK-NEXT: pim.lmv [[C0]], [[S0]] len 64
// CHECK-NOT:  pim.ld
// CHECK:      pim.vvmul {{r[0-9]+}}, [[X]], {{r[0-9]+}} len 16 : f32
// CHECK-NEXT: pim.ext.verf
// CHECK-NEXT: pim.sldi [[C1:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.sldi [[S1:r[0-9]+]], [[#WINDOW+64]]
// CHECK-NEXT: pim.lmv [[C1]], [[S1]] len 64
// CHECK-NOT:  pim.ld
// CHECK:      pim.sldi [[S2:r[0-9]+]], [[#WINDOW+128]]
// CHECK-NEXT: pim.lmv {{r[0-9]+}}, [[S2]] len 64
// CHECK-NOT:  pim.ld
// CHECK:      pim.st
func.func @gelu(%in: tensor<2x8xf32> {nn.input = "x"}) -> tensor<2x8xf32> {
  %0 = nn.gelu %in : tensor<2x8xf32> loc("gelu")
  return %0 : tensor<2x8xf32>
}

// -----

// The batch's ld goes ahead of instructions emitted while r1 held the
// input's global address (0, set by the task before and not set again):
// r1 is set back right after it.
// CHECK-LABEL: pim.chip @after_relu_chip
// CHECK:      pim.vrelu
// CHECK-NEXT: pim.sldi r1, {{[1-9][0-9]*}}
// CHECK-NEXT: pim.sldi [[W:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.ld [[W]], r0 size 192
// CHECK-NEXT: pim.sldi r1, 0
// CHECK-NEXT: pim.sldi
// CHECK-NEXT: pim.sldi
// CHECK-NEXT: pim.lmv
func.func @after_relu(%in: tensor<2x8xf32> {nn.input = "x"}) -> tensor<2x8xf32> {
  %0 = nn.relu %in : tensor<2x8xf32> loc("relu")
  %1 = nn.gelu %0 : tensor<2x8xf32> loc("gelu")
  return %1 : tensor<2x8xf32>
}
