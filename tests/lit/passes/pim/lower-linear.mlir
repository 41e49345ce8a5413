// A linear layer on 8x8 crossbars, one per core: 12 rows make two row
// tiles, 10 columns two column tiles, so four lanes on four cores. Lanes of
// the same columns hold partial sums that the consumer (relu, core 0) adds.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial=transfers=rendezvous --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip cores 4 crossbars 1 of [8, 8] memory 65536
// The bias of the first lane of each column tile, in global memory.
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[8.000000e+00, 9.000000e+00]> : tensor<2xf32>
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
// Matrix element (k, n) is weight[n][k]: the layout (12,10):(1,12).
// CHECK-DAG:   pim.weight @[[W:.*]] dense<5.000000e-01> : tensor<10x12xf32>
// CHECK-DAG:   pim.io @in_x "input" name "x" at 0 : tensor<1x12xf32> layout #layout.layout<(12,1):(1,12)>
// CHECK-DAG:   pim.io @out0 "output" name "out0" at [[OUT:[0-9]+]] : tensor<1x10xf32> layout #layout.layout<(10,1):(1,10)>

// Lane 0: rows [0, 8), columns [0, 8), with the bias.
// CHECK:       pim.core 0
// CHECK-NEXT:    pim.group 0 crossbars 1 weight @[[W]] matrix #layout.layout<(12,10):(1,12)> rows [0, 8] cols [0, 8]
// CHECK-NEXT:    pim.setbw 32, 32
// CHECK:         pim.ld [[X:r[0-9]+]], r0 size 48
// CHECK:         pim.ld [[B:r[0-9]+]], r0 size 32
// CHECK:         pim.mvmul [[Y:r[0-9]+]], [[X]], group 0 mbiw 8
// CHECK-NEXT:    pim.vvadd [[Y]], [[Y]], [[B]] len 8 : f32
// The relu gathers the pieces: partial sums from cores 1 and 3 are added.
// CHECK:         pim.recv [[P1:r[0-9]+]] from 1 size 32 tag [[T1:[0-9]+]]
// CHECK:         pim.recv {{r[0-9]+}} from 2 size 8 tag [[T2:[0-9]+]]
// CHECK:         pim.recv {{r[0-9]+}} from 3 size 8 tag [[T3:[0-9]+]]
// CHECK:         pim.lmv [[A:r[0-9]+]], [[Y]] len 32
// CHECK-NEXT:    pim.vvadd [[A]], [[A]], [[P1]] len 8 : f32
// CHECK:         pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 2 : f32
// CHECK:         pim.vrelu [[R:r[0-9]+]], [[A]] len 10 : f32
// CHECK:         pim.sldi r1, [[OUT]]
// CHECK-NEXT:    pim.st r0, [[R]] size 40
// CHECK-NEXT:  }

// Lane 1: rows [8, 12) read from element 8 of the input (byte 32), no bias.
// CHECK:       pim.core 1
// CHECK-NEXT:    pim.group 0 crossbars 1 weight @[[W]] matrix #layout.layout<(12,10):(1,12)> rows [8, 12] cols [0, 8]
// CHECK:         pim.sldi [[IN:r[0-9]+]], 32
// CHECK-NEXT:    pim.mvmul [[Z:r[0-9]+]], [[IN]], group 0 mbiw 8
// CHECK-NEXT:    pim.send [[Z]] to 0 size 32 tag [[T1]]
// CHECK:       pim.core 2
// CHECK-NEXT:    pim.group 0 crossbars 1 weight @[[W]] matrix #layout.layout<(12,10):(1,12)> rows [0, 8] cols [8, 10]
// CHECK:         pim.vvadd {{.*}} len 2 : f32
// CHECK-NEXT:    pim.send {{r[0-9]+}} to 0 size 8 tag [[T2]]
// CHECK:       pim.core 3
// CHECK-NEXT:    pim.group 0 crossbars 1 weight @[[W]] matrix #layout.layout<(12,10):(1,12)> rows [8, 12] cols [8, 10]
// CHECK:         pim.send {{r[0-9]+}} to 0 size 8 tag [[T3]]

func.func @main(%x: tensor<1x12xf32> {nn.input = "x"}) -> tensor<1x10xf32> {
  %w = nn.constant dense<0.5> : tensor<10x12xf32>
  %b = nn.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x12xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<1x10xf32> loc("fc")
  %1 = nn.relu %0 : tensor<1x10xf32> loc("relu")
  return %1 : tensor<1x10xf32>
}
