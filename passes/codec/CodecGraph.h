//===- CodecGraph.h - The marked graph of codec placement -------*- C++ -*-===//
//
// A function body seen as the paper's directed acyclic multigraph: nodes are
// the function's arguments (graph inputs) and its ops in block order (a
// topological order), edges are tensor operands. The algorithms of shared
// seed 000 (Algorithms 7-15) run on this index-based form in O(|V| + |E|);
// results are read from and written back to the IR (marker attributes and
// `codec.dominator_of`).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_CODECGRAPH_H
#define RAPTOR_PASSES_CODEC_CODECGRAPH_H

#include "dialects/codec/CodecDialect.h"
#include "passes/codec/CommutationTable.h"
#include "passes/nn/CompileTime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace raptor::codec {

/// A semantics while the algorithms run: (id, source type, target type).
struct Sem {
  int64_t id = 0;
  mlir::Type source, target;
  bool compatible(const Sem &o) const { return source == o.source && target == o.target; }
  bool encoded() const { return source != target; }
};

enum class NodeKind { Input, MarkInput, MarkOutput, Operator };

struct Edge {
  unsigned tail, head;
  mlir::OpOperand *operand;
  Sem sem;
};

/// Fresh semantics ids, above every id already in the module.
class IdGenerator {
public:
  explicit IdGenerator(mlir::Operation *root);
  int64_t next() { return nextId++; }

private:
  int64_t nextId = 1;
};

/// Port names and types of operators under a policy and a table.
class PortModel {
public:
  PortModel(const CommutationTable &table, Policy policy)
      : table(table), policy(policy) {}
  /// The aten operator an op stands for ("" when none).
  static llvm::StringRef operatorName(mlir::Operation *op);
  static std::string inputPort(mlir::Operation *op, unsigned operand);
  static std::string outputPort(mlir::Operation *op, unsigned result);
  /// The rule of `op` (null: trivial blocks, FP32 only).
  const OperatorRule *rule(mlir::Operation *op) const;
  /// The port's (source, target) types: target is i8 for floating-point
  /// ports of an operator whose INT8 variant the policy selects.
  std::pair<mlir::Type, mlir::Type> portTypes(mlir::Operation *op, llvm::StringRef port,
                                              mlir::Type element) const;
  bool int8Variant(mlir::Operation *op) const;
  Policy getPolicy() const { return policy; }

private:
  /// Whether the compiler computes `op`, a matrix operator whose operands
  /// are all known before run time (a convolution of a constant grid): it
  /// keeps FP32, as an INT8 variant would only quantize the host's float32
  /// arithmetic and ask it for requantizers it does not evaluate.
  bool computedByCompiler(mlir::Operation *op) const;

  const CommutationTable &table;
  Policy policy;
  /// The compile-time values of the block last asked about (one forward
  /// walk per function; markers inserted later are classified on demand).
  mutable std::unique_ptr<nn::CompileTimeValues> known;
  mutable mlir::Block *knownBlock = nullptr;
};

/// A same-semantics subgraph with its entries, exits and absolute dominator.
struct Subgraph {
  Sem sem;
  std::vector<unsigned> edges;
  std::vector<unsigned> entries, exits;
  int64_t dominator = -1; // node index
  bool removed = false;
};

class CodecGraph {
public:
  /// Builds the graph of `func`; fails (with a diagnostic) on a function
  /// that is not a single block.
  static mlir::FailureOr<CodecGraph> build(mlir::func::FuncOp func);

  unsigned numNodes() const { return kinds.size(); }
  NodeKind kind(unsigned node) const { return kinds[node]; }
  mlir::Operation *op(unsigned node) const { return ops[node]; }
  mlir::func::FuncOp function() const { return func; }
  std::vector<Edge> &getEdges() { return edges; }
  llvm::ArrayRef<unsigned> inEdges(unsigned node) const {
    return llvm::ArrayRef(inFlat).slice(inBegin[node], inBegin[node + 1] - inBegin[node]);
  }
  llvm::ArrayRef<unsigned> outEdges(unsigned node) const {
    return llvm::ArrayRef(outFlat).slice(outBegin[node], outBegin[node + 1] - outBegin[node]);
  }

  /// Every edge has a marker at one end (the state after marker insertion).
  mlir::LogicalResult checkMarked();
  /// Algorithms 7-11: assigns every edge's semantics.
  void assignSemantics(const PortModel &ports, IdGenerator &ids);
  /// The local baseline: every marker keeps its own port semantics, so each
  /// operator is encoded and decoded on its own; the ports of one block
  /// (`tensors[*] -> out` of a cat) share the first port's.
  void assignLocalSemantics(const PortModel &ports);
  /// Reads the edge semantics written on the markers.
  mlir::LogicalResult readSemantics();
  /// Writes edge semantics to the markers.
  void writeSemantics();

  /// Algorithms 12-13: the subgraphs and their absolute dominators.
  std::vector<Subgraph> induceSubgraphs() const;
  /// Algorithms 14-15: merges subgraphs through the meta-graph; recolours
  /// the merged edges. Returns the number of merges.
  unsigned coalesce(std::vector<Subgraph> &subgraphs);
  /// Writes `codec.dominator_of` (and clears stale ones).
  void writeDominators(const std::vector<Subgraph> &subgraphs);

private:
  /// The in- and out-edges of operator `v` grouped by the port blocks of
  /// its rule (a port in no block is a block of its own).
  struct EdgeBlock {
    llvm::SmallVector<unsigned, 4> incoming, outgoing;
  };
  llvm::SmallVector<EdgeBlock, 4> portBlocks(unsigned v, const PortModel &ports) const;

  mlir::func::FuncOp func;
  std::vector<NodeKind> kinds;
  std::vector<mlir::Operation *> ops; // null for arguments
  std::vector<Edge> edges;
  // Adjacency in compressed form: the in-edges of node v are
  // inFlat[inBegin[v] .. inBegin[v+1]), in operand order; likewise out-edges.
  std::vector<unsigned> inBegin, inFlat, outBegin, outFlat;
  llvm::DenseMap<mlir::Operation *, unsigned> nodeOf;
};

/// Converts between Sem and SemanticsAttr.
SemanticsAttr toAttr(mlir::MLIRContext *context, const Sem &sem);
Sem fromAttr(SemanticsAttr attr);

} // namespace raptor::codec

#endif // RAPTOR_PASSES_CODEC_CODECGRAPH_H
