//===- Isa.h - The PIM target's instruction set -----------------*- C++ -*-===//
//
// pimsim-nn's instructions (../shared/docs/pim-target.md) and Raptor's
// extensions, decoded into one struct, with their opcode numbers, JSON
// field names and binary records. One table serves the dialect's emitter,
// the program readers and the simulators.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_ISA_H
#define RAPTOR_SIMULATOR_ISA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace raptor::pim {

/// The most passes a program may need for its first inference (a skewed
/// pipeline's levels; the chip's `frames`, the manifest's program.frames).
constexpr int64_t kMostFrames = 4096;

/// Opcode numbers of the binary form: pimsim-nn's in their order (nop = 0
/// ... sync = 32; 21 is the reserved, refused vsoftmax), Raptor's
/// extensions from 64, and the loop records of Raptor's compact form.
enum class Opcode : uint8_t {
  Nop = 0, Sldi, Sld, Sadd, Ssub, Smul, Saddi, Smuli,
  Setbw, Mvmul,
  Vvadd, Vvsub, Vvmul, Vvdmul, Vvmax, Vvsll, Vvsra, Vavg, Vrelu, Vtanh, Vsigm,
  Vsoftmax, Vmv, Vrsu, Vrsl,
  Ld, St, Lldi, Lmv, Send, Recv, Wait, Sync,
  ExtVexp = 64, ExtVrsqrt, ExtVerf, ExtVredmax, ExtVbcast, ExtVvdiv, ExtVmatvec, ExtVvecmat,
  ExtVquant, ExtVdequant, ExtVlog1p,
  RepeatBegin = 0xF0, RepeatStride = 0xF1, RepeatEnd = 0xF2,
};

enum class Unit : uint8_t { Scalar, Matrix, Vector, Transfer, Structure };

/// How a vector instruction's operands are read: one or two vector sources,
/// and whether the result is one element (a reduction).
/// Convert: rd and rs1 have different element types (the instruction's
/// `type` is the integer side, the other side and rs2 are f32).
enum class VectorShape : uint8_t { None, Unary, Binary, Reduce, DotProduct, Broadcast, ScalarShift, MatVec, VecMat,
                                   Convert };

struct OpcodeInfo {
  Opcode opcode;
  const char *name; // the `op` string of pimsim-nn's JSON (extensions: `ext.vexp` ...)
  Unit unit;
  VectorShape shape;
  bool extension; // not in pimsim-nn's instruction set
};

/// Every opcode a program may hold (vsoftmax excluded: pimsim-nn refuses it).
llvm::ArrayRef<OpcodeInfo> opcodeTable();
const OpcodeInfo *lookupOpcode(uint8_t number);
const OpcodeInfo *lookupOpcode(llvm::StringRef name);

/// Element types of vector operands (the `flags` byte of compact records).
enum class ElementType : uint8_t { F32 = 0, I8 = 1, I16 = 2, I32 = 3 };
unsigned bytesOf(ElementType type);
const char *nameOf(ElementType type);

/// One decoded instruction: the union of pimsim-nn's fields.
struct Instruction {
  Opcode opcode = Opcode::Nop;
  uint8_t rd = 0, rs1 = 0, rs2 = 0;
  ElementType type = ElementType::F32;
  /// rs1's element type when a `vmv` converts (widens with sign extension,
  /// or narrows keeping the low bits); pimsim-nn's forms say it with the
  /// setbw before it (ibiw: rs1's width, obiw: rd's).
  std::optional<ElementType> from;
  bool relu = false;
  int32_t imm = 0;                  // sldi, saddi, smuli; the byte of lldi
  int32_t mbiw = 0, ibiw = 0, obiw = 0;
  int32_t core = 0, event = 0, waitValue = 0;
  int64_t group = 0, len = 0, size = 0, rows = 0, tag = 0;
  /// The operator (task) the instruction belongs to: an index into
  /// Program::operators, -1 when unknown (not part of pimsim-nn's formats).
  int32_t origin = -1;
  // RepeatBegin: `len` iterations, `size` strides at `rows` in the core's
  // stride table; RepeatBegin/End: `tag` is the matching record's index.
};

/// One stride of a compact-form loop: register `reg` advances by `stride`.
struct Stride {
  uint8_t reg;
  int32_t stride;
};

/// Local bytes `bytes` at register `reg` that an instruction reads or writes.
struct LocalAccess {
  uint8_t reg;
  int64_t bytes;
  bool write;
};

/// What an instruction's local accesses depend on besides its fields.
struct AccessContext {
  int64_t xbarRows = 0, xbarCols = 0, cellBits = 0;
  int64_t groupCrossbars = 0; // of an mvmul's group
  int32_t ibiw = 32, obiw = 32; // of the last setbw
};

/// Executes a scalar instruction that needs no memory (nop, sldi, sadd,
/// ssub, smul, saddi, smuli) on `regs`, with 32-bit wrap-around; false for
/// any other instruction.
bool executeScalar(const Instruction &inst, int32_t *regs);

/// The local memory an instruction reads and writes (ld/st: the local side;
/// send/recv: the local buffer). Registers are the ones holding addresses.
llvm::SmallVector<LocalAccess, 3> localAccesses(const Instruction &inst, const AccessContext &context);

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_ISA_H
