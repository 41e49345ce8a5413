// A commutation table with an error is reported with its location and the
// IR is left unchanged (the pass fails).
// RUN: not %raptor-opt %s --raptor-insert-codec-markers=table=%S/Inputs/unknown-operator.txt 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not %raptor-opt %s --raptor-insert-codec-markers=table=%S/Inputs/unknown-port.txt 2>&1 | FileCheck %s --check-prefix=PORT
// RUN: not %raptor-opt %s --raptor-insert-codec-markers=table=%S/Inputs/malformed-block.txt 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not %raptor-opt %s --raptor-insert-codec-markers=table=%S/Inputs/bad-policy.txt 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not %raptor-opt %s --raptor-insert-codec-markers=table=%S/Inputs/orphan-block.txt 2>&1 | FileCheck %s --check-prefix=ORPHAN
// RUN: not %raptor-opt %s --raptor-insert-codec-markers=table=%S/Inputs/no-such-file.txt 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %raptor-opt %s --raptor-insert-codec-markers=policy=Q 2>&1 | FileCheck %s --check-prefix=UNKNOWN-POLICY
// RUN: not %raptor-opt %s --raptor-place-codecs=placement=global 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// RUN: %raptor-opt %s --raptor-place-codecs="policy=Y table=%S/Inputs/views-only.txt" | FileCheck %s --check-prefix=CUSTOM

// OP:      unknown-operator.txt:3: unknown operator 'aten.frobnicate.default' (no nn op stands for it)
// PORT:    unknown-port.txt:1: unknown port 'tensor[*]' of 'aten.cat.default' (its input ports: tensors[*])
// BLOCK:   malformed-block.txt:2:3: malformed block 'self out': expected 'INPUTS -> OUTPUTS'
// POLICY:  bad-policy.txt:1:1: unknown policy 'V' (expected Z, Y, X or W)
// ORPHAN:  orphan-block.txt:2:3: 'block' before any 'operator' line
// MISSING: cannot read commutation table '{{.*}}no-such-file.txt'
// UNKNOWN-POLICY: for the --policy option: unknown value 'Q' (expected function, Z, Y, X or W)
// PLACEMENT: for the --placement option: unknown value 'global' (expected local, nonlocal or nonlocal-coalesced)

// With the custom table, the view chain is one encoded subgraph; the cat
// (not in that table) stays fp32, reading one decoder twice.
// CUSTOM:      codec.encode %arg0
// CUSTOM-NEXT: nn.view
// CUSTOM-NEXT: nn.view
// CUSTOM-NEXT: codec.observe
// CUSTOM-NEXT: %[[D:.*]] = codec.decode
// CUSTOM-NEXT: nn.cat %[[D]], %[[D]]

func.func @views(%x: tensor<2x8xf32> {nn.input = "x"}) -> tensor<32xf32> {
  %0 = nn.view %x {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %1 = nn.view %0 {size = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %2 = nn.cat %1, %1 : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  return %2 : tensor<32xf32>
}
