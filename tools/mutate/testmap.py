"""Which tests a mutant of each module runs: the modules' table rows and their tests.

A mutant runs the tests of its own module only (fast enough to sample on two
cores); a test file named tests/python/test_mutants_<area>*.py is picked up by
every module whose map lists that area's pattern.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "python"

# Python module (a subpackage, or a top-level file) -> test-file patterns.
PYTHON_MODULES: dict[str, list[str]] = {
    "raptor": ["test_python_api.py", "test_mutants_core*.py"],
    "raptor._io": ["test_mutants_core*.py", "test_cycle_ratio.py", "test_cli.py", "test_mutants_small_apis.py"],
    "raptor.cli": ["test_cli.py", "test_mutants_cli*.py", "test_import_cli.py", "test_cycle_ratio.py", "test_defaults.py",
                   "test_report_fields.py", "test_doc_commands.py", "test_rdg_picture.py", "test_quant.py",
                   "test_check_outputs.py"],
    "raptor.sources": ["test_mutants_cli*.py", "test_cli.py", "test_import_cli.py", "test_token_ids.py",
                       "test_dense_experts.py", "test_check_outputs.py"],
    "raptor.weights": ["test_mutants_core*.py", "test_import_cli.py", "test_pim_program.py"],
    "raptor.codec": ["test_codec_api.py", "test_codec_properties.py", "test_mutants_codec*.py"],
    "raptor.frontend": ["test_frontend.py", "test_frontend_ops.py", "test_onnx_frontend.py",
                        "test_mutants_frontend*.py", "test_defaults_onnx.py", "test_input_order.py",
                        "test_families.py", "test_token_tables_edges.py", "test_gathers_and_softmax_axes.py",
                        "test_token_functions.py", "test_repeats_and_data_dependent_shapes.py",
                        "test_constant_gathers.py", "test_transposed_convolution.py", "test_real_dfts.py",
                        "test_unfold_fold.py", "test_attention_biases.py", "test_convolution3d.py",
                        "test_onnx_token_functions.py", "test_dense_experts.py", "test_attention_masks.py"],
    "raptor.layout": ["test_layout.py", "test_layout_categories.py", "test_mutants_layout*.py", "test_mutants_small_apis.py"],
    "raptor.pim": ["test_pim_program.py", "test_near_misses_program.py", "test_pim_simulator.py", "test_pim_timing.py",
                   "test_mutants_pim*.py", "test_quant.py", "test_report_fields*.py", "test_defaults.py",
                   "test_pim_simulator_pimsim_files.py", "test_input_order.py", "test_pim_simulator_interleaving.py",
                   "test_compile_outputs.py", "test_pipeline_memory_fallback.py", "test_check_outputs.py"],
    "raptor.quant": ["test_quant.py", "test_near_misses_inputs.py", "test_mutants_quant*.py", "test_last_token.py",
                     "test_report_fields_quant.py", "test_token_ids.py"],
    "raptor.rdg": ["test_rdg.py", "test_rdg_analysis.py", "test_rdg_picture.py",
                   "test_mutants_rdg*.py"],
    "raptor.sweep": ["test_sweep.py", "test_sweep_forkserver.py", "test_mutants_sweep*.py", "test_mutants_small_apis.py"],
    "raptor.spatial": ["test_scheduling.py", "test_cycle_ratio.py", "test_near_misses_graphs.py", "test_pipeline.py",
                       "test_mutants_spatial*.py", "test_properties_cycle_ratio.py", "test_properties_pipeline.py",
                       "test_report_fields.py"],
    "raptor.zoo": ["test_zoo.py", "test_spatial_models.py", "test_mutants_zoo*.py"],
}

# C++ module (a directory of .cpp files) -> (lit directories, test-file patterns).
# Every C++ mutant rebuilds raptor-opt and the Python extension, then runs these.
CPP_MODULES: dict[str, tuple[list[str], list[str]]] = {
    "algebra": (["dialects/layout"], ["test_layout.py", "test_layout_categories.py", "test_mutants_layout*.py"]),
    "simulator": (["dialects/pim", "passes/pim", "passes/spatial/mutants-target.mlir"],
                  ["test_pim_simulator.py", "test_pim_timing.py", "test_pim_program.py",
                   "test_near_misses_program.py", "test_near_misses_target.py", "test_mutants_pim*.py",
                   "test_pim_simulator_pimsim_files.py", "test_report_fields*.py", "test_token_ids.py",
                   "test_pim_simulator_interleaving.py", "test_target_transfers.py"]),
    "dialects/codec": (["dialects/codec", "passes/codec"], ["test_codec_api.py"]),
    "dialects/layout": (["dialects/layout"], ["test_layout.py", "test_layout_categories.py",
                                              "test_mutants_layout*.py"]),
    "dialects/nn": (["dialects/nn", "passes/nn"], ["test_python_api.py", "test_import_cli.py",
                                                  "test_mutants_nn*.py"]),
    "dialects/pim": (["dialects/pim", "passes/pim"], ["test_pim_simulator.py", "test_pim_timing.py",
                                                      "test_pim_program.py", "test_near_misses_program.py",
                                                      "test_mutants_pim*.py"]),
    "dialects/spatial": (["dialects/spatial", "passes/spatial"], ["test_scheduling.py"]),
    "dialects/sure": (["dialects/sure", "rdg"], ["test_rdg.py", "test_rdg_analysis.py"]),
    "passes/codec": (["passes/codec"], ["test_near_misses_table.py", "test_codec_api.py",
                                        "test_codec_properties.py"]),
    "passes/conversion/NNToSpatial": (["passes/spatial"], ["test_scheduling.py", "test_near_misses_graphs.py",
                                                           "test_mutants_spatial*.py", "test_defaults.py",
                                                           "test_properties_pipeline.py", "test_row_streaming.py"]),
    "passes/pipeline": (["passes/pipeline"], ["test_compile_replay.py", "test_pim_program.py", "test_defaults.py"]),
    "passes/emission": (["passes/pim"], ["test_pim_program.py", "test_near_misses_program.py", "test_mutants_pim*.py",
                                          "test_pim_simulator.py"]),
    "passes/conversion/SpatialToPim": (["passes/pim"], ["test_pim_program.py", "test_pim_simulator.py",
                                                        "test_mutants_pim*.py", "test_properties_conv.py",
                                                        "test_token_ids.py", "test_row_streaming.py",
                                                        "test_pim_simulator_interleaving.py", "test_global_transfers.py",
                                                        "test_families.py"]),
    "passes/graph": (["passes/summarize-graph.mlir", "passes/mutants-summary.mlir"],
                     ["test_cli.py", "test_mutants_cli*.py"]),
    # The constant evaluator and the weights reader serve the PIM lowering: tests there.
    "passes/nn": (["passes/nn", "dialects/nn", "passes/pim/mutants-constants.mlir",
                   "passes/pim/mutants-broadcast-constants.mlir", "passes/pim/mutants-weights.mlir",
                   "passes/pim/mutants-embedding-constants.mlir",
                   "passes/pim/mutants-layer-norm-constants.mlir", "passes/pim/select-constants.mlir",
                   "passes/pim/pad-constants.mlir"],
                  ["test_python_api.py", "test_import_cli.py", "test_mutants_nn*.py", "test_onnx_token_functions.py",
                   "test_token_functions.py", "test_token_tables_edges.py", "test_families.py",
                   "test_normalize_row_ops.py", "test_properties_conv.py", "test_last_token.py",
                   "test_attention_masks.py"]),
    "passes/pim": (["passes/pim"], ["test_pim_program.py", "test_mutants_pim*.py", "test_report_fields_periodic.py"]),
    "passes/rdg": (["passes/rdg", "rdg"], ["test_rdg.py", "test_rdg_analysis.py",
                                          "test_mutants_rdg*.py"]),
    "passes/spatial": (["passes/spatial"], ["test_near_misses_target.py", "test_scheduling.py",
                                            "test_cycle_ratio.py", "test_near_misses_graphs.py",
                                            "test_mutants_spatial*.py", "test_properties_cycle_ratio.py",
                                            "test_properties_pipeline.py", "test_report_fields_periodic.py",
                                            "test_row_streaming.py", "test_scattered_view_costs.py",
                                            "test_pim_simulator_interleaving.py", "test_global_transfers.py"]),
}


def _expand(patterns: list[str]) -> list[str]:
    """The test files of `patterns`, the targeted test_mutants_* ones first (they are
    fast, and a run stops at its first failure)."""
    files: list[str] = []
    for pattern in sorted(patterns, key=lambda p: not p.startswith("test_mutants_")):
        for path in sorted(TESTS.glob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in files:
                files.append(rel)
    return files


def python_module_of(rel_path: str) -> str | None:
    """The table row of python/raptor/<...>.py; None for generated or trivial files."""
    parts = Path(rel_path).relative_to("python/raptor").parts
    if parts[0] in ("dialects", "__main__.py"):
        return None  # generated ODS bindings; `python -m raptor`
    if len(parts) == 1:
        name = parts[0][:-3]
        return "raptor" if name == "__init__" else f"raptor.{name}"
    return f"raptor.{parts[0]}"


def tests_for_python(module: str) -> list[str]:
    return _expand(PYTHON_MODULES[module])


# ODS files shared by the modules of a directory: the module whose options they hold.
_SHARED_FILES = {"passes/conversion/Passes.td": "passes/conversion/NNToSpatial"}


def cpp_module_of(rel_path: str) -> str | None:
    directory = Path(rel_path).parent.as_posix()
    return _SHARED_FILES.get(rel_path, directory if directory in CPP_MODULES else None)


def tests_for_cpp(module: str) -> tuple[list[str], list[str]]:
    lit_dirs, patterns = CPP_MODULES[module]
    return [f"tests/lit/{d}" for d in lit_dirs], _expand(patterns)
