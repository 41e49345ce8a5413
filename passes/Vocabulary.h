//===- Vocabulary.h - One table per enumerated option -----------*- C++ -*-===//
//
// Every enumerated choice Raptor offers (replication rule, list scheduler,
// schedule mode, pimsim file form, codec policy and placement, precision,
// arithmetic) is a C++ enum with one table of its spellings and their help.
// The table is the only vocabulary: pass and pipeline options take it as
// their cl::values (`choicesOf`), the Python binding exposes it (so the
// `raptor` command's choices and --help come from it), and messages list
// it (`spellings`).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_VOCABULARY_H
#define RAPTOR_PASSES_VOCABULARY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace raptor {

/// One spelling of an enumerated option.
template <typename E> struct Choice {
  E value;
  llvm::StringLiteral name;
  llvm::StringLiteral help;
};

/// A table as a cl::opt modifier: adds each spelling as a literal option.
template <typename E> struct ChoiceList {
  llvm::ArrayRef<Choice<E>> table;
  template <class Opt> void apply(Opt &option) const {
    for (const Choice<E> &c : table)
      option.getParser().addLiteralOption(c.name, c.value, c.help);
  }
};

template <typename E, size_t N> ChoiceList<E> choicesOf(const Choice<E> (&table)[N]) {
  return {llvm::ArrayRef<Choice<E>>(table)};
}

template <typename E> std::optional<E> parseChoice(llvm::ArrayRef<Choice<E>> table, llvm::StringRef name) {
  for (const Choice<E> &c : table)
    if (c.name == name)
      return c.value;
  return std::nullopt;
}

template <typename E> llvm::StringRef nameOf(llvm::ArrayRef<Choice<E>> table, E value) {
  for (const Choice<E> &c : table)
    if (c.value == value)
      return c.name;
  return "?";
}

/// "a, b or c", for messages.
template <typename E> std::string spellings(llvm::ArrayRef<Choice<E>> table) {
  std::string out;
  for (size_t i = 0; i < table.size(); ++i) {
    if (i)
      out += i + 1 == table.size() ? " or " : ", ";
    out += table[i].name.str();
  }
  return out;
}

} // namespace raptor

#endif // RAPTOR_PASSES_VOCABULARY_H
