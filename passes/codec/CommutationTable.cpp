//===- CommutationTable.cpp - Per-operator codec commutation rules -------===//
#include "passes/codec/CommutationTable.h"

#include "dialects/nn/NNOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace raptor::codec {

std::optional<Policy> parsePolicy(StringRef name) {
  return llvm::StringSwitch<std::optional<Policy>>(name)
      .Case("Z", Policy::Z)
      .Case("Y", Policy::Y)
      .Case("X", Policy::X)
      .Case("W", Policy::W)
      .Default(std::nullopt);
}

StringRef policyName(Policy policy) {
  static const char *names[] = {"Z", "Y", "X", "W"};
  return names[static_cast<int>(policy)];
}

static int findBlock(const std::vector<PortBlock> &blocks, StringRef port,
                     bool input) {
  for (auto [i, block] : llvm::enumerate(blocks))
    if (llvm::is_contained(input ? block.inputs : block.outputs, port))
      return i;
  return -1;
}

int OperatorRule::inputBlock(StringRef port) const {
  return findBlock(blocks, port, /*input=*/true);
}
int OperatorRule::outputBlock(StringRef port) const {
  return findBlock(blocks, port, /*input=*/false);
}

/// Splits "a, b ,c" into trimmed non-empty names.
static std::vector<std::string> splitPorts(StringRef list) {
  SmallVector<StringRef> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> ports;
  for (StringRef p : parts)
    if (!p.trim().empty())
      ports.push_back(p.trim().str());
  return ports;
}

FailureOr<CommutationTable>
CommutationTable::parse(StringRef text, StringRef source,
                        llvm::function_ref<void(const Twine &)> error) {
  CommutationTable table;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (auto [lineNo, rawLine] : llvm::enumerate(lines)) {
    unsigned line = lineNo + 1;
    StringRef content = rawLine.split('#').first.rtrim();
    StringRef body = content.ltrim();
    if (body.empty())
      continue;
    unsigned col = content.size() - body.size() + 1;
    auto fail = [&](const Twine &msg) {
      error(source + ":" + Twine(line) + ":" + Twine(col) + ": " + msg);
      return failure();
    };
    // Words are separated by blanks: spaces or tabs.
    size_t blank = body.find_first_of(" \t");
    StringRef keyword = body.take_front(blank), rest = body.drop_front(keyword.size()).trim();
    if (keyword == "operator") {
      SmallVector<StringRef> words;
      llvm::SplitString(rest, words, " \t");
      if (words.empty())
        return fail("'operator' needs an operator name");
      OperatorRule rule;
      rule.name = words[0].str();
      rule.line = line;
      if (words.size() == 3 && words[1] == "int8") {
        rule.int8 = parsePolicy(words[2]);
        if (!rule.int8)
          return fail("unknown policy '" + words[2] + "' (expected Z, Y, X or W)");
      } else if (words.size() != 1) {
        return fail("expected 'operator NAME [int8 POLICY]'");
      }
      if (table.index.count(rule.name))
        return fail("operator '" + rule.name + "' is listed twice");
      table.index[rule.name] = table.rules.size();
      table.rules.push_back(std::move(rule));
      continue;
    }
    if (keyword != "block" && keyword != "fp32" && keyword != "type")
      return fail("unknown keyword '" + keyword +
                  "' (expected operator, block, fp32 or type)");
    if (table.rules.empty())
      return fail("'" + keyword + "' before any 'operator' line");
    OperatorRule &rule = table.rules.back();
    if (keyword == "type") {
      // type PORT iN: the port's type in the INT8 variant.
      SmallVector<StringRef> words;
      llvm::SplitString(rest, words, " \t");
      unsigned width = 0;
      if (words.size() != 2 || !words[1].consume_front("i") ||
          words[1].getAsInteger(10, width) || width == 0 || width > 64)
        return fail("expected 'type PORT iN' (e.g. 'type out i32')");
      rule.portBitWidths[words[0]] = width;
      continue;
    }
    if (keyword == "fp32") {
      std::vector<std::string> ports = splitPorts(rest);
      if (ports.empty())
        return fail("'fp32' needs at least one port");
      for (const std::string &p : ports)
        rule.fp32Ports.insert(p);
      continue;
    }
    auto [lhs, rhs] = rest.split("->");
    if (!rest.contains("->"))
      return fail("malformed block '" + rest + "': expected 'INPUTS -> OUTPUTS'");
    PortBlock block{splitPorts(lhs), splitPorts(rhs)};
    if (block.inputs.empty() && block.outputs.empty())
      return fail("empty port block");
    for (const std::string &p : block.inputs)
      if (rule.inputBlock(p) >= 0 || llvm::count(block.inputs, p) > 1)
        return fail("input port '" + p + "' of '" + rule.name + "' is in two blocks");
    for (const std::string &p : block.outputs)
      if (rule.outputBlock(p) >= 0 || llvm::count(block.outputs, p) > 1)
        return fail("output port '" + p + "' of '" + rule.name + "' is in two blocks");
    rule.blocks.push_back(std::move(block));
  }
  return table;
}

