//===- ReducedDependenceGraph.cpp - RDG of a recurrence system --*- C++ -*-===//
#include "passes/rdg/ReducedDependenceGraph.h"

#include "llvm/Support/MathExtras.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/IntegerSet.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <functional>
#include <map>

using namespace mlir;

namespace raptor::rdg {

bool Arc::isUniform() const {
  for (size_t r = 0; r < A.size(); ++r)
    for (size_t c = 0; c < A[r].size(); ++c)
      if (A[r][c] != (r == c ? 1 : 0))
        return false;
  return true;
}

std::vector<int64_t> Arc::theta() const {
  std::vector<int64_t> t(b.size());
  std::transform(b.begin(), b.end(), t.begin(), [](int64_t x) { return -x; });
  return t;
}

bool Graph::isSURE() const {
  return llvm::all_of(arcs, [](const Arc &a) { return a.isUniform(); });
}

/// Coefficients of a pure affine expression: dims, symbols, then constant.
static LogicalResult flatten(AffineExpr e, unsigned numDims, unsigned numSymbols,
                             SmallVectorImpl<int64_t> &out) {
  out.assign(numDims + numSymbols + 1, 0);
  std::function<LogicalResult(AffineExpr, int64_t)> visit = [&](AffineExpr x,
                                                                int64_t scale) {
    if (auto d = dyn_cast<AffineDimExpr>(x)) {
      out[d.getPosition()] += scale;
      return success();
    }
    if (auto s = dyn_cast<AffineSymbolExpr>(x)) {
      out[numDims + s.getPosition()] += scale;
      return success();
    }
    if (auto c = dyn_cast<AffineConstantExpr>(x)) {
      int64_t term;
      if (llvm::MulOverflow(scale, c.getValue(), term) || llvm::AddOverflow(out.back(), term, out.back()))
        return failure(); // reported as not affine: no int64 coefficients
      return success();
    }
    auto bin = cast<AffineBinaryOpExpr>(x);
    if (x.getKind() == AffineExprKind::Add)
      return success(succeeded(visit(bin.getLHS(), scale)) &&
                     succeeded(visit(bin.getRHS(), scale)));
    if (x.getKind() == AffineExprKind::Mul) {
      if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
        return visit(bin.getLHS(), scale * c.getValue());
      if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
        return visit(bin.getRHS(), scale * c.getValue());
    }
    return failure(); // mod, floordiv, ceildiv, or a product of variables
  };
  return visit(e, 1);
}

static FailureOr<std::vector<Constraint>> constraintsOf(IntegerSet set) {
  std::vector<Constraint> out;
  unsigned dims = set.getNumDims(), syms = set.getNumSymbols();
  for (auto [expr, eq] : llvm::zip(set.getConstraints(), set.getEqFlags())) {
    SmallVector<int64_t> flat;
    if (failed(flatten(expr, dims, syms, flat)))
      return failure();
    out.push_back(Constraint{std::vector<int64_t>(flat.begin(), flat.begin() + dims),
                             std::vector<int64_t>(flat.begin() + dims, flat.end() - 1),
                             flat.back(), eq});
  }
  return out;
}

static std::string print(IntegerSet set) {
  std::string s;
  llvm::raw_string_ostream os(s);
  set.print(os);
  return s;
}

FailureOr<Graph> extract(sure::SystemOp system, bool foldParameters) {
  Graph g;
  g.name = system.getSymName().str();
  for (Attribute a : system.getIndices())
    g.indices.push_back(cast<StringAttr>(a).getValue().str());
  for (Attribute a : system.getParameters())
    g.parameters.push_back(cast<StringAttr>(a).getValue().str());
  if (std::optional<ArrayRef<int64_t>> values = system.getValues())
    g.values.assign(values->begin(), values->end());
  if (foldParameters && g.values.size() != g.parameters.size())
    return system.emitError("the dfactl RDG form folds parameter values into the "
                            "maps: give every parameter a value");
  unsigned rank = system.getRank(), numParams = g.parameters.size();
  FailureOr<std::vector<Constraint>> domain = constraintsOf(system.getDomain());
  if (failed(domain))
    return system.emitOpError("domain is not affine");
  g.domain = std::move(*domain);

  // Equations by variable, in file order.
  std::map<std::string, std::vector<sure::EquationOp>> byVariable;
  for (auto eq : system.getBody().getOps<sure::EquationOp>())
    byVariable[eq.getVariable().str()].push_back(eq);
  for (auto &[name, eqs] : byVariable) { // std::map: byte-sorted
    g.variables.push_back(name);
    std::vector<Arc> arcs;
    for (auto [branch, eq] : llvm::enumerate(eqs)) {
      std::optional<IntegerSet> domain = eq.getBranch();
      Branch info{name, unsigned(branch), domain ? print(*domain) : "", {}};
      if (domain) {
        FailureOr<std::vector<Constraint>> constraints = constraintsOf(*domain);
        if (failed(constraints))
          return eq.emitOpError("branch domain is not affine");
        info.constraints = std::move(*constraints);
      }
      g.branches.push_back(std::move(info));
      for (auto tap : eq.getBody().getOps<sure::TapOp>()) {
        Arc arc{tap.getVariable().str(), name, unsigned(branch), {}, {}, {}};
        for (AffineExpr e : tap.getMap().getResults()) {
          SmallVector<int64_t> flat; // dims, symbols, constant
          if (failed(flatten(e, rank, numParams, flat)))
            return tap.emitOpError("subscript is not affine");
          arc.A.emplace_back(flat.begin(), flat.begin() + rank);
          arc.bParameters.emplace_back(flat.begin() + rank, flat.begin() + rank + numParams);
          int64_t constant = flat.back();
          if (foldParameters)
            for (unsigned s = 0; s < numParams; ++s) {
              int64_t term;
              if (llvm::MulOverflow(flat[rank + s], g.values[s], term) ||
                  llvm::AddOverflow(constant, term, constant))
                return tap.emitOpError("subscript offset overflows int64 at the parameters' values");
            }
          arc.b.push_back(constant);
        }
        if (foldParameters) {
          // dfactl merges a variable's branches: one arc per (source, map).
          auto same = [&](const Arc &o) { return o.from == arc.from && o.A == arc.A && o.b == arc.b; };
          if (llvm::any_of(arcs, same))
            continue;
          arc.bParameters.clear();
        }
        arcs.push_back(std::move(arc));
      }
    }
    g.arcs.insert(g.arcs.end(), arcs.begin(), arcs.end());
  }
  return g;
}

static std::string quote(StringRef s) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(s);
  return out;
}

