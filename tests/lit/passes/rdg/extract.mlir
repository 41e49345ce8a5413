// RUN: %raptor-opt %s --raptor-extract-rdg -o /dev/null | FileCheck %s
// RUN: %raptor-opt %s --raptor-extract-rdg=form=extended -o /dev/null | %python -c "import json, sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=EXT
// RUN: not %raptor-opt %s --raptor-extract-rdg=form=svg -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// dfactl's form: parameters folded (b of the x(j, N) tap is [0,3]).
// CHECK:      {"operator":"trsv","rank":2,"indexNames":["i","j"],"kind":"SARE","variables":["acc","x"],"arcs":[
// CHECK-NEXT: {"from":"acc","to":"acc","kind":"uniform","theta":[0,1],"map":{"A":{{\[\[}}1,0],[0,1]],"b":[0,-1]}},
// CHECK-NEXT: {"from":"x","to":"acc","kind":"affine","map":{"A":{{\[\[}}0,1],[0,0]],"b":[0,3]}},
// CHECK-NEXT: {"from":"acc","to":"x","kind":"uniform","theta":[0,1],"map":{"A":{{\[\[}}1,0],[0,1]],"b":[0,-1]}}]}

// The extended form keeps N symbolic: the x(j, N) tap's offset is b = 0
// plus 1 x N in its second row (bParameters), and the domain's
// N - i - 1 >= 0 is constant -1, dims (-1, 0), params (1). (Compacted with
// sorted keys so that each line pins whole values.)
// EXT:      {"arcs": [{"branch": 0, "from": "acc", "kind": "uniform", "map": {"A": {{\[\[}}1, 0], [0, 1]], "b": [0, -1], "bParameters": {{\[\[}}0], [0]]}, "theta": [0, 1], "to": "acc"},
// EXT-SAME: {"branch": 0, "from": "x", "kind": "affine", "map": {"A": {{\[\[}}0, 1], [0, 0]], "b": [0, 0], "bParameters": {{\[\[}}0], [1]]}, "to": "acc"},
// EXT-SAME: {"branch": 0, "from": "acc", "kind": "uniform", "map": {"A": {{\[\[}}1, 0], [0, 1]], "b": [0, -1], "bParameters": {{\[\[}}0], [0]]}, "theta": [0, 1], "to": "x"}],
// EXT-SAME: "domain": [{"constant": 0, "dims": [1, 0], "equality": false, "params": [0]}, {"constant": -1, "dims": [-1, 0], "equality": false, "params": [1]}, {"constant": 0, "dims": [0, 1], "equality": false, "params": [0]}, {"constant": 0, "dims": [1, -1], "equality": false, "params": [0]}],
// EXT-SAME: "kind": "SARE", "operator": "trsv", "parameters": [{"name": "N", "value": 3}], "rank": 2, "variables": ["acc", "x"]}

// BAD: unknown RDG form 'svg' (expected 'dfactl' or 'extended')

sure.system @trsv indices ["i", "j"] parameters ["N"] values [3]
    domain affine_set<(i, j)[N] : (i >= 0, N - i - 1 >= 0, j >= 0, i - j >= 0)> {
  sure.equation "acc" {
    %0 = sure.tap "acc" at affine_map<(i, j)[N] -> (i, j - 1)>
    %1 = sure.tap "x" at affine_map<(i, j)[N] -> (j, N)>
    %2 = sure.apply "+"(%0, %1)
    sure.yield %2
  }
  sure.equation "x" {
    %0 = sure.tap "acc" at affine_map<(i, j)[N] -> (i, j - 1)>
    sure.yield %0
  }
}
