//===- CompileModule.cpp - The compile pipeline for Python ------*- C++ -*-===//
//
// The compile as Python sees it: CompileOptions (passes/pipeline), the
// phases run pass by pass with progress and timings, the target and the
// weights as C++ objects opened once (raptor._raptor.Target, .Weights), the
// vocabularies of every enumerated option, and each pass alone with typed
// arguments. Never a pipeline string with user text pasted in. Passes run
// through the `mlir` package's PassManager, so a failure raises
// mlir.ir.MLIRError with the diagnostics.
//
//===----------------------------------------------------------------------===//
#include "passes/JsonAttributes.h"
#include "passes/Passes.h"
#include "passes/conversion/SpatialToPim/Lowering.h"
#include "passes/pipeline/CompilePipeline.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/Pass.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <cstring>

namespace nb = nanobind;

nb::object pythonOfJson(const llvm::json::Value &value); // PythonJson.cpp
llvm::json::Value jsonOfPython(nb::handle value);        // PythonJson.cpp

namespace {

mlir::Operation *operationArgument(nb::handle handle) {
  nb::object object = nb::borrow(handle);
  if (nb::hasattr(object, "operation"))
    object = object.attr("operation");
  MlirOperation op = mlirPythonCapsuleToOperation(object.attr(MLIR_PYTHON_CAPI_PTR_ATTR).ptr());
  if (mlirOperationIsNull(op))
    throw nb::type_error("expected an mlir.ir.Operation or Module");
  return unwrap(op);
}

mlir::ModuleOp moduleArgument(nb::handle handle) {
  nb::object object = nb::borrow(handle);
  if (nb::hasattr(object, "operation"))
    object = object.attr("operation");
  nb::object capsule = object.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
  MlirOperation op = mlirPythonCapsuleToOperation(capsule.ptr());
  auto module = llvm::dyn_cast_or_null<mlir::ModuleOp>(unwrap(op));
  if (!module)
    throw nb::type_error("expected an mlir.ir.Module");
  return module;
}

/// A spelling of `table`'s enum, or ValueError naming the choices.
template <typename E> E parseSpelling(llvm::ArrayRef<raptor::Choice<E>> table, const std::string &name,
                                      const char *what) {
  if (std::optional<E> value = raptor::parseChoice(table, name))
    return *value;
  throw nb::value_error(
      ("unknown " + std::string(what) + " '" + name + "' (expected " + raptor::spellings(table) + ")").c_str());
}

template <typename E> nb::list vocabularyOf(llvm::ArrayRef<raptor::Choice<E>> table) {
  nb::list out;
  for (const raptor::Choice<E> &c : table)
    out.append(nb::make_tuple(c.name.str(), c.help.str()));
  return out;
}

/// Runs `pass` on `module` through the `mlir` package's PassManager (the
/// pass added through the C API), so that a failure raises mlir.ir.MLIRError
/// with the diagnostics, as any pass run from Python does.
void runPass(nb::handle module, std::unique_ptr<mlir::Pass> pass) {
  nb::object op = nb::borrow(module);
  if (nb::hasattr(op, "operation"))
    op = op.attr("operation");
  nb::object pm =
      nb::module_::import_("mlir.passmanager").attr("PassManager")("builtin.module", nb::arg("context") = op.attr("context"));
  MlirPassManager handle = mlirPythonCapsuleToPassManager(pm.attr(MLIR_PYTHON_CAPI_PTR_ATTR).ptr());
  mlirPassManagerAddOwnedPass(handle, wrap(pass.release()));
  pm.attr("run")(op);
}

/// A weights file opened once for a compile (memory-mapped; validated).
struct Weights {
  std::shared_ptr<const raptor::nn::SafeTensorsFile> file;
};

/// A tensor of the file as a numpy array of its own: float types as float32,
/// integer types as themselves.
nb::object weightArray(const raptor::nn::SafeTensorsFile &file, const std::string &name) {
  const raptor::nn::SafeTensorsFile::Entry *e = file.find(name);
  if (!e)
    throw nb::key_error(name.c_str());
  std::vector<size_t> shape(e->shape.begin(), e->shape.end());
  auto integer = [&](auto tag, nb::dlpack::dtype dtype) {
    using T = decltype(tag);
    size_t n = e->bytes / sizeof(T);
    T *data = new T[n];
    std::memcpy(data, e->data, e->bytes);
    nb::capsule owner(data, [](void *p) noexcept { delete[] static_cast<T *>(p); });
    return nb::cast(nb::ndarray<nb::numpy>(data, shape.size(), shape.data(), owner, nullptr, dtype));
  };
  llvm::StringRef dtype = e->dtype;
  if (dtype == "I64")
    return integer(int64_t(), nb::dtype<int64_t>());
  if (dtype == "I32")
    return integer(int32_t(), nb::dtype<int32_t>());
  if (dtype == "I16")
    return integer(int16_t(), nb::dtype<int16_t>());
  if (dtype == "I8")
    return integer(int8_t(), nb::dtype<int8_t>());
  if (dtype == "U64")
    return integer(uint64_t(), nb::dtype<uint64_t>());
  if (dtype == "U32")
    return integer(uint32_t(), nb::dtype<uint32_t>());
  if (dtype == "U16")
    return integer(uint16_t(), nb::dtype<uint16_t>());
  if (dtype == "U8")
    return integer(uint8_t(), nb::dtype<uint8_t>());
  if (dtype == "BOOL")
    return integer(bool(), nb::dtype<bool>());
  std::vector<float> values = file.floats(*e);
  float *data = new float[values.size()];
  std::memcpy(data, values.data(), values.size() * sizeof(float));
  nb::capsule owner(data, [](void *p) noexcept { delete[] static_cast<float *>(p); });
  return nb::cast(nb::ndarray<nb::numpy, float>(data, shape.size(), shape.data(), owner));
}

raptor::pim::TargetModel targetOrError(llvm::FailureOr<raptor::pim::TargetModel> target, const std::string &message) {
  if (llvm::failed(target))
    throw nb::value_error(message.c_str());
  return std::move(*target);
}

raptor::CompilePhase phaseOf(const std::string &name) {
  return parseSpelling(llvm::ArrayRef(raptor::kCompilePhases), name, "compile phase");
}

/// A spelling-valued property of CompileOptions.
template <typename E, size_t N>
void spellingProperty(nb::class_<raptor::CompileOptions> &c, const char *name, E raptor::CompileOptions::*field,
                      const raptor::Choice<E> (&table)[N], const char *what) {
  c.def_prop_rw(
      name, [field, &table](const raptor::CompileOptions &o) { return raptor::nameOf(llvm::ArrayRef(table), o.*field).str(); },
      [field, &table, what](raptor::CompileOptions &o, const std::string &v) {
        o.*field = parseSpelling(llvm::ArrayRef(table), v, what);
      });
}

} // namespace

