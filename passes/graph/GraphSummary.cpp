//===- GraphSummary.cpp - Operator and weight statistics --------*- C++ -*-===//
#include "passes/graph/GraphSummary.h"

#include "dialects/nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mlir;

namespace raptor {

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// Counts a weight of `type`. Storage is the paper's (seed 000, Table 1):
/// floating-point weights at 4 bytes per element.
static void addWeight(FunctionSummary &summary, Type type) {
  ++summary.numWeights;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !isa<FloatType>(tensor.getElementType()))
    return;
  summary.weightElements += tensor.getNumElements();
  summary.fp32StorageBytes += 4 * tensor.getNumElements();
}

static void addConstant(FunctionSummary &summary, RankedTensorType type) {
  ++summary.numConstants;
  if (type.hasStaticShape())
    summary.constantBytes +=
        (type.getNumElements() * type.getElementTypeBitWidth() + 7) / 8;
}

std::vector<FunctionSummary> summarizeModule(ModuleOp module) {
  std::vector<FunctionSummary> result;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FunctionSummary summary;
    summary.name = func.getSymName().str();
    for (BlockArgument arg : func.getArguments()) {
      unsigned i = arg.getArgNumber();
      if (func.getArgAttr(i, nn::NNDialect::kParamAttrName)) {
        addWeight(summary, arg.getType());
        continue;
      }
      std::string name = "arg" + std::to_string(i);
      if (auto input = func.getArgAttrOfType<StringAttr>(
              i, nn::NNDialect::kInputAttrName))
        name = input.getValue().str();
      summary.inputs.push_back({name, typeString(arg.getType())});
    }
    for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
      summary.outputs.push_back({"out" + std::to_string(i), typeString(type)});
    func.walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::IsTerminator>() || op == func)
        return;
      ++summary.numOps;
      ++summary.opCounts[op->getName().getStringRef()];
      if (auto aten = dyn_cast<nn::AtenOp>(op))
        ++summary.genericTargets[aten.getTarget()];
      if (auto constant = dyn_cast<nn::ConstantOp>(op))
        addConstant(summary, constant.getType());
    });
    // Most frequent first, then by name, so reports are stable.
    auto order = [](auto &map) {
      std::vector<std::pair<llvm::StringRef, uint64_t>> v(map.begin(), map.end());
      std::stable_sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
      });
      map.clear();
      for (auto &[k, n] : v)
        map[k] = n;
    };
    order(summary.opCounts);
    order(summary.genericTargets);
    result.push_back(std::move(summary));
  }
  return result;
}

llvm::json::Value toJSON(const std::vector<FunctionSummary> &summaries) {
  llvm::json::Array functions;
  for (const FunctionSummary &s : summaries) {
    llvm::json::Object counts, generic;
    for (auto &[name, n] : s.opCounts)
      counts[name] = n;
    for (auto &[name, n] : s.genericTargets)
      generic[name] = n;
    auto tensors = [](const std::vector<TensorInfo> &list) {
      llvm::json::Array a;
      for (const TensorInfo &t : list)
        a.push_back(llvm::json::Object{{"name", t.name}, {"type", t.type}});
      return a;
    };
    functions.push_back(llvm::json::Object{
        {"name", s.name},
        {"num_ops", s.numOps},
        {"op_counts", std::move(counts)},
        {"generic_ops", std::move(generic)},
        {"inputs", tensors(s.inputs)},
        {"outputs", tensors(s.outputs)},
        {"num_weights", s.numWeights},
        {"weight_elements", s.weightElements},
        {"num_constants", s.numConstants},
        {"constant_bytes", s.constantBytes},
        {"fp32_storage_bytes", s.fp32StorageBytes},
        {"fp32_storage_mib", double(s.fp32StorageBytes) / (1024.0 * 1024.0)},
    });
  }
  return llvm::json::Object{{"functions", std::move(functions)}};
}

void printTable(const std::vector<FunctionSummary> &summaries,
                llvm::raw_ostream &os) {
  for (const FunctionSummary &s : summaries) {
    os << "graph @" << s.name << ": " << s.numOps << " ops, " << s.numWeights
       << " weights (" << s.weightElements << " elements, "
       << llvm::format("%.2f", double(s.fp32StorageBytes) / (1024.0 * 1024.0))
       << " MiB fp32), " << s.numConstants << " constants ("
       << s.constantBytes << " bytes)\n";
    for (const TensorInfo &t : s.inputs)
      os << "  input  " << t.name << " : " << t.type << "\n";
    for (const TensorInfo &t : s.outputs)
      os << "  output " << t.name << " : " << t.type << "\n";
    os << "  " << llvm::left_justify("operator", 40) << llvm::right_justify("count", 8)
       << "\n";
    for (auto &[name, n] : s.opCounts)
      os << "  " << llvm::left_justify(name, 40) << llvm::right_justify(std::to_string(n), 8)
         << "\n";
    for (auto &[name, n] : s.genericTargets)
      os << "    generic " << llvm::left_justify(name, 32)
         << llvm::right_justify(std::to_string(n), 8) << "\n";
  }
}

} // namespace raptor