template <typename Range, typename Fn>
static void list(llvm::raw_ostream &os, const Range &range, Fn each) {
  os << '[';
  bool first = true;
  for (const auto &x : range) {
    if (!first)
      os << ',';
    first = false;
    each(x);
  }
  os << ']';
}

static void ints(llvm::raw_ostream &os, const std::vector<int64_t> &v) {
  list(os, v, [&](int64_t x) { os << x; });
}

static void matrix(llvm::raw_ostream &os, const Matrix &m) {
  list(os, m, [&](const std::vector<int64_t> &row) { ints(os, row); });
}

void writeDfactlJSON(const Graph &g, llvm::raw_ostream &os) {
  os << "{\"operator\":" << quote(g.name) << ",\"rank\":" << g.indices.size()
     << ",\"indexNames\":";
  list(os, g.indices, [&](const std::string &s) { os << quote(s); });
  os << ",\"kind\":\"" << (g.isSURE() ? "SURE" : "SARE") << "\",\"variables\":";
  list(os, g.variables, [&](const std::string &s) { os << quote(s); });
  os << ",\"arcs\":[";
  for (auto [i, arc] : llvm::enumerate(g.arcs)) {
    os << (i ? ",\n" : "\n") << "{\"from\":" << quote(arc.from) << ",\"to\":" << quote(arc.to)
       << ",\"kind\":\"" << (arc.isUniform() ? "uniform" : "affine") << "\"";
    if (arc.isUniform()) {
      os << ",\"theta\":";
      ints(os, arc.theta());
    }
    os << ",\"map\":{\"A\":";
    matrix(os, arc.A);
    os << ",\"b\":";
    ints(os, arc.b);
    os << "}}";
  }
  os << "]}\n";
}

void writeExtendedJSON(const Graph &g, llvm::raw_ostream &os) {
  llvm::json::Array params, branches, arcs;
  for (auto [i, p] : llvm::enumerate(g.parameters)) {
    llvm::json::Object o{{"name", p}};
    if (i < g.values.size())
      o["value"] = g.values[i];
    params.push_back(std::move(o));
  }
  auto constraints = [](const std::vector<Constraint> &cs) {
    llvm::json::Array out;
    for (const Constraint &c : cs)
      out.push_back(llvm::json::Object{{"dims", llvm::json::Array(c.dims)},
                                       {"params", llvm::json::Array(c.params)},
                                       {"constant", c.constant},
                                       {"equality", c.equality}});
    return out;
  };
  for (const Branch &b : g.branches)
    branches.push_back(llvm::json::Object{
        {"variable", b.variable}, {"branch", b.index},
        {"domain", b.domain.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(b.domain)},
        {"constraints", constraints(b.constraints)}});
  auto toJSON = [](const Matrix &m) {
    llvm::json::Array rows;
    for (const auto &r : m)
      rows.push_back(llvm::json::Array(r));
    return rows;
  };
  for (const Arc &a : g.arcs) {
    llvm::json::Object o{{"from", a.from},
                         {"to", a.to},
                         {"branch", a.branch},
                         {"kind", a.isUniform() ? "uniform" : "affine"},
                         {"map", llvm::json::Object{{"A", toJSON(a.A)},
                                                    {"b", llvm::json::Array(a.b)},
                                                    {"bParameters", toJSON(a.bParameters)}}}};
    if (a.isUniform() && llvm::all_of(a.bParameters, [](const std::vector<int64_t> &r) {
          return llvm::all_of(r, [](int64_t x) { return x == 0; });
        }))
      o["theta"] = llvm::json::Array(a.theta());
    arcs.push_back(std::move(o));
  }
  llvm::json::Object root{{"operator", g.name},
                          {"rank", int64_t(g.indices.size())},
                          {"indexNames", llvm::json::Array(g.indices)},
                          {"parameters", std::move(params)},
                          {"domain", constraints(g.domain)},
                          {"kind", g.isSURE() ? "SURE" : "SARE"},
                          {"variables", llvm::json::Array(g.variables)},
                          {"branches", std::move(branches)},
                          {"arcs", std::move(arcs)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

} // namespace raptor::rdg
