// A target's local memory must be 1024 bytes to 2^31 bytes (make mutate's
// survivors, docs/mutation.md): each bound just outside is refused, each
// bound itself accepted. The targets are small.json with memory.local_bytes set.
// RUN: %python -c "import json, sys; t = json.load(open(sys.argv[1])); t['memory'] = {'local_bytes': int(sys.argv[2])}; json.dump(t, open(sys.argv[3], 'w'))" %S/../../../../python/raptor/spatial/targets/small.json 1023 %t.1023.json
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%t.1023.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %python -c "import json, sys; t = json.load(open(sys.argv[1])); t['memory'] = {'local_bytes': int(sys.argv[2])}; json.dump(t, open(sys.argv[3], 'w'))" %S/../../../../python/raptor/spatial/targets/small.json 2147483649 %t.big.json
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%t.big.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %python -c "import json, sys; t = json.load(open(sys.argv[1])); t['memory'] = {'local_bytes': int(sys.argv[2])}; json.dump(t, open(sys.argv[3], 'w'))" %S/../../../../python/raptor/spatial/targets/small.json 1024 %t.1024.json
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%t.1024.json | FileCheck %s --check-prefix=OK
// RUN: %python -c "import json, sys; t = json.load(open(sys.argv[1])); t['memory'] = {'local_bytes': int(sys.argv[2])}; json.dump(t, open(sys.argv[3], 'w'))" %S/../../../../python/raptor/spatial/targets/small.json 2147483648 %t.max.json
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%t.max.json | FileCheck %s --check-prefix=OK

// BAD: error: {{.*}}: 'memory.local_bytes' must be an integer from 1024 to 2^31
// OK: spatial.graph

func.func @forward(%x: tensor<1x20xf32> {nn.input = "x"}) -> tensor<1x20xf32> {
  %0 = nn.relu %x : tensor<1x20xf32> loc("relu")
  return %0 : tensor<1x20xf32>
}
