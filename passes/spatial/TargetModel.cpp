//===- TargetModel.cpp - A PIM target described in JSON ---------*- C++ -*-===//
#include "passes/spatial/TargetModel.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace mlir;

namespace raptor::spatial {

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
  TargetModel t;
  bool ok = true;
  auto number = [&](StringRef section, StringRef key, double &out, bool positive = true) {
    const llvm::json::Object *obj = root->getObject(section);
    std::optional<double> v = obj ? obj->getNumber(key) : std::nullopt;
    if (!v || (positive ? !(*v > 0) : !(*v >= 0)) || !std::isfinite(*v)) {
      if (ok)
        error(source + ": '" + section + "." + key + "' must be a " +
              (positive ? "positive" : "non-negative") + " number");
      ok = false;
      return;
    }
    out = *v;
  };
  auto integer = [&](StringRef section, StringRef key, unsigned &out) {
    double v = 0;
    number(section, key, v);
    if (ok && (v != std::floor(v) || v > 1e9)) {
      error(source + ": '" + section + "." + key + "' must be a positive integer");
      ok = false;
    }
    out = unsigned(v);
  };
  if (std::optional<StringRef> name = root->getString("name"))
    t.name = name->str();
  double clock = 0;
  number("clock", "period_ns", clock);
  t.clockPeriodNs = clock;
  integer("cores", "count", t.cores);
  integer("cores", "mesh_rows", t.meshRows);
  integer("cores", "mesh_cols", t.meshCols);
  integer("crossbar", "per_core", t.crossbarsPerCore);
  integer("crossbar", "rows", t.crossbarRows);
  integer("crossbar", "cols", t.crossbarCols);
  integer("crossbar", "cell_bits", t.cellBits);
  integer("crossbar", "weight_bits", t.weightBits);
  number("timing_cycles", "mvm", t.mvmCycles);
  number("timing_cycles", "vector_per_element", t.vectorCyclesPerElement, false);
  number("timing_cycles", "memory_per_byte", t.memoryCyclesPerByte, false);
  number("network", "link_bytes_per_cycle", t.linkBytesPerCycle);
  number("network", "hop_latency_cycles", t.hopLatencyCycles, false);
  if (ok && t.meshRows * t.meshCols < t.cores) {
    error(source + ": a " + Twine(t.meshRows) + "x" + Twine(t.meshCols) + " mesh cannot hold " +
          Twine(t.cores) + " cores");
    ok = false;
  }
  if (!ok)
    return failure();
  return t;
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

int64_t TargetModel::nanoseconds(double cycles) const {
  return int64_t(std::ceil(cycles * clockPeriodNs - 1e-9));
}

unsigned TargetModel::hops(unsigned a, unsigned b) const {
  int ra = a / meshCols, ca = a % meshCols, rb = b / meshCols, cb = b % meshCols;
  return unsigned(std::abs(ra - rb) + std::abs(ca - cb));
}

int64_t TargetModel::transferNs(int64_t bytes, unsigned a, unsigned b) const {
  if (a == b || bytes == 0)
    return 0;
  return nanoseconds(double(bytes) / linkBytesPerCycle + hops(a, b) * hopLatencyCycles);
}

double TargetModel::meanTransferNs(int64_t bytes) const {
  if (cores < 2 || bytes == 0)
    return 0;
  // The mean Manhattan distance of a rows x cols grid is (rows + cols) / 3
  // for large grids; computing it exactly is cheap enough.
  double total = 0;
  for (unsigned a = 0; a < cores; ++a)
    for (unsigned b = 0; b < cores; ++b)
      if (a != b)
        total += hops(a, b);
  double meanHops = total / (double(cores) * (cores - 1));
  return double(bytes) / linkBytesPerCycle * clockPeriodNs + meanHops * hopLatencyCycles * clockPeriodNs;
}

} // namespace raptor::spatial
