//===- EmitPim.cpp - Writing a pim.chip as a program directory --*- C++ -*-===//
//
// raptor-emit-pim: the pim.chip of the module becomes a Program
// (simulator/Program.h) and is written as pimsim-nn's directory plus
// Raptor's manifest, memory image, crossbar contents and compact programs.
//
//===----------------------------------------------------------------------===//
#include "dialects/pim/PimDialect.h"
#include "simulator/Program.h"
#include "dialects/spatial/SpatialDialect.h"
#include "passes/emission/Passes.h"
#include "simulator/TargetModel.h"

#include "passes/JsonAttributes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

namespace raptor {
#define GEN_PASS_DEF_EMITPIM
#include "passes/emission/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace pim = raptor::pim;

namespace {

/// The values of a float32 elements attribute.
std::vector<float> floatsOf(ElementsAttr attr) {
  std::vector<float> out;
  out.reserve(size_t(attr.getNumElements()));
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.getElementType().isF32()) {
    auto values = dense.getValues<float>();
    out.assign(values.begin(), values.end());
    return out;
  }
  for (APFloat v : attr.getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(v.convertToFloat());
  }
  return out;
}

/// The little-endian bytes of a data op's values: f32, or 32-bit integers
/// (an int8 operator's bias in accumulator units).
std::vector<char> bytesOf(ElementsAttr attr) {
  std::vector<char> out;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.getElementType().isInteger(32)) {
    for (const APInt &v : dense.getValues<APInt>()) {
      int32_t x = int32_t(v.getSExtValue());
      out.insert(out.end(), reinterpret_cast<const char *>(&x), reinterpret_cast<const char *>(&x) + 4);
    }
    return out;
  }
  std::vector<float> values = floatsOf(attr);
  out.assign(reinterpret_cast<const char *>(values.data()), reinterpret_cast<const char *>(values.data()) + 4 * values.size());
  return out;
}

/// Operator names by the instructions' locations (the lowering names each
/// instruction's location after its task: "<op> <task>").
struct Origins {
  std::vector<std::string> &names;
  llvm::StringMap<int32_t> index;

  int32_t of(Location loc) {
    auto name = dyn_cast<NameLoc>(loc);
    if (!name || !name.getName().getValue().starts_with("task "))
      return -1;
    StringRef key = name.getName().getValue().drop_front(5);
    auto [it, inserted] = index.try_emplace(key, int32_t(names.size()));
    if (inserted)
      names.push_back(key.str());
    return it->second;
  }
};

void appendCode(Block &block, pim::CoreProgram &p, Origins &origins) {
  for (Operation &op : block) {
    if (auto repeat = dyn_cast<pim::RepeatOp>(op)) {
      pim::Instruction begin;
      begin.opcode = pim::Opcode::RepeatBegin;
      begin.len = repeat.getCount();
      begin.size = int64_t(repeat.getRegs().size());
      begin.rows = int64_t(p.strides.size());
      for (auto [r, s] : llvm::zip(repeat.getRegs(), repeat.getStrides()))
        p.strides.push_back({uint8_t(r), s});
      p.code.push_back(begin);
      appendCode(repeat.getBody().front(), p, origins);
      pim::Instruction end;
      end.opcode = pim::Opcode::RepeatEnd;
      p.code.push_back(end);
    } else if (std::optional<pim::Instruction> in = pim::toInstruction(&op)) {
      in->origin = origins.of(op.getLoc());
      p.code.push_back(*in);
    }
  }
}

