//===- TargetModel.cpp - A PIM target described in JSON ---------*- C++ -*-===//
#include "simulator/TargetModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using llvm::FailureOr;
using llvm::StringRef;
using llvm::Twine;
using llvm::failure;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace raptor::pim {

namespace {

/// The sections of a target file and their keys (a misspelt key would
/// otherwise be ignored and its default used silently: "memroy",
/// "pimsim": {"xbar_latecny": ...}).
const struct {
  StringRef section;
  std::vector<StringRef> keys;
} kSections[] = {{"clock", {"period_ns"}},
                 {"cores", {"count", "mesh_rows", "mesh_cols"}},
                 {"crossbar", {"per_core", "rows", "cols", "cell_bits", "weight_bits"}},
                 {"network", {"link_bytes_per_cycle", "hop_latency_cycles"}},
                 {"memory", {"local_bytes"}}};

/// The pimsim network file holds a latency per pair of cores: beyond this
/// many cores deriving it takes minutes and gigabytes (the 100000 cores
/// TimingConfig allows were never reached: 100001 ran out of memory).
constexpr unsigned kMaxCores = 1024;

} // namespace

FailureOr<TargetModel> TargetModel::parse(StringRef text, StringRef source,
                                          llvm::function_ref<void(const Twine &)> error) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    error(source + ": invalid JSON: " + llvm::toString(json.takeError()));
    return failure();
  }
  const llvm::json::Object *root = json->getAsObject();
  if (!root) {
    error(source + ": the target must be a JSON object");
    return failure();
  }
  bool ok = true;
  auto fail = [&](const Twine &message) {
    if (ok)
      error(source + ": " + message);
    ok = false;
  };
  auto known = [&](const llvm::json::Object &obj, StringRef where, ArrayRef<StringRef> keys) {
    for (const auto &entry : obj)
      if (!llvm::is_contained(keys, StringRef(entry.first)))
        fail("unknown key '" + where + StringRef(entry.first) + "' (expected " + llvm::join(keys, ", ") + ")");
  };
  known(*root, "", {"name", "clock", "cores", "crossbar", "network", "memory", "pimsim", "timing_cycles"});
  for (const auto &s : kSections)
    if (const llvm::json::Object *obj = root->getObject(s.section))
      known(*obj, (s.section + ".").str(), s.keys);
  if (root->get("timing_cycles")) // costs come from the timing rules of the pimsim section now
    fail("'timing_cycles' is no longer read: costs follow pimsim-nn's timing rules (set them in the 'pimsim' "
         "section, docs/scheduling.md)");
  // Numbers as read (NaN where missing or not a number): validate() judges them.
  auto number = [&](StringRef section, StringRef key) {
    const llvm::json::Object *obj = root->getObject(section);
    std::optional<double> v = obj ? obj->getNumber(key) : std::nullopt;
    return v ? *v : std::nan("");
  };
  Fields f;
  if (std::optional<StringRef> name = root->getString("name"))
    f.name = name->str();
  f.clockPeriodNs = number("clock", "period_ns");
  f.cores = number("cores", "count");
  f.meshRows = number("cores", "mesh_rows");
  f.meshCols = number("cores", "mesh_cols");
  f.crossbarsPerCore = number("crossbar", "per_core");
  f.crossbarRows = number("crossbar", "rows");
  f.crossbarCols = number("crossbar", "cols");
  f.cellBits = number("crossbar", "cell_bits");
  f.weightBits = number("crossbar", "weight_bits");
  f.linkBytesPerCycle = number("network", "link_bytes_per_cycle");
  f.hopLatencyCycles = number("network", "hop_latency_cycles");
  if (const llvm::json::Object *memory = root->getObject("memory")) {
    std::optional<int64_t> bytes = memory->getInteger("local_bytes");
    f.localMemoryBytes = bytes ? double(*bytes) : std::nan("");
  }
  if (const llvm::json::Value *pimsim = root->get("pimsim")) {
    const llvm::json::Object *o = pimsim->getAsObject();
    if (!o)
      fail("'pimsim' must be an object of numbers");
    for (const auto &[key, value] : o ? *o : llvm::json::Object())
      if (!value.getAsNumber())
        fail("'pimsim." + key.str() + "' must be a number");
    if (o)
      f.pimsim = *o;
  }
  if (!ok)
    return failure();
  return validate(std::move(f), source, error);
}

