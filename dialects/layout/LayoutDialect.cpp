//===- LayoutDialect.cpp - The layout dialect -------------------*- C++ -*-===//
#include "dialects/layout/LayoutDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace raptor::layout;

#include "dialects/layout/LayoutDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/layout/LayoutAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/layout/LayoutTypes.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/layout/LayoutOps.cpp.inc"

void LayoutDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/layout/LayoutAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/layout/LayoutTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/layout/LayoutOps.cpp.inc"
      >();
}

Operation *LayoutDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                              Location loc) {
  if (auto layout = dyn_cast<LayoutAttr>(value))
    return ConstantOp::create(builder, loc, type, layout);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// #layout.layout<shape:stride>
//===----------------------------------------------------------------------===//

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef text) {
  Checked parsed = parseLayout(text.str());
  if (!parsed.ok)
    return emitError() << "invalid layout: " << parsed.error;
  return success();
}

Layout LayoutAttr::getLayout() const { return parseLayout(getText().str()).layout; }

LayoutAttr LayoutAttr::get(MLIRContext *context, const Layout &layout) {
  return Base::get(context, layout.str());
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  // The text between < and > (nested parentheses, integers, ':' and ',').
  if (parser.parseLess())
    return {};
  std::string text;
  int depth = 0;
  while (true) {
    if (succeeded(parser.parseOptionalLParen())) {
      text += "(";
      ++depth;
    } else if (depth > 0 && succeeded(parser.parseOptionalRParen())) {
      text += ")";
      --depth;
    } else if (succeeded(parser.parseOptionalComma())) {
      text += ",";
    } else if (succeeded(parser.parseOptionalColon())) {
      text += ":";
    } else if (succeeded(parser.parseOptionalGreater())) {
      break;
    } else {
      int64_t value;
      if (parser.parseInteger(value))
        return {};
      text += std::to_string(value);
    }
  }
  Checked parsed = parseLayout(text);
  if (!parsed.ok) {
    parser.emitError(parser.getNameLoc(), "invalid layout: ") << parsed.error;
    return {};
  }
  return LayoutAttr::get(parser.getContext(), parsed.layout);
}

void LayoutAttr::print(AsmPrinter &printer) const { printer << "<" << getText() << ">"; }

//===----------------------------------------------------------------------===//
// Folding and verification
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

static LayoutAttr constantOf(Value v) {
  auto op = v.getDefiningOp<ConstantOp>();
  return op ? op.getValueAttr() : LayoutAttr();
}

template <typename Fn>
static OpFoldResult foldBinary(Operation *op, Attribute lhs, Attribute rhs, Fn fn) {
  auto a = dyn_cast_or_null<LayoutAttr>(lhs), b = dyn_cast_or_null<LayoutAttr>(rhs);
  if (!a || !b)
    return {};
  Checked r = fn(a.getLayout(), b.getLayout());
  return r.ok ? OpFoldResult(LayoutAttr::get(op->getContext(), r.layout)) : OpFoldResult();
}

template <typename Op, typename Fn> static LogicalResult verifyBinary(Op op, Fn fn) {
  LayoutAttr a = constantOf(op.getLhs()), b = constantOf(op.getRhs());
  if (!a || !b)
    return success();
  Checked r = fn(a.getLayout(), b.getLayout());
  if (!r.ok)
    return op.emitOpError() << r.error;
  return success();
}

OpFoldResult ComposeOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(), checkedComposition);
}
OpFoldResult LogicalDivideOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(), checkedLogicalDivide);
}
OpFoldResult LogicalProductOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(), checkedLogicalProduct);
}
LogicalResult ComposeOp::verify() { return verifyBinary(*this, checkedComposition); }
LogicalResult LogicalDivideOp::verify() { return verifyBinary(*this, checkedLogicalDivide); }
LogicalResult LogicalProductOp::verify() { return verifyBinary(*this, checkedLogicalProduct); }

OpFoldResult CoalesceOp::fold(FoldAdaptor adaptor) {
  auto a = dyn_cast_or_null<LayoutAttr>(adaptor.getInput());
  if (!a)
    return {};
  Checked r = checkedCoalesce(a.getLayout());
  return r.ok ? OpFoldResult(LayoutAttr::get(getContext(), r.layout)) : OpFoldResult();
}

OpFoldResult ComplementOp::fold(FoldAdaptor adaptor) {
  auto a = dyn_cast_or_null<LayoutAttr>(adaptor.getInput());
  if (!a)
    return {};
  Checked r = checkedComplement(a.getLayout(), int64_t(getSize()));
  return r.ok ? OpFoldResult(LayoutAttr::get(getContext(), r.layout)) : OpFoldResult();
}

LogicalResult ComplementOp::verify() {
  if (int64_t(getSize()) < 1)
    return emitOpError() << "size must be positive, got " << int64_t(getSize());
  if (LayoutAttr a = constantOf(getInput())) {
    Checked r = checkedComplement(a.getLayout(), int64_t(getSize()));
    if (!r.ok)
      return emitOpError() << r.error;
  }
  return success();
}