void bindCompile(nb::module_ &m) {
  m.def(
      "vocabulary",
      [](const std::string &name) -> nb::list {
        if (name == "precision")
          return vocabularyOf(llvm::ArrayRef(raptor::kPrecisions));
        if (name == "policy") { // the compression policies (a pass may also inherit the function's)
          nb::list all = vocabularyOf(llvm::ArrayRef(raptor::codec::kPolicyChoices));
          all.attr("pop")(0);
          return all;
        }
        if (name == "placement")
          return vocabularyOf(llvm::ArrayRef(raptor::codec::kPlacements));
        if (name == "replicate")
          return vocabularyOf(llvm::ArrayRef(raptor::spatial::kReplicationRules));
        if (name == "follow_rows")
          return vocabularyOf(llvm::ArrayRef(raptor::kFollowRows));
        if (name == "algorithm")
          return vocabularyOf(llvm::ArrayRef(raptor::spatial::kListAlgorithms));
        if (name == "transfers")
          return vocabularyOf(llvm::ArrayRef(raptor::spatial::kTransferModes));
        if (name == "crossing")
          return vocabularyOf(llvm::ArrayRef(raptor::spatial::kCrossingModes));
        if (name == "mode")
          return vocabularyOf(llvm::ArrayRef(raptor::spatial::kScheduleModes));
        if (name == "pimsim")
          return vocabularyOf(llvm::ArrayRef(raptor::pim::kPimsimFiles));
        if (name == "phase")
          return vocabularyOf(llvm::ArrayRef(raptor::kCompilePhases));
        throw nb::value_error(("no vocabulary '" + name + "'").c_str());
      },
      nb::arg("name"),
      "The spellings of an enumerated option and their help, [(name, help), ...]: precision, policy, placement, "
      "replicate, follow_rows, algorithm, mode, pimsim or phase.");

  nb::class_<raptor::pim::TargetModel>(m, "Target", "A PIM target (docs/scheduling.md), parsed and validated once.")
      .def_static(
          "load",
          [](const std::string &path) {
            std::string message;
            return targetOrError(raptor::pim::TargetModel::load(path, [&](const llvm::Twine &t) { message = t.str(); }),
                                 message);
          },
          nb::arg("path"), "Reads a target file; ValueError says what is wrong.")
      .def_static(
          "parse",
          [](const std::string &text, const std::string &source) {
            std::string message;
            return targetOrError(
                raptor::pim::TargetModel::parse(text, source, [&](const llvm::Twine &t) { message = t.str(); }),
                message);
          },
          nb::arg("text"), nb::arg("source") = "<target>")
      .def_ro("name", &raptor::pim::TargetModel::name)
      .def_ro("cores", &raptor::pim::TargetModel::cores)
      .def_ro("mesh_rows", &raptor::pim::TargetModel::meshRows)
      .def_ro("mesh_cols", &raptor::pim::TargetModel::meshCols)
      .def_ro("crossbars_per_core", &raptor::pim::TargetModel::crossbarsPerCore)
      .def_ro("crossbar_rows", &raptor::pim::TargetModel::crossbarRows)
      .def_ro("crossbar_cols", &raptor::pim::TargetModel::crossbarCols)
      .def_ro("cell_bits", &raptor::pim::TargetModel::cellBits)
      .def_ro("weight_bits", &raptor::pim::TargetModel::weightBits)
      .def_ro("clock_period_ns", &raptor::pim::TargetModel::clockPeriodNs)
      .def_ro("local_memory_bytes", &raptor::pim::TargetModel::localMemoryBytes)
      .def(
          "transfer_ns",
          [](const raptor::pim::TargetModel &t, int64_t bytes, int64_t from, int64_t to) {
            if (bytes < 0 || from < 0 || to < 0 || from >= int64_t(t.cores) || to >= int64_t(t.cores))
              throw nb::value_error(("transfer_ns: " + std::to_string(bytes) + " bytes from core " +
                                     std::to_string(from) + " to core " + std::to_string(to) + " on a chip of " +
                                     std::to_string(t.cores) + " cores")
                                        .c_str());
            return t.transferNs(bytes, unsigned(from), unsigned(to));
          },
          nb::arg("bytes"), nb::arg("from_core"), nb::arg("to_core"),
          "A send/receive of `bytes` between two cores by pimsim-nn's rules (ns, rounded up; 0 on one core).")
      .def(
          "mean_transfer_ns",
          [](const raptor::pim::TargetModel &t, int64_t bytes) {
            if (bytes < 0)
              throw nb::value_error("mean_transfer_ns: a negative byte count");
            return t.meanTransferNs(bytes);
          },
          nb::arg("bytes"),
          "A transfer of `bytes` with the mean flit latency over every ordered pair of distinct cores: the "
          "estimate the list scheduler's ranks and the replication plan use before cores are chosen (ns).")
      .def(
          "to_dict", [](const raptor::pim::TargetModel &t) { return pythonOfJson(t.toJson()); },
          "The target in the file format.")
      .def(
          "attach",
          [](const raptor::pim::TargetModel &t, nb::handle module) {
            mlir::ModuleOp op = moduleArgument(module);
            op->setAttr("pim.target", raptor::pim::TargetAttr::get(op.getContext(), t));
          },
          nb::arg("module"), "Makes this the module's pim.target (the target of a compile of it).");

  nb::class_<Weights>(m, "Weights", "A .safetensors weights file, opened and validated once (memory-mapped).")
      .def_static(
          "open",
          [](const std::string &path) {
            auto file = raptor::nn::SafeTensorsFile::open(path);
            if (!file)
              throw nb::value_error(llvm::toString(file.takeError()).c_str());
            return Weights{std::shared_ptr<const raptor::nn::SafeTensorsFile>(std::move(*file))};
          },
          nb::arg("path"))
      .def_prop_ro("path", [](const Weights &w) { return w.file->path().str(); })
      .def("names", [](const Weights &w) { return w.file->names(); }, "The tensors' names, in the file's order.")
      .def("__contains__", [](const Weights &w, const std::string &name) { return w.file->find(name) != nullptr; })
      .def("__len__", [](const Weights &w) { return w.file->names().size(); })
      .def(
          "__getitem__", [](const Weights &w, const std::string &name) { return weightArray(*w.file, name); },
          "A tensor as a numpy array of its own (float types as float32).");

  m.attr("AUTO_ROW_BLOCK") = raptor::CompileOptions::kAutoRowBlock;
  m.attr("AUTO_LANE_TILES") = raptor::CompileOptions::kAutoLaneTiles;
  m.attr("SHORT_LANES_MARKER") = raptor::pim::kShortLanesMarker;
  m.attr("LOCAL_MEMORY_MARKER") = raptor::pim::kLocalMemoryMarker;
  nb::class_<raptor::CompileOptions> options(m, "CompileOptions",
                                             "What a compile is told (raptor compile's defaults; passes/pipeline).");
  options.def(nb::init<>())
      .def_rw("target", &raptor::CompileOptions::targetPath, "target file (empty: the module's pim.target)")
      .def_rw("weights", &raptor::CompileOptions::weightsPath, "weights file (empty: the open Weights given)")
      .def_rw("output", &raptor::CompileOptions::output)
      .def_rw("source", &raptor::CompileOptions::source)
      .def_rw("replication_budget", &raptor::CompileOptions::replicationBudget)
      .def_rw("pipeline_depth", &raptor::CompileOptions::pipelineDepth, "0: latency mode")
      .def_rw("row_block", &raptor::CompileOptions::rowBlock, "latency mode: rows per streamed block (0: whole "
                                                               "tensors)")
      .def_rw("row_block_alternative", &raptor::CompileOptions::rowBlockAlternative,
              "with row_block: keep the faster of the streamed and whole-tensor schedules (queue model)")
      .def_rw("lane_tiles", &raptor::CompileOptions::laneTiles,
              "latency mode: the most row tiles one lane stacks (0: as many as a core holds)")
      .def_rw("lane_tiles_auto", &raptor::CompileOptions::laneTilesAuto,
              "lane_tiles in latency mode only: a pipeline keeps full lanes")
      .def_rw("local_boundaries", &raptor::CompileOptions::localBoundaries,
              "pipeline mode, crossing 'auto': the forms holding the iteration boundary in local memory "
              "(local, skewed) are candidates where estimated to fit")
      .def_rw("unroll_limit", &raptor::CompileOptions::unrollLimit);
  spellingProperty(options, "precision", &raptor::CompileOptions::precision, raptor::kPrecisions, "precision");
  spellingProperty(options, "policy", &raptor::CompileOptions::policy, raptor::codec::kPolicyChoices, "policy");
  spellingProperty(options, "placement", &raptor::CompileOptions::placement, raptor::codec::kPlacements, "placement");
  spellingProperty(options, "replicate", &raptor::CompileOptions::replicate, raptor::spatial::kReplicationRules,
                   "replication rule");
  spellingProperty(options, "follow_rows", &raptor::CompileOptions::followRows, raptor::kFollowRows,
                   "follow-rows setting");
  spellingProperty(options, "algorithm", &raptor::CompileOptions::algorithm, raptor::spatial::kListAlgorithms,
                   "algorithm");
  spellingProperty(options, "transfers", &raptor::CompileOptions::transfers, raptor::spatial::kTransferModes,
                   "transfer mode");
  spellingProperty(options, "crossing", &raptor::CompileOptions::crossing, raptor::spatial::kCrossingModes,
                   "crossing form");
  spellingProperty(options, "pimsim", &raptor::CompileOptions::pimsim, raptor::pim::kPimsimFiles, "pimsim form");

  m.def(
      "compile_steps",
      [](const std::string &phase, const raptor::CompileOptions &o) {
        std::vector<std::string> out;
        for (const raptor::CompileStep &s : raptor::compileSteps(phaseOf(phase), o))
          out.push_back(s.description);
        return out;
      },
      nb::arg("phase"), nb::arg("options"), "What each pass of a phase does, in order.");
  m.def(
      "run_compile_phase",
      [](nb::handle module, const std::string &phase, const raptor::CompileOptions &o, std::optional<Weights> weights,
         std::function<void(std::string)> progress) {
        std::vector<std::pair<std::string, double>> seconds;
        for (raptor::CompileStep &step : raptor::compileSteps(phaseOf(phase), o, weights ? weights->file : nullptr)) {
          if (progress)
            progress(step.description);
          // Ctrl-C and SIGTERM are seen between passes.
          if (PyErr_CheckSignals() != 0)
            throw nb::python_error();
          auto start = std::chrono::steady_clock::now();
          runPass(module, step.create());
          seconds.emplace_back(step.description,
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return seconds;
      },
      nb::arg("module"), nb::arg("phase"), nb::arg("options"), nb::arg("weights") = nb::none(),
      nb::arg("progress") = nb::none(),
      "Runs a phase's passes (raptor-prepare-model, raptor-compile-backend or raptor-compile) on the module; "
      "progress(description) before each; returns [(description, seconds)].");

  // Reports that travel in the IR (passes/JsonAttributes.h).
  m.def(
      "set_report",
      [](nb::handle op, const std::string &name, nb::handle value) {
        mlir::Operation *o = operationArgument(op);
        o->setAttr(name, raptor::attributeOfJson(o->getContext(), jsonOfPython(value)));
      },
      nb::arg("op"), nb::arg("name"), nb::arg("value"),
      "Sets the attribute `name` of an operation (or module) to a report: dicts, lists, numbers, strings, None.");
  m.def(
      "get_report",
      [](nb::handle op, const std::string &name) -> nb::object {
        mlir::Attribute a = operationArgument(op)->getAttr(name);
        return a ? pythonOfJson(raptor::jsonOfAttribute(a)) : nb::none();
      },
      nb::arg("op"), nb::arg("name"), "The report in the attribute `name` of an operation, or None.");

  // Each pass alone, with typed options.
  m.def(
      "fuse_rescales", [](nb::handle module) { runPass(module, raptor::createFuseRescales()); },
      nb::arg("module"), "raptor-fuse-rescales: one requantization per int8 layer in integer-only programs.");
  m.def(
      "fold_batch_norm", [](nb::handle module) { runPass(module, raptor::createFoldBatchNorm()); },
      nb::arg("module"), "raptor-fold-batch-norm.");
  m.def(
      "place_codecs",
      [](nb::handle module, const std::string &policy, const std::string &placement, const std::string &table,
         bool materialize) {
        raptor::PlaceCodecsOptions o;
        o.policy = parseSpelling(llvm::ArrayRef(raptor::codec::kPolicyChoices), policy, "policy");
        o.placement = parseSpelling(llvm::ArrayRef(raptor::codec::kPlacements), placement, "placement");
        o.table = table;
        o.materialize = materialize;
        runPass(module, raptor::createPlaceCodecs(o));
      },
      nb::arg("module"), nb::arg("policy") = "W", nb::arg("placement") = "nonlocal-coalesced",
      nb::arg("table") = "", nb::arg("materialize") = true,
      "raptor-place-codecs; `table` a commutation table file (empty: the seed's Table 5).");
  m.def(
      "materialize_codecs", [](nb::handle module) { runPass(module, raptor::createMaterializeCodecs()); },
      nb::arg("module"), "raptor-materialize-codecs.");
  m.def(
      "expand_requantizers", [](nb::handle module) { runPass(module, raptor::createExpandRequantizers()); },
      nb::arg("module"), "raptor-expand-requantizers.");
  m.def(
      "build_compute_graph",
      [](nb::handle module, const std::string &target, const std::string &replicate, double budget,
         bool followRows, const std::string &mode, int64_t rowBlock, int64_t laneTiles) {
        raptor::BuildComputeGraphOptions o;
        o.targetPath = target;
        o.replicate = parseSpelling(llvm::ArrayRef(raptor::spatial::kReplicationRules), replicate, "replication rule");
        o.mode = parseSpelling(llvm::ArrayRef(raptor::spatial::kScheduleModes), mode, "mode");
        o.replicationBudget = budget;
        o.followRows = followRows;
        o.rowBlock = rowBlock;
        o.laneTiles = laneTiles;
        runPass(module, raptor::createBuildComputeGraph(o));
      },
      nb::arg("module"), nb::arg("target") = "", nb::arg("replicate") = "none", nb::arg("replication_budget") = 0.5,
      nb::arg("follow_rows") = true, nb::arg("mode") = "latency", nb::arg("row_block") = 0,
      nb::arg("lane_tiles") = 0,
      "raptor-build-compute-graph for the target file (empty: the module's pim.target); follow_rows: "
      "element-wise and pooling operators follow row copies; mode: the schedule the graph is for; row_block: "
      "latency mode's rows per streamed block (0: whole tensors); lane_tiles: latency mode's most row tiles "
      "per lane (0: a core's).");
  m.def(
      "schedule_spatial",
      [](nb::handle module, const std::string &algorithm, const std::string &mode, int64_t depth,
         const std::string &report, const std::string &periodic, bool periodicAttribute,
         const std::string &crossing) {
        raptor::ScheduleSpatialOptions o;
        o.algorithm = parseSpelling(llvm::ArrayRef(raptor::spatial::kListAlgorithms), algorithm, "algorithm");
        o.mode = parseSpelling(llvm::ArrayRef(raptor::spatial::kScheduleModes), mode, "mode");
        o.depth = depth;
        o.report = report;
        o.periodic = periodic;
        o.periodicAttribute = periodicAttribute;
        o.crossing = parseSpelling(llvm::ArrayRef(raptor::spatial::kCrossingModes), crossing, "crossing form");
        runPass(module, raptor::createScheduleSpatial(o));
      },
      nb::arg("module"), nb::arg("algorithm") = "peft", nb::arg("mode") = "latency", nb::arg("depth") = 4,
      nb::arg("report") = "", nb::arg("periodic") = "", nb::arg("periodic_attribute") = false,
      nb::arg("crossing") = "auto",
      "raptor-schedule-spatial: latency mode (algorithm peft or heft) or pipeline mode of at most `depth` "
      "stages (the selection on the graph's `selection`), its selection report also written to `report` and "
      "the periodic diagnostic to `periodic` when given, or kept as the graph's `periodic` attribute; "
      "`crossing`: how a pipeline's data crosses to later stages (auto: the cheapest form predicted).");
  m.def(
      "integer_refusal",
      [](nb::handle module) -> std::optional<std::string> {
        for (auto f : moduleArgument(module).getOps<mlir::func::FuncOp>())
          if (std::optional<mlir::Operation *> op = raptor::pim::withoutIntegerLowering(f))
            return (*op)->getName().getStringRef().str();
        return std::nullopt;
      },
      nb::arg("module"),
      "The first operator an integer-only int8 program cannot compute (raptor-lower-to-pim refuses it "
      "under raptor.fixed_point_bits), or None.");
  m.def(
      "lower_to_pim",
      [](nb::handle module, const std::string &weights) {
        raptor::LowerToPimOptions o;
        o.weightsPath = weights;
        runPass(module, raptor::createLowerToPim(o));
      },
      nb::arg("module"), nb::arg("weights") = "", "raptor-lower-to-pim with a .safetensors weights file.");
  m.def(
      "emit_pim",
      [](nb::handle module, const std::string &output, const std::string &pimsim, int64_t unrollLimit,
         const std::string &source) {
        raptor::EmitPimOptions o;
        o.output = output;
        o.pimsim = parseSpelling(llvm::ArrayRef(raptor::pim::kPimsimFiles), pimsim, "pimsim form");
        o.unrollLimit = unrollLimit;
        o.source = source;
        runPass(module, raptor::createEmitPim(o));
      },
      nb::arg("module"), nb::arg("output"), nb::arg("pimsim") = "binary", nb::arg("unroll_limit") = 16000000,
      nb::arg("source") = "", "raptor-emit-pim into the directory `output` (new, or empty).");
}
