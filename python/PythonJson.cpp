//===- PythonJson.cpp - JSON values as Python objects -----------*- C++ -*-===//
//
// C++ analyses build llvm::json values; Python receives them as dicts,
// lists and numbers directly, never as JSON text to parse again.
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

namespace nb = nanobind;

nb::object pythonOfJson(const llvm::json::Value &value) {
  if (const llvm::json::Object *o = value.getAsObject()) {
    nb::dict d;
    // In key order, as the JSON a C++ writer prints (llvm::json sorts keys).
    std::vector<const llvm::json::Object::value_type *> entries;
    for (const auto &entry : *o)
      entries.push_back(&entry);
    std::sort(entries.begin(), entries.end(), [](auto *a, auto *b) { return a->first < b->first; });
    for (auto *entry : entries)
      d[nb::str(entry->first.str().c_str())] = pythonOfJson(entry->second);
    return d;
  }
  if (const llvm::json::Array *a = value.getAsArray()) {
    nb::list l;
    for (const llvm::json::Value &v : *a)
      l.append(pythonOfJson(v));
    return l;
  }
  if (std::optional<bool> b = value.getAsBoolean())
    return nb::bool_(*b);
  // An integral number is an int, as it would be read back from the JSON text
  // (llvm::json prints 2.0 as 2).
  if (std::optional<int64_t> i = value.getAsInteger())
    return nb::int_(*i);
  if (std::optional<double> d = value.getAsNumber())
    return nb::float_(*d);
  if (std::optional<llvm::StringRef> s = value.getAsString())
    return nb::str(s->str().c_str());
  return nb::none();
}

llvm::json::Value jsonOfPython(nb::handle value) {
  if (value.is_none())
    return nullptr;
  if (nb::isinstance<nb::bool_>(value))
    return nb::cast<bool>(value);
  if (nb::isinstance<nb::int_>(value))
    return nb::cast<int64_t>(value);
  if (nb::isinstance<nb::float_>(value))
    return nb::cast<double>(value);
  if (nb::isinstance<nb::str>(value))
    return nb::cast<std::string>(value);
  if (nb::isinstance<nb::dict>(value)) {
    llvm::json::Object o;
    for (auto [key, v] : nb::borrow<nb::dict>(value))
      o[nb::cast<std::string>(nb::str(key))] = jsonOfPython(v);
    return o;
  }
  if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
    llvm::json::Array a;
    for (nb::handle v : value)
      a.push_back(jsonOfPython(v));
    return a;
  }
  throw nb::type_error(("a report holds numbers, strings, lists and dicts, not " +
                        nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                           .c_str());
}
