//===- CommutationTable.h - Per-operator codec commutation rules -*- C++ -*-===//
//
// The commutation table of the codec placement algorithm (shared seed 000,
// Table 5): for each operator, its port blocks (input and output ports that
// must share one semantics, i.e. where a codec commutes through the
// operator) and the first compression policy that selects its INT8 variant.
// Tables are data: see docs/codec.md for the file format.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_COMMUTATIONTABLE_H
#define RAPTOR_PASSES_CODEC_COMMUTATIONTABLE_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

namespace raptor::codec {

/// Compression policies, cumulative in this order (seed 000, section 3).
enum class Policy { Z = 0, Y = 1, X = 2, W = 3 };
std::optional<Policy> parsePolicy(llvm::StringRef name);
llvm::StringRef policyName(Policy policy);

/// One port block: these input and output ports share one semantics.
struct PortBlock {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

struct OperatorRule {
  std::string name;
  /// The first policy that selects the INT8 variant; none: FP32 only.
  std::optional<Policy> int8;
  std::vector<PortBlock> blocks;
  /// Floating-point ports that stay FP32 in the INT8 variant (e.g. bias).
  llvm::StringSet<> fp32Ports;
  /// Ports whose INT8-variant type is not i8 (e.g. i32 accumulators).
  llvm::StringMap<unsigned> portBitWidths;
  /// Where the rule was written (for diagnostics).
  unsigned line = 0;

  bool usesInt8(Policy policy) const {
    return int8 && static_cast<int>(*int8) <= static_cast<int>(policy);
  }
  /// Index of the block holding input (output) port `port`, or -1 when the
  /// port is in a trivial block of its own.
  int inputBlock(llvm::StringRef port) const;
  int outputBlock(llvm::StringRef port) const;
};

class CommutationTable {
public:
  /// Parses a table; on error returns failure after calling `error` with a
  /// `source:line:col: message` text.
  static mlir::FailureOr<CommutationTable>
  parse(llvm::StringRef text, llvm::StringRef source,
        llvm::function_ref<void(const llvm::Twine &)> error);

  /// The seed's Table 5.
  static const CommutationTable &seed();
  static llvm::StringRef seedText();

  /// Loads `path`, or the seed table when `path` is empty, and checks every
  /// operator and port against the nn ops registered in `context`.
  static mlir::FailureOr<CommutationTable>
  load(llvm::StringRef path, mlir::MLIRContext *context,
       llvm::function_ref<void(const llvm::Twine &)> error);

  /// The rule of `op`, or null: operators absent from the table have only
  /// trivial port blocks and no INT8 variant.
  const OperatorRule *lookup(llvm::StringRef op) const;
  size_t size() const { return rules.size(); }

private:
  std::vector<OperatorRule> rules;
  llvm::StringMap<size_t> index;
};

} // namespace raptor::codec

#endif // RAPTOR_PASSES_CODEC_COMMUTATIONTABLE_H
