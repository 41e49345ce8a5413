//===- JsonAttributes.cpp - JSON values as attributes and back --*- C++ -*-===//
#include "passes/JsonAttributes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace raptor {

Attribute attributeOfJson(MLIRContext *context, const llvm::json::Value &value) {
  Builder b(context);
  if (const llvm::json::Object *o = value.getAsObject()) {
    SmallVector<NamedAttribute> entries;
    for (const auto &[key, v] : *o)
      entries.push_back(b.getNamedAttr(key.str(), attributeOfJson(context, v)));
    return b.getDictionaryAttr(entries);
  }
  if (const llvm::json::Array *a = value.getAsArray()) {
    SmallVector<Attribute> elements;
    for (const llvm::json::Value &v : *a)
      elements.push_back(attributeOfJson(context, v));
    return b.getArrayAttr(elements);
  }
  if (std::optional<bool> v = value.getAsBoolean())
    return b.getBoolAttr(*v);
  if (std::optional<int64_t> v = value.getAsInteger(); v && value.getAsNumber() == double(*v))
    return b.getI64IntegerAttr(*v);
  if (std::optional<double> v = value.getAsNumber())
    return b.getF64FloatAttr(*v);
  if (std::optional<llvm::StringRef> v = value.getAsString())
    return b.getStringAttr(*v);
  return b.getUnitAttr();
}

llvm::json::Value jsonOfAttribute(Attribute attribute) {
  if (auto d = dyn_cast<DictionaryAttr>(attribute)) {
    llvm::json::Object o;
    for (NamedAttribute entry : d)
      o[entry.getName().getValue()] = jsonOfAttribute(entry.getValue());
    return o;
  }
  if (auto a = dyn_cast<ArrayAttr>(attribute)) {
    llvm::json::Array out;
    for (Attribute element : a)
      out.push_back(jsonOfAttribute(element));
    return out;
  }
  if (auto v = dyn_cast<BoolAttr>(attribute))
    return v.getValue();
  if (auto v = dyn_cast<IntegerAttr>(attribute))
    return v.getValue().getSExtValue();
  if (auto v = dyn_cast<FloatAttr>(attribute))
    return v.getValueAsDouble();
  if (auto v = dyn_cast<StringAttr>(attribute))
    return v.getValue().str();
  if (isa<UnitAttr>(attribute))
    return nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  attribute.print(os);
  return text;
}

} // namespace raptor
