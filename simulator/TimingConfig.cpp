//===- TimingConfig.cpp - pimsim-nn's timing parameters -------*- C++ -*-===//
#include "simulator/TimingConfig.h"

#include "simulator/Program.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

namespace raptor::pim {

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Reads the fields of one JSON object, remembering the first error.
class Fields {
public:
  Fields(const llvm::json::Object *object, std::string where, llvm::Error &error)
      : object(object), where(std::move(where)), error(error) {
    if (!object && !error)
      error = failure(this->where + " is missing or not an object");
  }

  /// A positive number (or, with `allowZero`, zero).
  double number(llvm::StringRef key, bool allowZero = false) {
    if (!object || error)
      return 1;
    std::optional<double> v = object->getNumber(key);
    if (!v || !std::isfinite(*v) || *v < 0 || (*v == 0 && !allowZero)) {
      error = failure(where + ": '" + key + "' must be a " + (allowZero ? "non-negative" : "positive") +
                      " number");
      return 1;
    }
    return *v;
  }
  int64_t integer(llvm::StringRef key) {
    double v = number(key);
    if (!error && (v != std::floor(v) || v > double(int64_t(1) << 40))) {
      error = failure(where + ": '" + key + "' must be a positive integer");
      return 1;
    }
    return int64_t(v);
  }
  Fields object_(llvm::StringRef key) {
    return Fields(object ? object->getObject(key) : nullptr, where + "." + key.str(), error);
  }

private:
  const llvm::json::Object *object;
  std::string where;
  llvm::Error &error;
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

llvm::Expected<TimingConfig> TimingConfig::parse(const llvm::json::Value &chipJson,
                                                 const llvm::json::Value &networkJson, llvm::StringRef chipName,
                                                 llvm::StringRef networkName) {
  llvm::Error error = llvm::Error::success();
  TimingConfig t;
  const llvm::json::Object *root = chipJson.getAsObject();
  Fields chip = Fields(root, chipName.str(), error).object_("chip_config");
  t.cores = chip.integer("core_cnt");
  Fields core = chip.object_("core_config");
  t.periodNs = core.number("period");
  t.robSize = core.integer("rob_size");
  t.vectorWidth = core.integer("vector_width");
  t.vectorLatencyNs = core.number("vector_latency_cycle");
  Fields matrix = core.object_("matrix_config");
  t.xbarLatencyNs = matrix.number("xbar_latency");
  t.cellPrecision = matrix.integer("cell_precision");
  t.dacResolution = matrix.integer("dac_resolution");
  t.dacLatency = matrix.integer("dac_latency_cycle");
  t.dacCount = matrix.integer("dac_count");
  t.sampleHoldLatency = matrix.integer("sample_hold_latency_cycle");
  t.adcLatency = matrix.integer("adc_latency_cycle");
  t.adcCount = matrix.integer("adc_count");
  t.shiftAdderLatency = matrix.integer("shift_adder_latency_cycle");
  t.inputBufferLatency = matrix.integer("input_buffer_latency_cycle");
  t.outputBufferLatency = matrix.integer("output_buffer_latency_cycle");
  Fields local = core.object_("local_memory_config");
  t.localDataWidth = local.integer("data_width");
  t.localPeriodNs = local.number("period");
  t.localReadLatency = local.integer("read_latency_cycle");
  t.localWriteLatency = local.integer("write_latency_cycle");
  Fields global = chip.object_("global_memory_config");
  t.globalDataWidth = global.integer("data_width");
  t.globalPeriodNs = global.number("period");
  t.globalReadLatency = global.integer("read_latency_cycle");
  t.globalWriteLatency = global.integer("write_latency_cycle");
  t.busWidth = chip.object_("network_config").integer("bus_width");
  if (error)
    return std::move(error);
  if (root) {
    const llvm::json::Array *size =
        root->getObject("chip_config")->getObject("core_config")->getObject("matrix_config")->getArray("xbar_size");
    if (!size || size->size() != 2 || !(*size)[0].getAsInteger() || !(*size)[1].getAsInteger() ||
        *(*size)[0].getAsInteger() < 1 || *(*size)[1].getAsInteger() < 1)
      return failure(chipName + ": matrix_config.xbar_size must be [rows, cols], both positive");
    t.xbarRows = *(*size)[0].getAsInteger();
    t.xbarCols = *(*size)[1].getAsInteger();
  }
  if (t.cores > 100000)
    return failure(chipName + ": core_cnt " + llvm::Twine(t.cores) + " is more than the 100000 supported");
  // The simulator keeps a reorder buffer of rob_size entries per core.
  if (t.robSize > kMaxRobSize)
    return failure(chipName + ": rob_size " + llvm::Twine(t.robSize) + " is more than the " +
                   llvm::Twine(kMaxRobSize) + " supported");

  // network.json: {"latency": {"<src>": {"<dst>": ns per flit}}}, global
  // memory as switch -10; every pair a program may use must be present.
  const llvm::json::Object *latency =
      networkJson.getAsObject() ? networkJson.getAsObject()->getObject("latency") : nullptr;
  if (!latency)
    return failure(networkName + ": expected {\"latency\": {source: {destination: ns per flit}}}");
  int64_t n = t.cores + 1;
  // Every row must be there before the (cores + 1)^2 table is allocated:
  // a 2-byte network.json beside a core_cnt of 100000 asked for 80 GB.
  for (int64_t from = -1; from < t.cores; ++from) {
    std::string src = from < 0 ? "-10" : std::to_string(from);
    const llvm::json::Object *row = latency->getObject(src);
    if (!row || int64_t(row->size()) < t.cores)
      return failure(networkName + ": latency[" + src + "] is missing or has fewer than " + llvm::Twine(t.cores) +
                     " destinations");
  }
  t.flitNs.assign(size_t(n * n), 0);
  auto node = [&](int64_t id) { return id == -10 ? std::string("-10") : std::to_string(id); };
  for (int64_t from = -1; from < t.cores; ++from)
    for (int64_t to = -1; to < t.cores; ++to) {
      if (from == to)
        continue;
      int64_t src = from < 0 ? -10 : from, dst = to < 0 ? -10 : to;
      const llvm::json::Object *row = latency->getObject(node(src));
      std::optional<double> ns = row ? row->getNumber(node(dst)) : std::nullopt;
      if (!ns || !std::isfinite(*ns) || *ns < 0)
        return failure(networkName + ": latency[" + node(src) + "][" + node(dst) +
                       "] is missing or not a non-negative number");
      int64_t a = from < 0 ? t.cores : from, b = to < 0 ? t.cores : to;
      t.flitNs[size_t(a * n + b)] = *ns;
    }
  return t;
}

llvm::Expected<TimingConfig> TimingConfig::load(llvm::StringRef directory) {
  std::string where = ("'" + directory + "'").str();
  llvm::Expected<std::string> chipPath = memberPath(directory, "chip.json", where);
  if (!chipPath)
    return chipPath.takeError();
  llvm::Expected<std::string> networkPath = memberPath(directory, "network.json", where);
  if (!networkPath)
    return networkPath.takeError();
  llvm::Expected<llvm::json::Value> chip = readJsonFile(*chipPath);
  if (!chip)
    return chip.takeError();
  llvm::Expected<llvm::json::Value> network = readJsonFile(*networkPath);
  if (!network)
    return network.takeError();
  return parse(*chip, *network, *chipPath, *networkPath);
}

double TimingConfig::mvmulNs(int64_t inputBits) const {
  // pim-target.md's stages: `passes` input passes (bit slices of the input
  // times row blocks), each through the front stages (input buffer, DAC,
  // crossbar, sample-hold) and the back stage (the conversions of
  // `adcTimes` column blocks, pipelined with shift-add and output buffer).
  // pimsim-nn's measured sweep of every one of these parameters says the
  // front stages add once, not per pass, and the back stage takes
  // mvmulBackScale of its cycles per pass (docs/timing.md, Fidelity).
  int64_t passes = ceilDiv(std::max<int64_t>(inputBits, 1), dacResolution) * ceilDiv(xbarRows, dacCount);
  int64_t adcTimes = ceilDiv(xbarCols, adcCount);
  double front = double(inputBufferLatency + dacLatency + sampleHoldLatency) +
                 std::ceil(xbarLatencyNs / periodNs);
  double back = double(adcLatency + shiftAdderLatency + outputBufferLatency) +
                double(adcTimes - 1) * double(std::max(adcLatency, shiftAdderLatency + outputBufferLatency));
  double cycles = front + mvmulOverheadCycles + mvmulBackScale * double(passes) * back;
  return cycles * periodNs;
}

double TimingConfig::localNs(int64_t bytes, bool write) const {
  return double(ceilDiv(bytes, localDataWidth) * (write ? localWriteLatency : localReadLatency)) * localPeriodNs;
}

double TimingConfig::globalNs(int64_t bytes, bool write) const {
  return double(ceilDiv(bytes, globalDataWidth) * (write ? globalWriteLatency : globalReadLatency)) *
         globalPeriodNs;
}

double TimingConfig::messageNs(int64_t bytes, int64_t from, int64_t to) const {
  double transit = from == to ? 0 : double(ceilDiv(bytes, busWidth)) * flit(from, to);
  return transit + double(messageCycles) * periodNs;
}

double TimingConfig::mvmulInstructionNs(int64_t crossbars, int64_t inputBits, int64_t outputBits,
                                        int64_t mbiw) const {
  int64_t outputs = crossbars * xbarCols * cellPrecision / std::max<int64_t>(mbiw, 1);
  return serialNs(localNs(xbarRows * inputBits / 8, false) + mvmulNs(inputBits) +
                  localNs(outputs * outputBits / 8, true));
}

double TimingConfig::vectorInstructionNs(int64_t elements, int64_t operands, int64_t elementBytes) const {
  int64_t bytes = elements * elementBytes;
  return serialNs(double(operands) * localNs(bytes, false) + vectorNs(elements) + localNs(bytes, true));
}

double TimingConfig::copyInstructionNs(int64_t bytes) const {
  return serialNs(localNs(bytes, false) + localNs(bytes, true));
}

double TimingConfig::instructionNs(const Instruction &in, const AccessContext &context, int64_t core) const {
  const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
  if (!info || info->unit == Unit::Scalar || in.opcode == Opcode::Setbw)
    return decodeNs(in.opcode);
  if (in.opcode == Opcode::Mvmul)
    return mvmulInstructionNs(context.groupCrossbars, context.ibiw, context.obiw, in.mbiw);
  if (info->unit == Unit::Vector) {
    double ns = 0;
    for (const LocalAccess &a : localAccesses(in, context))
      ns += localNs(a.bytes, a.write);
    bool matrix = info->shape == VectorShape::MatVec || info->shape == VectorShape::VecMat;
    return serialNs(ns + vectorNs(matrix ? in.rows * in.len : in.len));
  }
  int64_t global = globalNode();
  switch (in.opcode) {
  case Opcode::Ld: // a one-byte request, the service, an answer without payload, the write
    return serialNs(messageNs(1, core, global) + globalNs(in.size, false) + messageNs(0, global, core) +
                    deliveredWriteNs(in.size));
  case Opcode::St:
    return serialNs(localNs(in.size, false) + messageNs(in.size, core, global) + globalNs(in.size, true) +
                    double(storeAckCycles) * periodNs + messageNs(0, global, core));
  case Opcode::Lmv:
    return copyInstructionNs(in.len);
  case Opcode::Lldi:
    return serialNs(localNs(in.len, true));
  default:
    return 0;
  }
}

double TimingConfig::transferPairNs(int64_t bytes, int64_t from, int64_t to) const {
  // The receiver's permission reaches the sender, which reads and sends;
  // the receiver handles the payload and writes it.
  double written = messageNs(1, to, from) + localNs(bytes, false) + messageNs(bytes, from, to) +
                   double(receiveCycles) * periodNs + deliveredWriteNs(bytes);
  return serialNs(written);
}

double TimingConfig::vectorNs(int64_t elements) const {
  return double(ceilDiv(std::max<int64_t>(elements, 0), vectorWidth)) * vectorLatencyNs;
}

} // namespace raptor::pim
