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
// #layout.morphism<(4,4) --(1, 3)--> (4,2,4)>
//===----------------------------------------------------------------------===//

/// `int | ( t, ... )` from the token stream.
static ParseResult parseTupleTokens(AsmParser &parser, IntTuple &out) {
  if (succeeded(parser.parseOptionalLParen())) {
    std::vector<IntTuple> children;
    if (succeeded(parser.parseOptionalRParen())) {
      out = IntTuple::tuple({});
      return success();
    }
    do {
      if (succeeded(parser.parseOptionalRParen())) { // a trailing comma: (1,)
        out = IntTuple::tuple(children);
        return success();
      }
      IntTuple child;
      if (parseTupleTokens(parser, child))
        return failure();
      children.push_back(child);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
    out = IntTuple::tuple(children);
    return success();
  }
  int64_t value;
  if (parser.parseInteger(value))
    return failure();
  out = IntTuple(value);
  return success();
}

Attribute MorphismAttr::parse(AsmParser &parser, Type) {
  IntTuple domain, map, codomain;
  if (parser.parseLess() || parseTupleTokens(parser, domain) || parser.parseMinus() ||
      parser.parseMinus() || parseTupleTokens(parser, map) || parser.parseMinus() ||
      parser.parseArrow() || parseTupleTokens(parser, codomain) || parser.parseGreater())
    return {};
  std::vector<int64_t> entries = map.leaf ? std::vector<int64_t>{map.value} : map.flatten();
  std::string text;
  std::string error = checkMorphism(domain, codomain, entries, text);
  if (!error.empty()) {
    parser.emitError(parser.getNameLoc(), "invalid morphism: ") << error;
    return {};
  }
  return MorphismAttr::get(parser.getContext(), text);
}

void MorphismAttr::print(AsmPrinter &printer) const { printer << "<" << getText() << ">"; }

Morphism MorphismAttr::getMorphism() const {
  // The canonical text parses back: domain --(map)--> codomain.
  std::string text = getText().str();
  size_t open = text.find(" --"), close = text.find("--> ");
  // A tuple is read as the shape of a layout with zero strides of the same
  // nesting (with the tuple itself as strides, offsets past 2^63 made the
  // parse fail and the shape silently default to 1).
  auto tuple = [](const std::string &s) {
    std::string zeros;
    for (size_t i = 0; i < s.size(); ++i)
      if (!isdigit(static_cast<unsigned char>(s[i])))
        zeros += s[i];
      else if (i == 0 || !isdigit(static_cast<unsigned char>(s[i - 1])))
        zeros += '0';
    Checked c = parseLayout(s + ":" + zeros);
    if (!c.ok)
      throw LayoutError(c.error);
    return c.layout.shape;
  };
  IntTuple domain = tuple(text.substr(0, open)), codomain = tuple(text.substr(close + 4));
  std::string mapText = text.substr(open + 3, close - open - 3);
  std::vector<int64_t> map;
  for (size_t i = 0; i < mapText.size();) {
    if (isdigit(static_cast<unsigned char>(mapText[i]))) {
      size_t j = i;
      while (j < mapText.size() && isdigit(static_cast<unsigned char>(mapText[j])))
        ++j;
      map.push_back(std::stoll(mapText.substr(i, j - i)));
      i = j;
    } else {
      ++i;
    }
  }
  return Morphism(domain, codomain, map);
}

//===----------------------------------------------------------------------===//
// Folding and verification
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

/// Runs a fold of the layout algebra: a LayoutError (or any other failure
/// of the algebra) means no fold, never an exception through MLIR.
template <typename Fn> static OpFoldResult foldSafely(Fn fn) {
  try {
    return fn();
  } catch (const std::exception &) {
    return {};
  }
}

/// Runs a verifier of the layout algebra: its errors become the op's.
template <typename Fn> static LogicalResult verifySafely(Operation *op, Fn fn) {
  try {
    return fn();
  } catch (const std::exception &e) {
    return op->emitOpError() << e.what();
  }
}

OpFoldResult EncodeOp::fold(FoldAdaptor) {
  return foldSafely([&]() -> OpFoldResult {
    Morphism f = getMorphism().getMorphism();
    return LayoutAttr::get(getContext(), encodedLayoutOf(f.domain, f.codomain, f.map));
  });
}

static LayoutAttr constantOf(Value v) {
  auto op = v.getDefiningOp<ConstantOp>();
  return op ? op.getValueAttr() : LayoutAttr();
}

template <typename Fn>
static OpFoldResult foldBinary(Operation *op, Attribute lhs, Attribute rhs, Fn fn) {
  auto a = dyn_cast_or_null<LayoutAttr>(lhs), b = dyn_cast_or_null<LayoutAttr>(rhs);
  if (!a || !b)
    return {};
  return foldSafely([&]() -> OpFoldResult {
    Checked r = fn(a.getLayout(), b.getLayout());
    return r.ok ? OpFoldResult(LayoutAttr::get(op->getContext(), r.layout)) : OpFoldResult();
  });
}

template <typename Op, typename Fn> static LogicalResult verifyBinary(Op op, Fn fn) {
  LayoutAttr a = constantOf(op.getLhs()), b = constantOf(op.getRhs());
  if (!a || !b)
    return success();
  return verifySafely(op, [&]() -> LogicalResult {
    Checked r = fn(a.getLayout(), b.getLayout());
    if (!r.ok)
      return op.emitOpError() << r.error;
    return success();
  });
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
OpFoldResult ComposeTractableOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(), checkedComposeTractable);
}
LogicalResult ComposeTractableOp::verify() { return verifyBinary(*this, checkedComposeTractable); }
LogicalResult LogicalDivideOp::verify() { return verifyBinary(*this, checkedLogicalDivide); }
LogicalResult LogicalProductOp::verify() { return verifyBinary(*this, checkedLogicalProduct); }

OpFoldResult CoalesceOp::fold(FoldAdaptor adaptor) {
  auto a = dyn_cast_or_null<LayoutAttr>(adaptor.getInput());
  if (!a)
    return {};
  return foldSafely([&]() -> OpFoldResult {
    Checked r = checkedCoalesce(a.getLayout());
    return r.ok ? OpFoldResult(LayoutAttr::get(getContext(), r.layout)) : OpFoldResult();
  });
}

OpFoldResult ComplementOp::fold(FoldAdaptor adaptor) {
  auto a = dyn_cast_or_null<LayoutAttr>(adaptor.getInput());
  if (!a)
    return {};
  return foldSafely([&]() -> OpFoldResult {
    Checked r = checkedComplement(a.getLayout(), int64_t(getSize()));
    return r.ok ? OpFoldResult(LayoutAttr::get(getContext(), r.layout)) : OpFoldResult();
  });
}

LogicalResult ComplementOp::verify() {
  if (int64_t(getSize()) < 1)
    return emitOpError() << "size must be positive, got " << int64_t(getSize());
  if (LayoutAttr a = constantOf(getInput()))
    return verifySafely(*this, [&]() -> LogicalResult {
      Checked r = checkedComplement(a.getLayout(), int64_t(getSize()));
      if (!r.ok)
        return emitOpError() << r.error;
      return success();
    });
  return success();
}
