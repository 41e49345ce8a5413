//===- PimDialect.h - The pim dialect ---------------------------*- C++ -*-===//
#ifndef RAPTOR_DIALECTS_PIM_PIMDIALECT_H
#define RAPTOR_DIALECTS_PIM_PIMDIALECT_H

#include "dialects/layout/LayoutDialect.h"
#include "simulator/Isa.h"
#include "simulator/TargetModel.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

namespace raptor::pim {
// Which unit executes an instruction (pimsim-nn's four), and whether it is a
// Raptor extension outside pimsim-nn's instruction set.
template <typename T> class ScalarUnit : public mlir::OpTrait::TraitBase<T, ScalarUnit> {};
template <typename T> class MatrixUnit : public mlir::OpTrait::TraitBase<T, MatrixUnit> {};
template <typename T> class VectorUnit : public mlir::OpTrait::TraitBase<T, VectorUnit> {};
template <typename T> class TransferUnit : public mlir::OpTrait::TraitBase<T, TransferUnit> {};
template <typename T> class Extension : public mlir::OpTrait::TraitBase<T, Extension> {};

/// Registers of a core (32-bit; addresses) and event registers.
constexpr unsigned kNumRegisters = 32;
} // namespace raptor::pim

#include "dialects/pim/PimDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/pim/PimAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/pim/PimOps.h.inc"

namespace raptor::pim {
/// Verifies a whole core's program as the chip would run it: register
/// values tracked through scalar instructions and loops (affine in the loop
/// indices), every local access inside the core's memory, element widths
/// consistent with `setbw`, and the last instruction executing on a unit
/// (pimsim-nn never finishes a program ending in a scalar instruction).
mlir::LogicalResult verifyCoreProgram(CoreOp core, ChipOp chip);
/// Verifies that every send has a receive of the same tag, size and peer,
/// in the same order on both sides (counting loop iterations).
mlir::LogicalResult verifyTransfers(ChipOp chip);
/// The register a scalar instruction writes, if any.
std::optional<unsigned> writtenRegister(mlir::Operation *op);
/// A pim instruction op as the decoded instruction it emits (none for
/// groups, loops and chip structure).
std::optional<Instruction> toInstruction(mlir::Operation *op);
/// The op of a decoded instruction, built at `builder`'s insertion point
/// (null for loop records and the refused vsoftmax).
mlir::Operation *buildInstruction(mlir::OpBuilder &builder, mlir::Location loc, const Instruction &in);
/// The element type code of a vector instruction's type attribute.
ElementType elementTypeOf(mlir::Type type);
/// Bytes per element of a vector instruction's element type.
unsigned elementBytes(mlir::Type type);
} // namespace raptor::pim

#endif // RAPTOR_DIALECTS_PIM_PIMDIALECT_H
