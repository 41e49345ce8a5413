//===- PimTarget.cpp - #pim.target and the module's pim.target --*- C++ -*-===//
//
// The attribute is a TargetModel's parameters (simulator/TargetModel.h);
// its verifier is TargetModel::validate, the same one a target file passes
// through, so a target in IR and a target file accept the same chips.
//
//===----------------------------------------------------------------------===//
#include "dialects/pim/PimDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace raptor::pim;

#define GET_ATTRDEF_CLASSES
#include "dialects/pim/PimAttrs.cpp.inc"

namespace {

/// The pimsim section of a target as JSON numbers (integers stay integers).
llvm::json::Object pimsimJson(DictionaryAttr pimsim) {
  llvm::json::Object out;
  for (NamedAttribute entry : pimsim) {
    if (auto i = dyn_cast<IntegerAttr>(entry.getValue()))
      out[entry.getName().getValue()] = i.getInt();
    else if (auto f = dyn_cast<FloatAttr>(entry.getValue()))
      out[entry.getName().getValue()] = f.getValueAsDouble();
    else // (the verifier refuses it: an empty JSON value is not a number)
      out[entry.getName().getValue()] = nullptr;
  }
  return out;
}

DictionaryAttr pimsimAttr(MLIRContext *context, const llvm::json::Object &pimsim) {
  Builder b(context);
  SmallVector<NamedAttribute> entries;
  for (const auto &[key, value] : pimsim) {
    if (std::optional<int64_t> i = value.getAsInteger())
      entries.push_back(b.getNamedAttr(key.str(), b.getI64IntegerAttr(*i)));
    else
      entries.push_back(b.getNamedAttr(key.str(), b.getF64FloatAttr(value.getAsNumber().value_or(0))));
  }
  return b.getDictionaryAttr(entries);
}

TargetModel::Fields fieldsOf(StringRef name, unsigned cores, unsigned meshRows, unsigned meshCols,
                             unsigned crossbarsPerCore, unsigned crossbarRows, unsigned crossbarCols,
                             unsigned cellBits, unsigned weightBits, double clockNs, double linkBytesPerCycle,
                             double hopLatencyCycles, int64_t localMemoryBytes, DictionaryAttr pimsim) {
  TargetModel::Fields f;
  f.name = name.str();
  f.cores = cores;
  f.meshRows = meshRows;
  f.meshCols = meshCols;
  f.crossbarsPerCore = crossbarsPerCore;
  f.crossbarRows = crossbarRows;
  f.crossbarCols = crossbarCols;
  f.cellBits = cellBits;
  f.weightBits = weightBits;
  f.clockPeriodNs = clockNs;
  f.linkBytesPerCycle = linkBytesPerCycle;
  f.hopLatencyCycles = hopLatencyCycles;
  f.localMemoryBytes = double(localMemoryBytes);
  f.pimsim = pimsim ? pimsimJson(pimsim) : llvm::json::Object();
  return f;
}

/// The shortest decimal that reads back as `v`, as a float literal (1.0,
/// 0.5, 0.1 rather than 1.000000e+00 or 0.10000000000000001).
std::string shortest(double v) {
  char text[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v)
      break;
  }
  std::string out = text;
  if (out.find_first_of(".eEni") == std::string::npos)
    out += ".0";
  return out;
}

/// A number: an integer literal, or a float one.
ParseResult parseNumber(AsmParser &parser, double &value) {
  int64_t integer;
  OptionalParseResult asInteger = parser.parseOptionalInteger(integer);
  if (asInteger.has_value()) {
    value = double(integer);
    return *asInteger;
  }
  return parser.parseFloat(value);
}

} // namespace

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef name, unsigned cores,
                                 unsigned meshRows, unsigned meshCols, unsigned crossbarsPerCore,
                                 unsigned crossbarRows, unsigned crossbarCols, unsigned cellBits,
                                 unsigned weightBits, llvm::APFloat clockNs, llvm::APFloat linkBytesPerCycle,
                                 llvm::APFloat hopLatencyCycles, int64_t localMemoryBytes, DictionaryAttr pimsim) {
  if (pimsim)
    for (NamedAttribute entry : pimsim)
      if (!isa<IntegerAttr, FloatAttr>(entry.getValue()))
        return emitError() << "#pim.target: 'pimsim." << entry.getName().getValue() << "' must be a number";
  std::string message;
  FailureOr<TargetModel> model = TargetModel::validate(
      fieldsOf(name, cores, meshRows, meshCols, crossbarsPerCore, crossbarRows, crossbarCols, cellBits, weightBits,
               clockNs.convertToDouble(), linkBytesPerCycle.convertToDouble(), hopLatencyCycles.convertToDouble(),
               localMemoryBytes, pimsim),
      "#pim.target", [&](const Twine &m) { message = m.str(); });
  if (failed(model))
    return emitError() << message;
  return success();
}

