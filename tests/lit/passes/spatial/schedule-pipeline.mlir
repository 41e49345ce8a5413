// Pipeline mode on a chain of four operators of 100 us each (transfers of 4 bytes: a few hundred ns), on small.json
// (4 cores x 8 crossbars).
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=4" | FileCheck %s --check-prefix=FOUR
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=2 report=%t.json" | FileCheck %s --check-prefix=TWO
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=4 report=%t.held.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=HELD < %t.held.json
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=4 local-boundaries=false report=%t.unheld.json" | FileCheck %s --check-prefix=UNHELD
// RUN: FileCheck %s --check-prefix=UNHELD-REPORT < %t.unheld.json
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=4 periodic=%t.periodic.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=PERIODIC < %t.periodic.json
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | not %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=5" 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | not %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | not %raptor-opt "--raptor-schedule-spatial=mode=fast" 2>&1 | FileCheck %s --check-prefix=MODE

// Depth 4 on 4 cores: each stage reserves its one core and no core is
// spare; one operator per stage, stage bound 100 us each. The data held
// at the iteration boundary (4 bytes a transfer) fits in local memory, so
// the programs cross stages there (spatial::PipelineStages).
// FOUR:      spatial.graph
// FOUR-SAME: boundaries = true
// FOUR-SAME: mode = "pipeline"
// FOUR-SAME: stage_starts = array<i64: 0, 1, 2, 3>
// FOUR-SAME: stages = array<i64: 1, 1, 1, 1>
// FOUR:      spatial.task "a#0" {{.*}}core = 0 : i64
// FOUR:      spatial.task "b#0" {{.*}}core = 1 : i64
// FOUR:      spatial.task "c#0" {{.*}}core = 2 : i64
// FOUR:      spatial.task "d#0" {{.*}}core = 3 : i64

// The forms holding the boundary in local memory report the bytes a core is
// estimated to hold (its boundary data and its work's values: the 4-byte
// values each core receives and keeps for the next stage, or a skewed
// pipeline's slots); with local-boundaries=false they are not candidates.
// HELD:      "crossing_costs": {
// HELD:        "local": {
// HELD:          "local_bytes": 8
// HELD:        "skewed": {
// HELD:          "local_bytes": 4
// UNHELD:     crossing = "global"
// UNHELD-REPORT:     "crossing": "global"
// UNHELD-REPORT:     "crossing_costs": {
// UNHELD-REPORT-NOT: "local": {
// UNHELD-REPORT-NOT: "skewed": {
// UNHELD-REPORT:     "depth": 4

// Depth 2: two stages (bound 100 us) beat one stage of three cores
// (max(400 / 3, 100) = 133 us). Three cores for a, b, c and one for d, or
// two and two, tie at 100 us: the DP keeps the first it finds, the
// shortest last stage. Inside a stage the ordered packing gives each
// operator its own core. None of the neighbours is clearly better (the
// 2.1% rule), so the initial schedule stays.
// TWO:      spatial.graph
// TWO-SAME: stage_starts = array<i64: 0, 3>
// TWO-SAME: stages = array<i64: 3, 1>
// TWO:      spatial.task "a#0" {{.*}}core = 0 : i64
// TWO:      spatial.task "b#0" {{.*}}core = 1 : i64
// TWO:      spatial.task "c#0" {{.*}}core = 2 : i64
// TWO:      spatial.task "d#0" {{.*}}core = 3 : i64

// REPORT:      "candidates": [
// REPORT:        "move": "initial",
// REPORT:        "stage_cores": [
// REPORT-NEXT:     3,
// REPORT-NEXT:     1
// REPORT:      "depth": 2,
// REPORT:      "queue_budget": 32,
// REPORT:      "selected": 0,

// Four cores each looping over one operator of 100 us: the recurrence is
// one core's work and its two transfers per iteration (distance 1), above
// 100 us and far below the chain's 400 us.
// PERIODIC:      "bound": "recurrence",
// PERIODIC:      "cycle_distance": 1,
// PERIODIC:      "interval_ns": 100{{[0-9][0-9][0-9]}}
// PERIODIC:      "mode": "pipeline",
// PERIODIC:      "status": "ok"

// DEEP: pipeline mode: a pipeline of depth 5 needs at least that many cores; the target has 4
// ZERO: pipeline mode needs depth=N with N >= 1, not 0
// MODE: for the --mode option: unknown value 'fast' (expected latency or pipeline)

spatial.graph @chain for #pim.target<"A small test chip: 4 cores x 8 crossbars of 16x16", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [16, 16], cell_bits = 4, weight_bits = 8, clock_ns = 2.0, link_bytes_per_cycle = 8.0, hop_latency_cycles = 4.0, local_memory_bytes = 67108864> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  %a = spatial.task "a#0" bytes [] {cost_ns = 100000 : i64, op = "nn.relu", source = 0 : i64, tiles = 0 : i64}
  %b = spatial.task "b#0" after(%a) bytes [4] {cost_ns = 100000 : i64, op = "nn.relu", source = 1 : i64, tiles = 0 : i64}
  %c = spatial.task "c#0" after(%b) bytes [4] {cost_ns = 100000 : i64, op = "nn.relu", source = 2 : i64, tiles = 0 : i64}
  %d = spatial.task "d#0" after(%c) bytes [4] {cost_ns = 100000 : i64, op = "nn.relu", source = 3 : i64, tiles = 0 : i64}
}