FailureOr<TargetModel> TargetModel::validate(Fields f, StringRef source,
                                             llvm::function_ref<void(const Twine &)> error) {
  bool ok = true;
  auto fail = [&](const Twine &message) {
    if (ok)
      error(source + ": " + message);
    ok = false;
  };
  auto positive = [&](StringRef key, double v, bool zeroAllowed = false) {
    if ((zeroAllowed ? !(v >= 0) : !(v > 0)) || !std::isfinite(v))
      fail("'" + key + "' must be a " + (zeroAllowed ? "non-negative" : "positive") + " number");
    return v;
  };
  auto integer = [&](StringRef key, double v) {
    positive(key, v);
    if (ok && (v != std::floor(v) || v > 1e9))
      fail("'" + key + "' must be a positive integer");
    return ok ? unsigned(v) : 0u;
  };
  TargetModel t;
  t.name = f.name;
  t.clockPeriodNs = positive("clock.period_ns", f.clockPeriodNs);
  t.cores = integer("cores.count", f.cores);
  t.meshRows = integer("cores.mesh_rows", f.meshRows);
  t.meshCols = integer("cores.mesh_cols", f.meshCols);
  t.crossbarsPerCore = integer("crossbar.per_core", f.crossbarsPerCore);
  t.crossbarRows = integer("crossbar.rows", f.crossbarRows);
  t.crossbarCols = integer("crossbar.cols", f.crossbarCols);
  t.cellBits = integer("crossbar.cell_bits", f.cellBits);
  t.weightBits = integer("crossbar.weight_bits", f.weightBits);
  t.linkBytesPerCycle = positive("network.link_bytes_per_cycle", f.linkBytesPerCycle);
  t.hopLatencyCycles = positive("network.hop_latency_cycles", f.hopLatencyCycles, /*zeroAllowed=*/true);
  if (f.localMemoryBytes) {
    double bytes = *f.localMemoryBytes;
    if (!(bytes >= 1024 && bytes <= double(int64_t(1) << 31)) || bytes != std::floor(bytes))
      fail("'memory.local_bytes' must be an integer from 1024 to 2^31");
    else
      t.localMemoryBytes = int64_t(bytes);
  }
  llvm::json::Object defaults = t.pimsimDefaults();
  SmallVector<StringRef> keys;
  for (const auto &entry : defaults)
    keys.push_back(entry.first);
  llvm::sort(keys);
  for (const auto &entry : f.pimsim) {
    if (!llvm::is_contained(keys, StringRef(entry.first)))
      fail("unknown key 'pimsim." + StringRef(entry.first) + "' (expected " + llvm::join(keys, ", ") + ")");
    else if (!entry.second.getAsNumber())
      fail("'pimsim." + StringRef(entry.first) + "' must be a number");
  }
  t.pimsim = std::move(f.pimsim);
  if (ok && t.cores > kMaxCores)
    fail("'cores.count' " + Twine(t.cores) + " is more than the " + Twine(kMaxCores) + " supported");
  if (ok && uint64_t(t.meshRows) * t.meshCols < t.cores)
    fail("a " + Twine(t.meshRows) + "x" + Twine(t.meshCols) + " mesh cannot hold " + Twine(t.cores) + " cores");
  if (!ok || !t.deriveTiming(source, error))
    return failure();
  return t;
}

TargetModel::Fields TargetModel::fields() const {
  Fields f;
  f.name = name;
  f.clockPeriodNs = clockPeriodNs;
  f.cores = cores;
  f.meshRows = meshRows;
  f.meshCols = meshCols;
  f.crossbarsPerCore = crossbarsPerCore;
  f.crossbarRows = crossbarRows;
  f.crossbarCols = crossbarCols;
  f.cellBits = cellBits;
  f.weightBits = weightBits;
  f.linkBytesPerCycle = linkBytesPerCycle;
  f.hopLatencyCycles = hopLatencyCycles;
  f.localMemoryBytes = double(localMemoryBytes);
  f.pimsim = pimsim;
  return f;
}