const CommutationTable &CommutationTable::seed() {
  static const CommutationTable table = [] {
    auto parsed = parse(seedText(), "<seed table>", [](const Twine &msg) {
      llvm::report_fatal_error("invalid built-in commutation table: " + msg);
    });
    return std::move(*parsed);
  }();
  return table;
}

const OperatorRule *CommutationTable::lookup(StringRef op) const {
  auto it = index.find(op);
  return it == index.end() ? nullptr : &rules[it->second];
}

/// An output port name: `out`, `out[N]` or `out[*]`.
static bool isOutputPortName(StringRef port) {
  if (port == "out" || port == "out[*]")
    return true;
  unsigned n;
  return port.consume_front("out[") && port.consume_back("]") &&
         !port.getAsInteger(10, n);
}

FailureOr<CommutationTable>
CommutationTable::load(StringRef path, MLIRContext *context,
                       llvm::function_ref<void(const Twine &)> error) {
  if (path.empty())
    return seed();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error("cannot read commutation table '" + path + "': " +
          buffer.getError().message());
    return failure();
  }
  // Diagnostics quote the table: bytes that are not UTF-8 would make them
  // unprintable (Python cannot even decode them).
  StringRef text = (*buffer)->getBuffer();
  if (!llvm::json::isUTF8(text)) {
    SmallVector<StringRef> lines;
    text.split(lines, '\n');
    size_t line = 1;
    while (line <= lines.size() && llvm::json::isUTF8(lines[line - 1]))
      ++line;
    error("commutation table '" + path + "' is not UTF-8 text (line " + Twine(line) + ")");
    return failure();
  }
  FailureOr<CommutationTable> table = parse(text, path, error);
  if (failed(table))
    return failure();

  // The operators nn knows, with their input ports.
  llvm::StringMap<ArrayRef<llvm::StringLiteral>> known;
  for (RegisteredOperationName name : context->getRegisteredOperations())
    if (auto *ports = name.getInterface<nn::PortOpInterface>())
      if (!ports->getAtenOperatorName().empty())
        known[ports->getAtenOperatorName()] = ports->getInputPortGroups();
  for (const OperatorRule &rule : table->rules) {
    std::string where = (path + ":" + Twine(rule.line) + ": ").str();
    auto it = known.find(rule.name);
    if (it == known.end()) {
      error(where + "unknown operator '" + rule.name + "' (no nn op stands for it)");
      return failure();
    }
    auto checkInput = [&](StringRef port) {
      if (llvm::is_contained(it->second, port))
        return true;
      error(where + "unknown port '" + port + "' of '" + rule.name +
            "' (its input ports: " + llvm::join(it->second, ", ") + ")");
      return false;
    };
    for (const PortBlock &block : rule.blocks) {
      for (const std::string &p : block.inputs)
        if (!checkInput(p))
          return failure();
      for (const std::string &p : block.outputs)
        if (!isOutputPortName(p)) {
          error(where + "unknown output port '" + p + "' of '" + rule.name +
                "' (expected out, out[N] or out[*])");
          return failure();
        }
    }
    for (const auto &p : rule.fp32Ports)
      if (!checkInput(p.getKey()))
        return failure();
    for (const auto &p : rule.portBitWidths)
      if (!isOutputPortName(p.getKey()) && !checkInput(p.getKey()))
        return failure();
  }
  return table;
}

} // namespace raptor::codec