TargetModel TargetAttr::getModel() const {
  FailureOr<TargetModel> model = TargetModel::validate(
      fieldsOf(getName(), getCores(), getMeshRows(), getMeshCols(), getCrossbarsPerCore(), getCrossbarRows(),
               getCrossbarCols(), getCellBits(), getWeightBits(), getClockNs().convertToDouble(),
               getLinkBytesPerCycle().convertToDouble(), getHopLatencyCycles().convertToDouble(),
               getLocalMemoryBytes(), getPimsim()),
      "#pim.target", [](const Twine &) {});
  assert(succeeded(model) && "a #pim.target is verified on construction");
  return std::move(*model);
}

TargetAttr TargetAttr::get(MLIRContext *context, const TargetModel &t) {
  return get(context, t.name, t.cores, t.meshRows, t.meshCols, t.crossbarsPerCore, t.crossbarRows,
             t.crossbarCols, t.cellBits, t.weightBits, llvm::APFloat(t.clockPeriodNs),
             llvm::APFloat(t.linkBytesPerCycle), llvm::APFloat(t.hopLatencyCycles), t.localMemoryBytes,
             pimsimAttr(context, t.pimsim));
}

// `#pim.target<"name", cores = 168, mesh = [12, 14], crossbars = 96,
// crossbar = [128, 128], cell_bits = 8, weight_bits = 8, clock_ns = 1,
// link_bytes_per_cycle = 32, hop_latency_cycles = 2,
// local_memory_bytes = 67108864[, pimsim = {...}]>`: every key in this order.
Attribute TargetAttr::parse(AsmParser &parser, Type) {
  std::string name;
  int64_t cores = 0, meshRows = 0, meshCols = 0, perCore = 0, rows = 0, cols = 0, cellBits = 0, weightBits = 0,
          local = 0;
  double clock = 0, link = 0, hop = 0;
  DictionaryAttr pimsim;
  auto key = [&](StringRef word) { return failure(parser.parseComma() || parser.parseKeyword(word) ||
                                                  parser.parseEqual()); };
  auto pair = [&](int64_t &a, int64_t &b) {
    return failure(parser.parseLSquare() || parser.parseInteger(a) || parser.parseComma() ||
                   parser.parseInteger(b) || parser.parseRSquare());
  };
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&name) || failed(key("cores")) || parser.parseInteger(cores) ||
      failed(key("mesh")) || failed(pair(meshRows, meshCols)) || failed(key("crossbars")) ||
      parser.parseInteger(perCore) || failed(key("crossbar")) || failed(pair(rows, cols)) ||
      failed(key("cell_bits")) || parser.parseInteger(cellBits) || failed(key("weight_bits")) ||
      parser.parseInteger(weightBits) || failed(key("clock_ns")) || parseNumber(parser, clock) ||
      failed(key("link_bytes_per_cycle")) || parseNumber(parser, link) || failed(key("hop_latency_cycles")) ||
      parseNumber(parser, hop) || failed(key("local_memory_bytes")) || parser.parseInteger(local))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("pimsim") || parser.parseEqual() || parser.parseAttribute(pimsim)))
    return {};
  if (parser.parseGreater())
    return {};
  for (int64_t v : {cores, meshRows, meshCols, perCore, rows, cols, cellBits, weightBits})
    if (v < 0 || v > int64_t(1e9)) {
      parser.emitError(loc, "#pim.target: sizes must be from 0 to 10^9");
      return {};
    }
  if (!pimsim)
    pimsim = parser.getBuilder().getDictionaryAttr({});
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), name, unsigned(cores),
                    unsigned(meshRows), unsigned(meshCols), unsigned(perCore), unsigned(rows), unsigned(cols),
                    unsigned(cellBits), unsigned(weightBits), llvm::APFloat(clock), llvm::APFloat(link),
                    llvm::APFloat(hop), local, pimsim);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<\"";
  llvm::printEscapedString(getName(), printer.getStream());
  printer << "\", cores = " << getCores() << ", mesh = [" << getMeshRows() << ", " << getMeshCols()
          << "], crossbars = " << getCrossbarsPerCore() << ", crossbar = [" << getCrossbarRows() << ", "
          << getCrossbarCols() << "], cell_bits = " << getCellBits() << ", weight_bits = " << getWeightBits()
          << ", clock_ns = " << shortest(getClockNs().convertToDouble())
          << ", link_bytes_per_cycle = " << shortest(getLinkBytesPerCycle().convertToDouble())
          << ", hop_latency_cycles = " << shortest(getHopLatencyCycles().convertToDouble())
          << ", local_memory_bytes = " << getLocalMemoryBytes();
  if (getPimsim() && !getPimsim().empty()) {
    printer << ", pimsim = ";
    printer.printAttribute(getPimsim());
  }
  printer << ">";
}

void PimDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/pim/PimAttrs.cpp.inc"
      >();
}

LogicalResult PimDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  if (attribute.getName().getValue() != "pim.target")
    return op->emitError() << "unknown pim attribute '" << attribute.getName().getValue() << "'";
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'pim.target' belongs on a module";
  if (!isa<TargetAttr>(attribute.getValue()))
    return op->emitError() << "'pim.target' must be a #pim.target attribute";
  return success();
}