llvm::json::Value TargetModel::toJson() const {
  llvm::json::Object root{
      {"name", name},
      {"clock", llvm::json::Object{{"period_ns", clockPeriodNs}}},
      {"cores", llvm::json::Object{{"count", int64_t(cores)},
                                   {"mesh_rows", int64_t(meshRows)},
                                   {"mesh_cols", int64_t(meshCols)}}},
      {"crossbar", llvm::json::Object{{"per_core", int64_t(crossbarsPerCore)},
                                      {"rows", int64_t(crossbarRows)},
                                      {"cols", int64_t(crossbarCols)},
                                      {"cell_bits", int64_t(cellBits)},
                                      {"weight_bits", int64_t(weightBits)}}},
      {"network", llvm::json::Object{{"link_bytes_per_cycle", linkBytesPerCycle},
                                     {"hop_latency_cycles", hopLatencyCycles}}},
      {"memory", llvm::json::Object{{"local_bytes", localMemoryBytes}}}};
  if (!pimsim.empty())
    root["pimsim"] = llvm::json::Object(pimsim);
  return root;
}

FailureOr<TargetModel> TargetModel::load(StringRef path,
                                         llvm::function_ref<void(const Twine &)> error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error("cannot read target '" + path + "': " + buffer.getError().message());
    return failure();
  }
  return parse((*buffer)->getBuffer(), path, error);
}

TargetModel TargetModel::forChip(unsigned cores, unsigned crossbarsPerCore, unsigned rows, unsigned cols,
                                 unsigned cellBits, unsigned weightBits, int64_t localMemoryBytes) {
  TargetModel t;
  t.name = "the chip's own geometry";
  t.cores = cores;
  t.meshRows = std::max(1u, unsigned(std::sqrt(double(cores))));
  t.meshCols = (cores + t.meshRows - 1) / t.meshRows;
  t.crossbarsPerCore = crossbarsPerCore;
  t.crossbarRows = rows;
  t.crossbarCols = cols;
  t.cellBits = cellBits;
  t.weightBits = weightBits;
  t.localMemoryBytes = localMemoryBytes;
  t.linkBytesPerCycle = 32;
  t.hopLatencyCycles = 2;
  bool derived = t.deriveTiming(t.name, [](const Twine &) {});
  assert(derived && "the default pimsim parameters are valid");
  (void)derived;
  return t;
}

unsigned TargetModel::hops(unsigned a, unsigned b) const {
  int ra = a / meshCols, ca = a % meshCols, rb = b / meshCols, cb = b % meshCols;
  return unsigned(std::abs(ra - rb) + std::abs(ca - cb));
}

bool TargetModel::deriveTiming(StringRef source, llvm::function_ref<void(const Twine &)> error) {
  llvm::Expected<TimingConfig> derived =
      TimingConfig::parse(pimsimChipConfig(), pimsimNetworkConfig(), "the pimsim section", "the network");
  if (!derived) {
    error(source + ": " + llvm::toString(derived.takeError()));
    return false;
  }
  timing = std::move(*derived);
  double total = 0;
  for (unsigned a = 0; a < cores; ++a)
    for (unsigned b = 0; b < cores; ++b)
      if (a != b)
        total += timing.flit(a, b);
  meanFlitNs = cores > 1 ? total / (double(cores) * (cores - 1)) : 0;
  return true;
}

int64_t TargetModel::transferNs(int64_t bytes, unsigned a, unsigned b) const {
  if (a == b || bytes == 0)
    return 0;
  return int64_t(std::ceil(timing.transferPairNs(bytes, a, b) - 1e-9));
}

double TargetModel::meanTransferNs(int64_t bytes) const {
  if (cores < 2 || bytes == 0)
    return 0;
  // transferPairNs with the mean flit latency for every message.
  const TimingConfig &c = timing;
  double flits = std::ceil(double(bytes) / double(c.busWidth)) + 1; // the payload and the permission
  double messages = 2 * double(c.messageCycles) * c.periodNs;
  return c.serialNs(flits * meanFlitNs + messages + c.localNs(bytes, false) + double(c.receiveCycles) * c.periodNs +
                    c.deliveredWriteNs(bytes));
}

