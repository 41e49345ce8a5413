#!/usr/bin/env bash
# Writes the ODS-generated reference docs: one page per dialect and the pass list.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
mlir=$(python -c "import importlib.util as u; print(u.find_spec('mlir').submodule_search_locations[0])")
tblgen="$mlir/bin/mlir-tblgen"
mkdir -p docs/dialects
"$tblgen" -gen-dialect-doc -dialect=nn -I . -I "$mlir/include" dialects/nn/NNOps.td -o docs/dialects/nn.md
"$tblgen" -gen-dialect-doc -dialect=codec -I . -I "$mlir/include" dialects/codec/CodecOps.td -o docs/dialects/codec.md
"$tblgen" -gen-dialect-doc -dialect=sure -I . -I "$mlir/include" dialects/sure/SureOps.td -o docs/dialects/sure.md
"$tblgen" -gen-dialect-doc -dialect=spatial -I . -I "$mlir/include" dialects/spatial/SpatialOps.td -o docs/dialects/spatial.md
"$tblgen" -gen-dialect-doc -dialect=layout -I . -I "$mlir/include" dialects/layout/LayoutOps.td -o docs/dialects/layout.md
"$tblgen" -gen-dialect-doc -dialect=pim -I . -I "$mlir/include" dialects/pim/PimOps.td -o docs/dialects/pim.md
"$tblgen" -gen-pass-doc -I . -I "$mlir/include" passes/Passes.td -o docs/passes.md
echo "wrote docs/dialects/nn.md docs/dialects/codec.md docs/dialects/sure.md docs/dialects/spatial.md docs/dialects/layout.md docs/dialects/pim.md docs/passes.md"
