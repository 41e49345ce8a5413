//===- PimDialect.cpp - The pim dialect -------------------------*- C++ -*-===//
#include "dialects/pim/PimDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace raptor::pim;

//===----------------------------------------------------------------------===//
// Registers print as `r7`
//===----------------------------------------------------------------------===//

static ParseResult parseReg(OpAsmParser &parser, IntegerAttr &reg) {
  StringRef word;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&word))
    return failure();
  unsigned number;
  if (!word.consume_front("r") || word.getAsInteger(10, number) || number >= kNumRegisters)
    return parser.emitError(loc, "expected a register r0..r31");
  reg = parser.getBuilder().getI32IntegerAttr(number);
  return success();
}

static void printReg(OpAsmPrinter &printer, Operation *, IntegerAttr reg) {
  printer << "r" << reg.getInt();
}

#include "dialects/pim/PimDialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/pim/PimOps.cpp.inc"

void PimDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialects/pim/PimOps.cpp.inc"
      >();
}

unsigned raptor::pim::elementBytes(Type type) {
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

//===----------------------------------------------------------------------===//
// pim.repeat: `pim.repeat 56 [r8 += 256, r9 += -4] { ... }`
//===----------------------------------------------------------------------===//

ParseResult RepeatOp::parse(OpAsmParser &parser, OperationState &result) {
  int64_t count;
  SmallVector<int32_t> regs, strides;
  if (parser.parseInteger(count) ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
        IntegerAttr reg;
        int32_t stride;
        if (parseReg(parser, reg) || parser.parsePlus() || parser.parseEqual() ||
            parser.parseInteger(stride))
          return failure();
        regs.push_back(int32_t(reg.getInt()));
        strides.push_back(stride);
        return success();
      }))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute(getCountAttrName(result.name), b.getI64IntegerAttr(count));
  result.addAttribute(getRegsAttrName(result.name), b.getDenseI32ArrayAttr(regs));
  result.addAttribute(getStridesAttrName(result.name), b.getDenseI32ArrayAttr(strides));
  Region *body = result.addRegion();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes) || parser.parseRegion(*body))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void RepeatOp::print(OpAsmPrinter &p) {
  p << " " << getCount() << " [";
  llvm::interleaveComma(llvm::zip(getRegs(), getStrides()), p, [&](auto pair) {
    p << "r" << std::get<0>(pair) << " += " << std::get<1>(pair);
  });
  p << "]";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getCountAttrName(), getRegsAttrName(), getStridesAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

std::optional<unsigned> raptor::pim::writtenRegister(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<unsigned>>(op)
      .Case<SldiOp, SldOp, SaddOp, SsubOp, SmulOp, SaddiOp, SmuliOp>(
          [](auto o) { return unsigned(o.getRd()); })
      .Default([](Operation *) { return std::nullopt; });
}

LogicalResult RepeatOp::verify() {
  if (getCount() < 1 || getCount() > INT32_MAX)
    return emitOpError("must repeat between 1 and 2^31-1 times");
  if (getRegs().size() != getStrides().size())
    return emitOpError("needs one stride per register");
  llvm::SmallDenseSet<int32_t> seen;
  for (int32_t r : getRegs()) {
    if (r < 0 || r >= int32_t(kNumRegisters))
      return emitOpError() << "strides register r" << r << ", outside r0..r31";
    if (!seen.insert(r).second)
      return emitOpError() << "strides register r" << r << " twice";
  }
  WalkResult walk = getBody().walk([&](Operation *op) {
    std::optional<unsigned> rd = writtenRegister(op);
    if (rd && seen.contains(int32_t(*rd))) {
      op->emitOpError() << "writes r" << *rd << ", which an enclosing pim.repeat strides";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult ChipOp::verify() {
  if (getCores() < 1)
    return emitOpError("needs at least one core");
  if (getXbarSize().size() != 2 || getXbarRows() < 1 || getXbarCols() < 1)
    return emitOpError("crossbar size must be [rows, cols], both positive");
  if (getCrossbars() < 1 || getMemory() < 1)
    return emitOpError("needs crossbars per core and local memory (bytes) that are positive");
  if (getMemory() > (int64_t(1) << 31))
    return emitOpError("local memory beyond 2 GiB cannot be addressed with 32-bit immediates");
  if (getCellBits() < 1 || getWeightBits() < getCellBits() || getWeightBits() % getCellBits())
    return emitOpError("weight_bits must be a positive multiple of cell_bits");
  if (getFrames() < 1 || getFrames() > kMostFrames)
    return emitOpError() << "frames must be in 1.." << kMostFrames << ", not " << getFrames();
  if (std::optional<TargetAttr> target = getTarget()) {
    if (int64_t(target->getCores()) != getCores() || int64_t(target->getCrossbarsPerCore()) != getCrossbars() ||
        int64_t(target->getCrossbarRows()) != getXbarRows() || int64_t(target->getCrossbarCols()) != getXbarCols() ||
        target->getLocalMemoryBytes() != getMemory() || int64_t(target->getCellBits()) != getCellBits() ||
        int64_t(target->getWeightBits()) != getWeightBits())
      return emitOpError("has a geometry other than its target's (cores, crossbars, their size, local memory, "
                         "cell and weight bits must be the target's)");
  }
  return success();
}

LogicalResult ChipOp::verifyRegions() {
  llvm::SmallDenseSet<int64_t> ids;
  for (CoreOp core : getBody().getOps<CoreOp>()) {
    if (core.getId() < 0 || core.getId() >= getCores())
      return core.emitOpError() << "has id " << core.getId() << " outside 0.." << getCores() - 1;
    if (!ids.insert(core.getId()).second)
      return core.emitOpError() << "duplicates core " << core.getId();
    if (failed(verifyCoreProgram(core, *this)))
      return failure();
  }
  return verifyTransfers(*this);
}

LogicalResult DataOp::verify() {
  if (getAddress() < 0)
    return emitOpError("needs a non-negative global address");
  return success();
}

LogicalResult IoOp::verify() {
  if (getKind() != "input" && getKind() != "output")
    return emitOpError("kind must be 'input' or 'output'");
  if (getAddress() < 0)
    return emitOpError("needs a non-negative global address");
  auto type = cast<RankedTensorType>(getType());
  if (!type.hasStaticShape())
    return emitOpError("needs a static shape");
  raptor::layout::Layout l = getLayout().getLayout();
  if (l.size() != type.getNumElements())
    return emitOpError() << "layout " << l.str() << " has " << l.size() << " elements but the "
                         << "tensor has " << type.getNumElements();
  if (std::optional<int64_t> vocabulary = getVocabulary()) {
    if (getKind() != "input" || !type.getElementType().isInteger(32))
      return emitOpError("has a vocabulary but is not an int32 input (token ids)");
    if (*vocabulary < 1 || *vocabulary > (int64_t(1) << 24))
      return emitOpError() << "vocabulary " << *vocabulary << " is outside 1..2^24 (ids pass through float32)";
  }
  return success();
}

LogicalResult CoreOp::verify() {
  auto chip = (*this)->getParentOfType<ChipOp>();
  // Not a DenseSet: this runs before each group's own verifier has
  // rejected ids such as INT64_MAX, a DenseSet's reserved empty key.
  llvm::SmallSet<int64_t, 8> ids;
  int64_t crossbars = 0;
  for (GroupOp group : getBody().getOps<GroupOp>()) {
    if (!ids.insert(group.getId()).second)
      return group.emitOpError() << "duplicates group " << group.getId() << " of core " << getId();
    // Program directories list a core's groups by position (docs/pim.md),
    // and readers refuse any other numbering. (An id out of range is the
    // group's own verifier's error, which runs after this one.)
    bool inRange = group.getId() >= 0 && group.getId() < chip.getCrossbars();
    if (inRange && group.getId() != int64_t(ids.size()) - 1)
      return group.emitOpError() << "is group " << group.getId() << " of core " << getId() << " where group "
                                 << ids.size() - 1 << " belongs: a core numbers its groups 0, 1, ... in order";
    crossbars += group.getCrossbars();
  }
  if (crossbars > chip.getCrossbars())
    return emitOpError() << "groups hold " << crossbars << " crossbars but a core has "
                         << chip.getCrossbars();
  return success();
}

LogicalResult GroupOp::verify() {
  auto chip = (*this)->getParentOfType<ChipOp>();
  if (getId() < 0 || getCrossbars() < 1)
    return emitOpError("needs a non-negative id and at least one crossbar");
  // Groups hold one crossbar or more, numbered from 0 per core.
  if (getId() >= chip.getCrossbars())
    return emitOpError() << "has id " << getId() << " but a core holds at most " << chip.getCrossbars()
                         << " groups";
  ArrayRef<int64_t> rows = getRows(), cols = getCols();
  if (rows.size() != 2 || cols.size() != 2 || rows[0] < 0 || rows[1] <= rows[0] || cols[0] < 0 ||
      cols[1] <= cols[0])
    return emitOpError("rows and cols must be non-empty ranges [begin, end]");
  if (rows[1] - rows[0] > chip.getXbarRows())
    return emitOpError() << "holds " << rows[1] - rows[0] << " rows but a crossbar has "
                         << chip.getXbarRows();
  if (cols[1] - cols[0] > int64_t(getCrossbars()) * chip.getXbarCols())
    return emitOpError() << "holds " << cols[1] - cols[0] << " columns but its "
                         << getCrossbars() << " crossbars have " << getCrossbars() * chip.getXbarCols();
  raptor::layout::Layout matrix = getMatrix().getLayout();
  std::vector<raptor::layout::Layout> modes = matrix.modes();
  if (modes.size() != 2)
    return emitOpError() << "matrix layout " << matrix.str() << " must have two modes (rows, cols)";
  if (rows[0] >= modes[0].size() || cols[1] > modes[1].size())
    return emitOpError() << "tile rows [" << rows[0] << ", " << rows[1] << ") cols [" << cols[0]
                         << ", " << cols[1] << ") leave the " << modes[0].size() << "x"
                         << modes[1].size() << " matrix";
  auto weight = SymbolTable::lookupNearestSymbolFrom<WeightOp>(*this, getWeightAttr());
  if (!weight)
    return emitOpError() << "names " << getWeightAttr() << ", which is not a pim.weight";
  int64_t elements = cast<ShapedType>(weight.getValue().getType()).getNumElements();
  if (matrix.cosize() > elements)
    return emitOpError() << "matrix layout " << matrix.str() << " reaches element "
                         << matrix.cosize() - 1 << " of a weight with " << elements;
  return success();
}

LogicalResult SetbwOp::verify() {
  for (int32_t w : {getIbiw(), getObiw()})
    if (w != 8 && w != 16 && w != 32)
      return emitOpError() << "element width " << w << " is not 8, 16 or 32 bits";
  return success();
}

static LogicalResult verifyLength(Operation *op, int64_t len) {
  if (len < 0 || len > INT32_MAX)
    return op->emitOpError() << "length " << len << " is outside 0..2^31-1";
  return success();
}

template <typename Op> static LogicalResult verifyVector(Op op) { return verifyLength(op, op.getLen()); }
LogicalResult VvaddOp::verify() { return verifyVector(*this); }
LogicalResult VvsubOp::verify() { return verifyVector(*this); }
LogicalResult VvmulOp::verify() { return verifyVector(*this); }
LogicalResult VvdmulOp::verify() { return verifyVector(*this); }
LogicalResult VvmaxOp::verify() { return verifyVector(*this); }
LogicalResult VvsllOp::verify() { return verifyVector(*this); }
LogicalResult VvsraOp::verify() { return verifyVector(*this); }
LogicalResult VrsuOp::verify() { return verifyVector(*this); }
LogicalResult VrslOp::verify() { return verifyVector(*this); }
LogicalResult VavgOp::verify() { return verifyVector(*this); }
LogicalResult VreluOp::verify() { return verifyVector(*this); }
LogicalResult VtanhOp::verify() { return verifyVector(*this); }
LogicalResult VsigmOp::verify() { return verifyVector(*this); }
LogicalResult VmvOp::verify() {
  if (auto from = getFrom(); from && (from->isF32() || getType().isF32()))
    return emitOpError("converts integers only (f32 has no conversion instruction)");
  return verifyVector(*this);
}
LogicalResult ExtVexpOp::verify() { return verifyVector(*this); }
LogicalResult ExtVrsqrtOp::verify() { return verifyVector(*this); }
LogicalResult ExtVerfOp::verify() { return verifyVector(*this); }
LogicalResult ExtVlog1pOp::verify() { return verifyVector(*this); }
LogicalResult ExtVredmaxOp::verify() { return verifyVector(*this); }
LogicalResult ExtVbcastOp::verify() { return verifyVector(*this); }
LogicalResult ExtVvdivOp::verify() { return verifyVector(*this); }
template <typename Op> static LogicalResult verifyConversion(Op op) {
  if (!isa<IntegerType>(op.getType()))
    return op.emitOpError() << "converts between f32 and an integer type, not " << op.getType();
  return verifyLength(op, op.getLen());
}
LogicalResult ExtVquantOp::verify() { return verifyConversion(*this); }
LogicalResult ExtVdequantOp::verify() { return verifyConversion(*this); }

template <typename Op> static LogicalResult verifyVectorMatrix(Op op) {
  if (failed(verifyLength(op, op.getLen())) || failed(verifyLength(op, op.getRows())))
    return failure();
  return verifyLength(op, op.getRows() * op.getLen());
}
LogicalResult ExtVmatvecOp::verify() { return verifyVectorMatrix(*this); }
LogicalResult ExtVvecmatOp::verify() { return verifyVectorMatrix(*this); }

template <typename Op> static LogicalResult verifyGlobalPair(Op op, unsigned reg) {
  if (reg % 2 || reg + 1 >= kNumRegisters)
    return op.emitOpError() << "global addresses are register pairs (r, r+1) with r even; got r" << reg;
  return verifyLength(op, op.getSize());
}
LogicalResult LdOp::verify() { return verifyGlobalPair(*this, getRs1()); }
LogicalResult StOp::verify() { return verifyGlobalPair(*this, getRd()); }