llvm::json::Object TargetModel::pimsimDefaults() const {
  // The configuration of the measurements in pim-target.md.
  return llvm::json::Object{{"rob_size", 1},
                       {"vector_width", 16},
                       {"vector_latency_cycle", 4},
                       {"xbar_latency", 30},
                       {"dac_resolution", 1},
                       {"dac_latency_cycle", 1},
                       {"dac_count", int64_t(crossbarRows)},
                       {"sample_hold_latency_cycle", 1},
                       {"adc_resolution", 8},
                       {"adc_latency_cycle", 10},
                       {"adc_count", 2},
                       {"shift_adder_latency_cycle", 1},
                       {"input_buffer_latency_cycle", 1},
                       {"output_buffer_latency_cycle", 1},
                       {"local_data_width", 64},
                       {"local_read_latency_cycle", 1},
                       {"local_write_latency_cycle", 1},
                       {"global_memory_size", int64_t(1) << 32},
                       {"global_data_width", 16},
                       {"global_read_latency_cycle", 1},
                       {"global_write_latency_cycle", 1},
                       {"bus_width", int64_t(std::max(1.0, std::round(linkBytesPerCycle)))},
                       {"sim_mode", 1},
                       {"sim_time", 1000}};
}

llvm::json::Value TargetModel::pimsimChipConfig() const {
  llvm::json::Object p = pimsimDefaults();
  for (const auto &[key, value] : pimsim)
    p[key] = value;
  auto get = [&](llvm::StringRef key) { return *p.get(key); };
  llvm::json::Object matrix{{"xbar_array_count", int64_t(crossbarsPerCore)},
                            {"xbar_size", llvm::json::Array{int64_t(crossbarRows), int64_t(crossbarCols)}},
                            {"cell_precision", int64_t(cellBits)}};
  for (const char *key : {"xbar_latency", "dac_resolution", "dac_latency_cycle", "dac_count",
                          "sample_hold_latency_cycle", "adc_resolution", "adc_latency_cycle", "adc_count",
                          "shift_adder_latency_cycle", "input_buffer_latency_cycle", "output_buffer_latency_cycle"})
    matrix[key] = get(key);
  llvm::json::Object core{{"period", clockPeriodNs},
                          {"rob_size", get("rob_size")},
                          {"vector_width", get("vector_width")},
                          {"vector_latency_cycle", get("vector_latency_cycle")},
                          {"matrix_config", std::move(matrix)},
                          {"local_memory_config",
                           llvm::json::Object{{"memory_size", localMemoryBytes},
                                              {"data_width", get("local_data_width")},
                                              {"period", clockPeriodNs},
                                              {"read_latency_cycle", get("local_read_latency_cycle")},
                                              {"write_latency_cycle", get("local_write_latency_cycle")}}}};
  llvm::json::Object chip{
      {"core_cnt", int64_t(cores)},
      {"core_config", std::move(core)},
      {"global_memory_config", llvm::json::Object{{"memory_size", get("global_memory_size")},
                                                  {"data_width", get("global_data_width")},
                                                  {"period", clockPeriodNs},
                                                  {"read_latency_cycle", get("global_read_latency_cycle")},
                                                  {"write_latency_cycle", get("global_write_latency_cycle")}}},
      {"network_config", llvm::json::Object{{"bus_topology", "mesh"},
                                            {"bus_width", get("bus_width")},
                                            {"layout", llvm::json::Array{int64_t(meshRows), int64_t(meshCols)}},
                                            {"net_config_file_path", "network.json"}}}};
  return llvm::json::Object{
      {"chip_config", std::move(chip)},
      {"sim_config", llvm::json::Object{{"sim_mode", get("sim_mode")}, {"sim_time", get("sim_time")}}}};
}

llvm::json::Value TargetModel::pimsimNetworkConfig() const {
  // ns per flit: a base of 10 plus the hop latency per mesh hop; global
  // memory (switch -10) sits beside core 0 and costs 15 plus the hops.
  double hopNs = hopLatencyCycles * clockPeriodNs;
  llvm::json::Object latency;
  auto entry = [&](int64_t src) {
    llvm::json::Object row;
    for (unsigned dst = 0; dst < cores; ++dst)
      if (int64_t(dst) != src)
        row[std::to_string(dst)] = src < 0 ? 15 + hopNs * hops(0, dst) : 10 + hopNs * hops(unsigned(src), dst);
    if (src >= 0)
      row["-10"] = 15 + hopNs * hops(0, unsigned(src));
    return row;
  };
  latency["-10"] = entry(-10);
  for (unsigned c = 0; c < cores; ++c)
    latency[std::to_string(c)] = entry(c);
  // pimsim-nn reads an "energy" object whether or not it models energy;
  // without one it reads undefined memory and fails intermittently.
  return llvm::json::Object{{"latency", std::move(latency)}, {"energy", llvm::json::Object{}}};
}

} // namespace raptor::pim
