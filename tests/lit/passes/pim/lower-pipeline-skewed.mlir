// A skewed pipeline (spatial::Crossing::Skewed, crossing=skewed) of four
// operators on four cores (one 8x8 crossbar each), with a skip connection:
// fc1 (level 0, core 0) -> relu (level 1) -> fc2 (level 2) -> skip (level
// 3), skip also reading fc1. A core of level l works on inference f - l in
// pass f, so the first inference takes 4 passes (`frames`). Every pass
// starts by exchanging the bank registers (r31: the bank this pass stores
// to, r30: the one it loads from; the second bank of a region lies
// `global_bytes` / 2 above it), signalling READY to the readers, waiting
// READY from the senders, signalling FREE to them, and ageing the slots of
// data that skips levels; each producer stores right after its work (after
// the FREE wait), each reader loads where it reads. fc1's result waits three
// passes on core 3 in three slots (lmv from the oldest), fc2's one.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json \
// RUN:   "--raptor-schedule-spatial=mode=pipeline depth=3 crossing=skewed" | %raptor-opt --raptor-lower-to-pim | FileCheck %s

// CHECK:       spatial.graph {{.*}}boundaries = true{{.*}}crossing = "skewed"
// CHECK-DAG:   spatial.task "fc1#0" {{.*}}core = 0
// CHECK-DAG:   spatial.task "relu#0" {{.*}}core = 1
// CHECK-DAG:   spatial.task "fc2#0" {{.*}}core = 2
// CHECK-DAG:   spatial.task "skip#0" {{.*}}core = 3
// CHECK:       pim.chip @main_chip {{.*}}frames = 4 : i64, global_bytes = [[#GLOBAL:]]
// CHECK:       pim.io @out0 "output" name "out0" at [[OUT:[0-9]+]]

// fc1: READY to its readers (relu's core 1, skip's core 3); its result
// stored to the current bank of region A once both freed it.
// CHECK:       pim.core 0
// CHECK:         pim.sldi r2, [[#div(GLOBAL,2)]]
// CHECK-NEXT:    pim.ssub r31, r2, r31
// CHECK-NEXT:    pim.ssub r30, r2, r31
// CHECK-NEXT:    pim.sync 1 event 0
// CHECK-NEXT:    pim.sync 3 event 0
// CHECK-NOT:     pim.wait
// CHECK:         pim.mvmul [[Y:r[0-9]+]]
// CHECK-NEXT:    pim.vvadd [[Y]], [[Y]], {{r[0-9]+}} len 8 : f32
// CHECK-NEXT:    pim.sldi r1, [[A:[0-9]+]]
// CHECK-NEXT:    pim.sadd r1, r1, r31
// CHECK-NEXT:    pim.wait event 1 value 2
// CHECK-NEXT:    pim.st r0, [[Y]] size 32
// CHECK-NEXT:  }

// relu: loads region A from the other bank (the pass before's fc1).
// CHECK:       pim.core 1
// CHECK:         pim.ssub r30, r2, r31
// CHECK-NEXT:    pim.sync 2 event 0
// CHECK-NEXT:    pim.wait event 0 value 1
// CHECK-NEXT:    pim.sync 0 event 1
// CHECK:         pim.sldi r1, [[A]]
// CHECK-NEXT:    pim.sadd r1, r1, r30
// CHECK-NEXT:    pim.sldi [[X:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:    pim.ld [[X]], r0 size 32
// CHECK-NEXT:    pim.sldi [[R:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:    pim.vrelu [[R]], [[X]] len 8 : f32
// CHECK-NEXT:    pim.sldi r1, [[B:[0-9]+]]
// CHECK-NEXT:    pim.sadd r1, r1, r31
// CHECK-NEXT:    pim.wait event 1 value 1
// CHECK-NEXT:    pim.st r0, [[R]] size 32
// CHECK-NEXT:  }

// skip: fc1's result aged two more passes (slot 2 <- slot 1 <- slot 0,
// then the load into slot 0), fc2's loaded as it is; the sum reads the
// oldest slot.
// CHECK:       pim.core 3
// CHECK:         pim.ssub r30, r2, r31
// CHECK-NEXT:    pim.wait event 0 value 2
// CHECK-NEXT:    pim.sync 0 event 1
// CHECK-NEXT:    pim.sync 2 event 1
// CHECK-NEXT:    pim.sldi [[S2:r[0-9]+]], [[OLDEST:[0-9]+]]
// CHECK-NEXT:    pim.sldi [[S1:r[0-9]+]], [[MIDDLE:[0-9]+]]
// CHECK-NEXT:    pim.lmv [[S2]], [[S1]] len 32
// CHECK-NEXT:    pim.sldi [[S0:r[0-9]+]], [[NEWEST:[0-9]+]]
// CHECK-NEXT:    pim.lmv [[S1]], [[S0]] len 32
// CHECK:         pim.sadd r1, r1, r30
// CHECK-NEXT:    pim.sldi [[F2:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:    pim.ld [[F2]], r0 size 32
// CHECK-NEXT:    pim.sldi r1, [[A]]
// CHECK-NEXT:    pim.sadd r1, r1, r30
// CHECK-NEXT:    pim.sldi [[L:r[0-9]+]], [[NEWEST]]
// CHECK-NEXT:    pim.ld [[L]], r0 size 32
// CHECK-NEXT:    pim.sldi [[SUM:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:    pim.sldi [[OLD:r[0-9]+]], [[OLDEST]]
// CHECK-NEXT:    pim.vvadd [[SUM]], [[F2]], [[OLD]] len 8 : f32
// CHECK-NEXT:    pim.sldi r1, [[OUT]]
// CHECK-NEXT:    pim.st r0, [[SUM]] size 32
// CHECK-NEXT:  }

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8xf32>
  %b = nn.constant dense<1.0> : tensor<8xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("fc1")
  %1 = nn.relu %0 : tensor<1x8xf32> loc("relu")
  %2 = nn.linear %1, %w, %b : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("fc2")
  %3 = nn.add %2, %0 : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32> loc("skip")
  return %3 : tensor<1x8xf32>
}
