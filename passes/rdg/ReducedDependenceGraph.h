//===- ReducedDependenceGraph.h - RDG of a recurrence system ----*- C++ -*-===//
//
// The reduced dependency graph (shared seed 003): one node per variable, one
// arc per tap, labelled with the dependence map p -> A p + b (a translation
// theta = -b when A = I). Two forms:
//  - dfactl: the JSON that `dfactl --emit-rdg` writes (parameter values folded
//    into b, branches merged per variable), byte for byte;
//  - extended: parameters kept symbolic (b has a constant part and one
//    coefficient per parameter) and every piecewise branch kept apart.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_RDG_REDUCEDDEPENDENCEGRAPH_H
#define RAPTOR_PASSES_RDG_REDUCEDDEPENDENCEGRAPH_H

#include "dialects/sure/SureDialect.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace raptor::rdg {

using Matrix = std::vector<std::vector<int64_t>>;

struct Arc {
  std::string from, to;
  unsigned branch = 0;            // index among the consumer's equations
  Matrix A;                       // rank x rank
  std::vector<int64_t> b;         // constant part (parameters folded in dfactl form)
  Matrix bParameters;             // rank x #parameters (extended form)
  bool isUniform() const;
  std::vector<int64_t> theta() const; // -b, for uniform arcs
};

/// An affine constraint `dims . p + params . P + constant (>= or ==) 0`.
struct Constraint {
  std::vector<int64_t> dims, params;
  int64_t constant = 0;
  bool equality = false;
};

struct Branch {
  std::string variable;
  unsigned index = 0;
  std::string domain;                  // the branch's integer set, or ""
  std::vector<Constraint> constraints; // the same, as coefficients
};

struct Graph {
  std::string name;
  std::vector<std::string> indices, parameters;
  std::vector<int64_t> values;
  std::vector<Constraint> domain;      // the system's domain
  std::vector<std::string> variables; // byte-sorted
  std::vector<Branch> branches;       // per variable, in file order
  std::vector<Arc> arcs;
  bool isSURE() const;
};

/// Extracts the RDG of `system`. With `foldParameters`, parameter values are
/// folded into b (they must be given) and duplicate arcs of a variable are
/// merged across its branches, as dfactl does.
mlir::FailureOr<Graph> extract(sure::SystemOp system, bool foldParameters);

/// dfactl's JSON, byte for byte (including the final newline).
void writeDfactlJSON(const Graph &graph, llvm::raw_ostream &os);
/// The extended form as JSON.
void writeExtendedJSON(const Graph &graph, llvm::raw_ostream &os);

} // namespace raptor::rdg

#endif // RAPTOR_PASSES_RDG_REDUCEDDEPENDENCEGRAPH_H
