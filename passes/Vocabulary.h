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
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

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

/// llvm::cl's parser of an enumerated option (cl::parser's own, but an
/// unknown spelling is refused with the list of the choices:
/// `for the --replicate option: unknown value 'all' (expected none, time or
/// windows)`, and --help shows the choices on the option's line,
/// `--replicate=<none|time|windows>`, where the tables' help texts are the
/// documentation's job). RAPTOR_CHOICE_PARSER(E) makes it the parser of E's
/// options.
template <typename E> class ChoiceParser : public llvm::cl::generic_parser_base {
protected:
  class OptionInfo : public GenericOptionInfo {
  public:
    OptionInfo(llvm::StringRef name, E v, llvm::StringRef help) : GenericOptionInfo(name, help), V(v) {}
    llvm::cl::OptionValue<E> V;
  };
  llvm::SmallVector<OptionInfo, 8> Values;

public:
  using parser_data_type = E;
  ChoiceParser(llvm::cl::Option &o) : generic_parser_base(o) {}

  unsigned getNumOptions() const override { return unsigned(Values.size()); }
  llvm::StringRef getOption(unsigned n) const override { return Values[n].Name; }
  llvm::StringRef getDescription(unsigned n) const override { return Values[n].HelpStr; }
  const llvm::cl::GenericOptionValue &getOptionValue(unsigned n) const override { return Values[n].V; }

  bool parse(llvm::cl::Option &o, llvm::StringRef argName, llvm::StringRef arg, E &v) {
    llvm::StringRef value = Owner.hasArgStr() ? arg : argName;
    std::string names;
    for (size_t i = 0; i < Values.size(); ++i) {
      if (Values[i].Name == value) {
        v = Values[i].V.getValue();
        return false;
      }
      names += (i == 0 ? "" : i + 1 == Values.size() ? " or " : ", ") + Values[i].Name.str();
    }
    return o.error("unknown value '" + value + "' (expected " + names + ")");
  }

  size_t getOptionWidth(const llvm::cl::Option &o) const override { return head(o).size(); }
  void printOptionInfo(const llvm::cl::Option &o, size_t globalWidth) const override {
    std::string text = head(o);
    llvm::outs() << text;
    llvm::outs().indent(globalWidth > text.size() ? globalWidth - text.size() : 1) << " - " << o.HelpStr << "\n";
  }

  template <class DT> void addLiteralOption(llvm::StringRef name, const DT &v, llvm::StringRef help) {
    Values.push_back(OptionInfo(name, static_cast<E>(v), help));
    AddLiteralOption(Owner, name);
  }
  void removeLiteralOption(llvm::StringRef name) { Values.erase(Values.begin() + findOption(name)); }

private:
  /// `  --replicate=<none|time|windows>`, as cl prints an option's head.
  std::string head(const llvm::cl::Option &o) const {
    std::string text = (o.ArgStr.size() == 1 ? "  -" : "  --") + o.ArgStr.str() + "=<";
    for (size_t i = 0; i < Values.size(); ++i)
      text += (i ? "|" : "") + Values[i].Name.str();
    return text + ">";
  }
};

} // namespace raptor

#define RAPTOR_CHOICE_PARSER(E)                                                                                       \
  namespace llvm::cl {                                                                                                \
  template <> class parser<E> : public ::raptor::ChoiceParser<E> {                                                    \
  public:                                                                                                             \
    using ::raptor::ChoiceParser<E>::ChoiceParser;                                                                    \
  };                                                                                                                  \
  }

#endif // RAPTOR_PASSES_VOCABULARY_H
