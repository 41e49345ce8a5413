# Raptor's entry points. `make demo` and `make test` are the README's quick start.
.PHONY: setup demo test lit pytest bench fixtures docs fuzz mutate clean

setup:
	bash scripts/setup.sh

# The main job on the bundled default: compile ShuffleNetV2 for the 168-core
# chip (per-core programs in pimsim-nn's format and Raptor's), run them in
# the functional simulator and compare with eager torch; then the int8
# program PIM users deploy: integer-only (pimsim-nn's instructions alone),
# its accuracy against float32, run from pimsim-nn's own files and checked
# bit for bit against the integer reference, and its latency.
demo: setup
	mkdir -p build
	.venv/bin/raptor compile shufflenet_v2 -o build/shufflenet_v2
	.venv/bin/raptor simulate build/shufflenet_v2 --check
	.venv/bin/raptor compile shufflenet_v2 -o build/shufflenet_v2_int8 --precision int8 --arithmetic integer --report
	.venv/bin/raptor simulate build/shufflenet_v2_int8 --form pimsim --check
	.venv/bin/raptor simulate build/shufflenet_v2_int8 --timing

test: setup
	bash scripts/test.sh

lit:
	.venv/bin/lit -sv tests/lit

pytest:
	.venv/bin/python -m pytest -q -n $${RAPTOR_TEST_WORKERS:-2} --dist loadgroup tests/python

# Every measured table in docs/ from its bench (each writes its JSON, then the
# table between its <!-- bench:NAME --> markers; tests/python/test_doc_tables.py
# checks the two agree). Takes a few hours on the 2-core machine.
bench: setup
	.venv/bin/python bench/pim_models.py --json docs/pim-benchmarks.json --doc docs/benchmarks.md
	.venv/bin/python bench/import_roundtrip.py --json docs/bench-import-roundtrip.json --doc docs/benchmarks.md
	.venv/bin/python bench/import_coverage.py --markdown docs/frontend-coverage.md --json docs/frontend-coverage.json
	.venv/bin/python bench/codec_tables.py --markdown docs/codec-evaluation.md --json docs/codec-evaluation.json
	.venv/bin/python bench/codec_scaling.py --json docs/codec-scaling.json --doc docs/benchmarks.md
	.venv/bin/python bench/rdg_scaling.py --json docs/rdg-scaling.json --doc docs/benchmarks.md
	.venv/bin/python bench/cycle_ratio.py --json docs/cycle-ratio-scaling.json --doc docs/benchmarks.md
	.venv/bin/python bench/layout_vs_pycute.py --json docs/layout-vs-pycute.json --doc docs/layout.md
	.venv/bin/python bench/quant_models.py --json docs/quant-evaluation.json --doc docs/quantization.md
	.venv/bin/python bench/integer_programs.py --json docs/integer-evaluation.json --doc docs/quantization.md
	.venv/bin/python bench/latency_estimate.py --json docs/latency-estimate.json --doc docs/timing.md
	.venv/bin/python bench/row_streaming.py --json docs/row-streaming.json --doc docs/scheduling.md
	.venv/bin/python bench/lane_tiles.py --json docs/lane-tiles.json --doc docs/scheduling.md
	.venv/bin/python bench/throughput_table.py --json docs/throughput.json --doc docs/scheduling.md
	.venv/bin/python bench/pipeline_int8.py --json docs/pipeline-int8.json --doc docs/scheduling.md

# The fuzz harness over every entry point (FUZZ_SECONDS, default 30 minutes):
# defects are minimized into build/fuzz/defects/, figures in build/fuzz/report.json.
FUZZ_SECONDS ?= 1800
fuzz: setup
	.venv/bin/python tools/fuzz/raptor_fuzz.py --seconds $(FUZZ_SECONDS) --out build/fuzz

# Mutation testing (docs/mutation.md): a seeded sample of cosmic-ray mutants and
# of semantic mutants (swapped arguments, dropped terms, replaced variables,
# changed defaults) per Python module, and of single-token and semantic C++
# mutants (MUTATE_CPP and MUTATE_CPP_SEMANTIC in all, rebuilt incrementally),
# each against its module's tests; kill ratios per module and family, survivors
# and diffs in build/mutate/report.json. The seed is drawn afresh and printed;
# MUTATE_SEED=N reproduces a sample. Takes several hours on the 2-core machine
# (docs/mutation.md has the measured times); not part of `make test`.
MUTATE_PER_MODULE ?= 5
MUTATE_SEMANTIC ?= 3
MUTATE_CPP ?= 16
MUTATE_CPP_SEMANTIC ?= 8
MUTATE_SEED ?=
mutate: setup
	.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements/mutate.txt
	.venv/bin/python tools/mutate/mutate.py --per-module $(MUTATE_PER_MODULE) --semantic $(MUTATE_SEMANTIC) \
	  --cpp $(MUTATE_CPP) --cpp-semantic $(MUTATE_CPP_SEMANTIC) $(if $(MUTATE_SEED),--seed $(MUTATE_SEED)) --out build/mutate/report.json

# Regenerates the bundled zoo graphs (python/raptor/zoo/graphs/*.mlir).
fixtures: setup
	for m in shufflenet_v2 unet siglip smollm2; do \
	  .venv/bin/raptor import --model $$m -o python/raptor/zoo/graphs/$$m.mlir || exit 1; \
	done

clean:
	rm -rf build

# Regenerates the reference docs that come from ODS (docs/dialects, docs/passes.md).
docs: setup
	bash scripts/gen-docs.sh
