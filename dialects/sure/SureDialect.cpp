//===- SureDialect.cpp - The sure dialect -----------------------*- C++ -*-===//
#include "dialects/sure/SureDialect.h"

#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace raptor::sure;

#include "dialects/sure/SureDialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/sure/SureOps.cpp.inc"

void SureDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/sure/SureOps.cpp.inc"
      >();
}

/// An integer set over the system's indices (dims) and parameters (symbols).
static LogicalResult checkSpace(Operation *op, StringRef what, IntegerSet set,
                                SystemOp system) {
  if (set.getNumDims() != system.getRank() ||
      set.getNumSymbols() != system.getParameters().size())
    return op->emitOpError() << what << " has " << set.getNumDims() << " dims and "
                             << set.getNumSymbols() << " symbols, but the system has "
                             << system.getRank() << " indices and "
                             << system.getParameters().size() << " parameters";
  return success();
}

LogicalResult SystemOp::verify() {
  if (getIndices().empty())
    return emitOpError("needs at least one index");
  llvm::StringSet<> names;
  for (Attribute a : llvm::concat<const Attribute>(getIndices(), getParameters()))
    if (!names.insert(cast<StringAttr>(a).getValue()).second)
      return emitOpError() << "name '" << cast<StringAttr>(a).getValue()
                           << "' is used twice among indices and parameters";
  if (std::optional<ArrayRef<int64_t>> values = getValues())
    if (values->size() != getParameters().size())
      return emitOpError() << "has " << values->size() << " parameter values for "
                           << getParameters().size() << " parameters";
  if (std::optional<ArrayRef<int64_t>> tau = getTau())
    if (tau->size() != getRank())
      return emitOpError() << "tau has " << tau->size() << " entries for rank "
                           << getRank();
  return checkSpace(*this, "domain", getDomain(), *this);
}

LogicalResult SystemOp::verifyRegions() {
  // Every tap reads a variable some equation defines; a variable has either
  // one equation on the whole domain or only branches.
  llvm::StringMap<std::pair<unsigned, unsigned>> defined; // whole, branches
  for (auto eq : getBody().getOps<EquationOp>()) {
    auto &[whole, branches] = defined[eq.getVariable()];
    (eq.getBranch() ? branches : whole) += 1;
    if (whole > 1 || (whole && branches))
      return eq.emitOpError() << "variable '" << eq.getVariable()
                              << "' is defined more than once on the same points";
  }
  for (Operation &op : getBody().getOps()) {
    StringRef variable;
    if (auto in = dyn_cast<InputOp>(op))
      variable = in.getVariable();
    else if (auto out = dyn_cast<OutputOp>(op))
      variable = out.getVariable();
    else
      continue;
    if (!defined.count(variable))
      return op.emitOpError() << "face of unknown variable '" << variable << "'";
  }
  for (auto eq : getBody().getOps<EquationOp>())
    for (auto tap : eq.getBody().getOps<TapOp>())
      if (!defined.count(tap.getVariable()))
        return tap.emitOpError() << "reads unknown variable '" << tap.getVariable() << "'";
  return success();
}

LogicalResult EquationOp::verify() {
  if (getVariable().empty())
    return emitOpError("needs a variable name");
  if (std::optional<IntegerSet> branch = getBranch())
    return checkSpace(*this, "branch", *branch, getParentOp());
  return success();
}

template <typename Face>
static LogicalResult verifyFace(Face op) {
  auto system = op->template getParentOfType<SystemOp>();
  unsigned params = system.getParameters().size();
  if (failed(checkSpace(op, "face", op.getFace(), system)))
    return failure();
  AffineMap shape = op.getShape(), subscripts = op.getSubscripts();
  if (shape.getNumDims() != 0 || shape.getNumSymbols() != params)
    return op.emitOpError() << "shape must be a map of the " << params
                            << " parameters only, e.g. affine_map<()[N] -> (N, N)>";
  if (subscripts.getNumDims() != system.getRank() || subscripts.getNumSymbols() != params)
    return op.emitOpError() << "subscripts must map the system's indices and parameters";
  if (subscripts.getNumResults() != shape.getNumResults())
    return op.emitOpError() << "array '" << op.getArray() << "' has " << shape.getNumResults()
                            << " dimensions but " << subscripts.getNumResults()
                            << " subscripts";
  return success();
}

LogicalResult InputOp::verify() { return verifyFace(*this); }
LogicalResult OutputOp::verify() { return verifyFace(*this); }

LogicalResult TapOp::verify() {
  auto system = (*this)->getParentOfType<SystemOp>();
  AffineMap map = getMap();
  if (map.getNumDims() != system.getRank() ||
      map.getNumSymbols() != system.getParameters().size())
    return emitOpError() << "map has " << map.getNumDims() << " dims and "
                         << map.getNumSymbols() << " symbols, but the system has "
                         << system.getRank() << " indices and "
                         << system.getParameters().size() << " parameters";
  if (map.getNumResults() != system.getRank())
    return emitOpError() << "reads '" << getVariable() << "' with " << map.getNumResults()
                         << " subscripts, but the system has rank " << system.getRank();
  for (AffineExpr e : map.getResults()) {
    bool division = false;
    e.walk([&](AffineExpr sub) {
      division |= sub.getKind() == AffineExprKind::Mod ||
                  sub.getKind() == AffineExprKind::FloorDiv ||
                  sub.getKind() == AffineExprKind::CeilDiv;
    });
    if (division || !e.isPureAffine()) {
      std::string text;
      llvm::raw_string_ostream(text) << e;
      return emitOpError() << "subscript " << text << " is not affine";
    }
  }
  return success();
}

LogicalResult ApplyOp::verify() {
  StringRef fn = getFn();
  size_t n = getOperands().size();
  size_t expected = 0;
  if (llvm::is_contained({"+", "-", "*", "/", "gt"}, fn))
    expected = 2;
  else if (llvm::is_contained({"neg", "sqrt", "exp", "abs"}, fn))
    expected = 1;
  else if (fn == "select")
    expected = 3;
  if (expected == 0)
    return emitOpError() << "unknown function '" << fn << "'";
  if (n != expected)
    return emitOpError() << "'" << fn << "' takes " << expected << " operands, got " << n;
  return success();
}