FailureOr<pim::Program> programOf(pim::ChipOp chip) {
  pim::Program program;
  program.cores = chip.getCores();
  program.crossbarsPerCore = chip.getCrossbars();
  program.xbarRows = chip.getXbarRows();
  program.xbarCols = chip.getXbarCols();
  program.cellBits = chip.getCellBits();
  program.weightBits = chip.getWeightBits();
  program.localMemory = chip.getMemory();
  // An integer-only program (raptor-lower-to-pim under fixed point).
  auto fixedPoint = chip->getAttrOfType<IntegerAttr>("fixed_point_bits");
  program.integerOnly = bool(fixedPoint);
  program.frames = chip.getFrames();
  program.programs.resize(size_t(program.cores));
  Origins origins{program.operators, {}};
  for (int64_t i = 0; i < program.cores; ++i)
    program.programs[size_t(i)].id = i;
  std::map<std::string, std::vector<float>> weights;
  for (auto w : chip.getBody().getOps<pim::WeightOp>())
    weights[w.getSymName().str()] = floatsOf(w.getValue());
  int64_t globalBytes = 0;
  std::vector<std::pair<int64_t, std::vector<char>>> data;
  for (auto d : chip.getBody().getOps<pim::DataOp>()) {
    data.push_back({d.getAddress(), bytesOf(d.getValue())});
    globalBytes = std::max(globalBytes, d.getAddress() + int64_t(data.back().second.size()));
  }
  for (auto io : chip.getBody().getOps<pim::IoOp>()) {
    auto type = cast<RankedTensorType>(io.getType());
    pim::IoBuffer b;
    b.name = io.getName().str();
    b.shape.assign(type.getShape().begin(), type.getShape().end());
    b.address = io.getAddress();
    if (std::optional<int64_t> vocabulary = io.getVocabulary()) {
      b.dtype = "int32"; // token ids: unscaled integers
      b.vocabulary = *vocabulary;
    } else if (type.getElementType().isInteger(32)) {
      if (!fixedPoint)
        return io.emitOpError("holds int32 fixed point, but the chip has no 'fixed_point_bits'");
      b.dtype = "int32";
      b.fixedPointBits = fixedPoint.getInt();
    }
    raptor::layout::Layout l = io.getLayout().getLayout();
    b.layout = l.str();
    globalBytes = std::max(globalBytes, io.getAddress() + 4 * l.cosize());
    (io.getKind() == "input" ? program.inputs : program.outputs).push_back(b);
  }
  // The lowering's extent also covers regions only instructions name.
  if (auto extent = chip->getAttrOfType<IntegerAttr>("global_bytes"))
    globalBytes = std::max(globalBytes, extent.getInt());
  program.globalMemory.assign(size_t(globalBytes), 0);
  for (auto &[address, values] : data)
    std::memcpy(program.globalMemory.data() + address, values.data(), values.size());
  for (auto core : chip.getBody().getOps<pim::CoreOp>()) {
    pim::CoreProgram &p = program.programs[size_t(core.getId())];
    if (auto bytes = core->getAttrOfType<IntegerAttr>("local_bytes"))
      p.localBytes = bytes.getInt();
    for (auto g : core.getBody().getOps<pim::GroupOp>()) {
      pim::CrossbarGroup group;
      group.id = g.getId();
      group.crossbars = g.getCrossbars();
      group.rows = g.getRows()[1] - g.getRows()[0];
      group.cols = g.getCols()[1] - g.getCols()[0];
      group.weight = g.getWeight().str();
      const std::vector<float> &w = weights[g.getWeight().str()];
      std::vector<raptor::layout::Layout> modes = g.getMatrix().getLayout().modes();
      std::vector<int64_t> rowOffsets, colOffsets;
      for (int64_t k = g.getRows()[0]; k < g.getRows()[1]; ++k)
        rowOffsets.push_back(modes[0](k));
      for (int64_t n = g.getCols()[0]; n < g.getCols()[1]; ++n)
        colOffsets.push_back(modes[1](n));
      for (int64_t j = 0; j < group.crossbars; ++j) {
        int64_t cols = group.columnsOf(j, program.xbarCols);
        for (int64_t r = 0; r < group.rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            group.values.push_back(w[size_t(rowOffsets[size_t(r)] + colOffsets[size_t(j * program.xbarCols + c)])]);
      }
      p.groups.push_back(std::move(group));
    }
    appendCode(core.getBody().front(), p, origins);
    if (llvm::Error e = pim::linkLoops(p))
      return core.emitError() << llvm::toString(std::move(e));
  }
  // Transfers: the tags and sizes of every channel.
  llvm::json::Array transfers;
  chip.walk([&](pim::SendOp send) {
    auto core = send->getParentOfType<pim::CoreOp>();
    transfers.push_back(llvm::json::Object{
        {"tag", send.getTag()}, {"from", core.getId()}, {"to", send.getCore()}, {"bytes", send.getSize()}});
  });
  program.reports["transfers"] = std::move(transfers);
  // int8 when some MVM takes int8 inputs (a codec placement's program).
  bool integer = false;
  chip.walk([&](pim::SetbwOp op) { integer |= op.getIbiw() == 8; });
  program.reports["precision"] = integer ? "int8" : "fp32";
  return program;
}

struct EmitPimPass : raptor::impl::EmitPimBase<EmitPimPass> {
  using Base::Base;

  /// Writes the directory beside `output` and renames it into place, so
  /// that `output` appears complete or not at all. An existing `output` is
  /// replaced only if it is empty or a program directory Raptor wrote
  /// (pim::checkReplaceable); the old program is moved aside first and
  /// removed last.
  LogicalResult writeAtomically(ModuleOp module, const pim::Program &program, const pim::WriteOptions &options,
                                ArrayRef<std::pair<std::string, llvm::json::Value>> reportFiles) {
    namespace fs = llvm::sys::fs;
    if (llvm::Error e = pim::checkReplaceable(output))
      return module.emitError() << llvm::toString(std::move(e));
    SmallString<256> staging(output);
    while (!staging.empty() && llvm::sys::path::is_separator(staging.back()))
      staging.pop_back();
    staging += ".emit";
    // (createUniqueDirectory puts a relative name under the temporary
    // directory: the staging copy must sit beside the output, to be renamed.)
    if (std::error_code ec = fs::make_absolute(staging))
      return module.emitError() << "cannot write '" << output << "': " << ec.message();
    // (Missing parents are created, as for any output file of raptor-opt's.)
    if (StringRef parent = llvm::sys::path::parent_path(staging); !parent.empty())
      if (std::error_code ec = fs::create_directories(parent))
        return module.emitError() << "cannot create '" << parent << "': " << ec.message();
    if (std::error_code ec = fs::createUniqueDirectory(staging, staging))
      return module.emitError() << "cannot create a directory beside '" << output << "': " << ec.message();
    auto removeStaging = llvm::make_scope_exit([&] { fs::remove_directories(staging); });
    if (llvm::Error e = pim::writeDirectory(program, staging, options))
      return module.emitError() << llvm::toString(std::move(e));
    std::error_code ec;
    if (!reportFiles.empty()) {
      SmallString<256> reports(staging);
      llvm::sys::path::append(reports, "reports");
      if (std::error_code ec = fs::create_directories(reports))
        return module.emitError() << "cannot create '" << reports << "': " << ec.message();
      for (const auto &[name, value] : reportFiles) {
        SmallString<256> path(reports);
        llvm::sys::path::append(path, name);
        llvm::raw_fd_ostream os(path, ec);
        if (ec)
          return module.emitError() << "cannot write '" << path << "': " << ec.message();
        os << llvm::formatv("{0:2}", value) << "\n";
      }
    }
    SmallString<256> aside;
    bool replacing = fs::exists(output) && fs::directory_iterator(output, ec) != fs::directory_iterator();
    if (replacing) {
      aside = staging;
      aside += ".old";
      if (std::error_code ec2 = fs::rename(output, aside))
        return module.emitError() << "cannot replace '" << output << "': " << ec2.message();
    }
    if (std::error_code ec2 = fs::rename(staging, output)) {
      if (replacing)
        fs::rename(aside, output);
      return module.emitError() << "cannot write '" << output << "': " << ec2.message();
    }
    removeStaging.release();
    if (replacing)
      fs::remove_directories(aside);
    return success();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<pim::ChipOp> chips(module.getOps<pim::ChipOp>());
    if (chips.size() != 1 || output.empty()) {
      module.emitError() << (output.empty() ? "raptor-emit-pim needs output=DIR"
                                            : "raptor-emit-pim needs exactly one pim.chip");
      return signalPassFailure();
    }
    pim::ChipOp chip = chips.front();
    pim::WriteOptions options;
    options.unrollLimit = unrollLimit;
    options.pimsim = pimsim;
    // A chip written without a target implies one from its own geometry.
    pim::TargetModel target =
        chip.getTarget() ? chip.getTarget()->getModel()
                         : pim::TargetModel::forChip(unsigned(chip.getCores()), unsigned(chip.getCrossbars()),
                                                     unsigned(chip.getXbarRows()), unsigned(chip.getXbarCols()),
                                                     unsigned(chip.getCellBits()), unsigned(chip.getWeightBits()),
                                                     chip.getMemory());
    options.chipConfig = target.pimsimChipConfig();
    options.networkConfig = target.pimsimNetworkConfig();
    FailureOr<pim::Program> program = programOf(chip);
    if (failed(program))
      return signalPassFailure();
    // The manifest says what the program is of and for: the model, the
    // target, a quantized model's codecs and calibration (raptor.quantization,
    // written where it was calibrated), and the schedule.
    if (!source.empty())
      program->reports["source"] = source;
    if (chip.getTarget())
      program->reports["target"] = target.name;
    if (Attribute quantization = module->getAttr("raptor.quantization"))
      program->reports["quantization"] = raptor::jsonOfAttribute(quantization);
    std::vector<std::pair<std::string, llvm::json::Value>> reportFiles;
    for (auto graph : module.getOps<raptor::spatial::GraphOp>()) {
      if (Attribute selection = graph->getAttr("selection"))
        reportFiles.push_back({"pipeline_selection.json", raptor::jsonOfAttribute(selection)});
      // The schedule per task, named as the manifest's operators ("<op>
      // <task>"): what `raptor simulate --timing` compares the simulated
      // tasks with.
      llvm::json::Array scheduled;
      for (auto task : graph.getBody().getOps<raptor::spatial::TaskOp>()) {
        auto op = task->getAttrOfType<StringAttr>("op");
        llvm::json::Object t{{"name", (op ? op.getValue().str() + " " : std::string()) + task.getName().str()},
                             {"cost_ns", task.getCostNs()}};
        for (const char *key : {"core", "start_ns", "predicted_start_ns"})
          if (auto v = task->getAttrOfType<IntegerAttr>(key))
            t[key] = v.getInt();
        scheduled.push_back(std::move(t));
      }
      reportFiles.push_back({"schedule_tasks.json", llvm::json::Value(std::move(scheduled))});
      llvm::json::Object schedule;
      for (const char *key : {"makespan_ns", "critical_path_ns", "serial_work_ns", "transfer_work_ns", "cores_used",
                              "predicted_latency_ns", "predicted_interval_ns", "alternative_tie_interval_ns",
                              "alternative_latency_ns", "challenged_latency_ns", "challenged_interval_ns"})
        if (auto v = graph->getAttrOfType<IntegerAttr>(key))
          schedule[key] = v.getInt();
      // Rows per streamed block (0: whole tensors per task).
      auto rowBlock = graph->getAttrOfType<IntegerAttr>("row_block");
      schedule["row_block"] = rowBlock ? rowBlock.getInt() : 0;
      // The most row tiles of a lane (0: as many as a core holds).
      auto laneTiles = graph->getAttrOfType<IntegerAttr>("lane_tiles");
      schedule["lane_tiles"] = laneTiles ? laneTiles.getInt() : 0;
      for (const char *key : {"algorithm", "mode", "prediction", "crossing", "row_block_fallback", "lane_tiles_fallback",
                              "transfers", "copies_weighed_by"})
        if (auto v = graph->getAttrOfType<StringAttr>(key))
          schedule[key] = v.getValue().str();
      if (auto v = graph->getAttrOfType<DenseI64ArrayAttr>("stages"))
        schedule["stage_cores"] = llvm::json::Array(v.asArrayRef());
      program->reports["schedule"] = std::move(schedule);
    }
    if (failed(writeAtomically(module, *program, options, reportFiles)))
      return signalPassFailure();
  }
};

} // namespace
