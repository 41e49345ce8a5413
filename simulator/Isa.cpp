//===- Isa.cpp - The PIM target's instruction set ---------------*- C++ -*-===//
#include "simulator/Isa.h"

namespace raptor::pim {

llvm::ArrayRef<OpcodeInfo> opcodeTable() {
  using U = Unit;
  using S = VectorShape;
  static const OpcodeInfo table[] = {
      {Opcode::Nop, "nop", U::Scalar, S::None, false},
      {Opcode::Sldi, "sldi", U::Scalar, S::None, false},
      {Opcode::Sld, "sld", U::Scalar, S::None, false},
      {Opcode::Sadd, "sadd", U::Scalar, S::None, false},
      {Opcode::Ssub, "ssub", U::Scalar, S::None, false},
      {Opcode::Smul, "smul", U::Scalar, S::None, false},
      {Opcode::Saddi, "saddi", U::Scalar, S::None, false},
      {Opcode::Smuli, "smuli", U::Scalar, S::None, false},
      {Opcode::Setbw, "setbw", U::Matrix, S::None, false},
      {Opcode::Mvmul, "mvmul", U::Matrix, S::None, false},
      {Opcode::Vvadd, "vvadd", U::Vector, S::Binary, false},
      {Opcode::Vvsub, "vvsub", U::Vector, S::Binary, false},
      {Opcode::Vvmul, "vvmul", U::Vector, S::Binary, false},
      {Opcode::Vvdmul, "vvdmul", U::Vector, S::DotProduct, false},
      {Opcode::Vvmax, "vvmax", U::Vector, S::Binary, false},
      {Opcode::Vvsll, "vvsll", U::Vector, S::Binary, false},
      {Opcode::Vvsra, "vvsra", U::Vector, S::Binary, false},
      {Opcode::Vavg, "vavg", U::Vector, S::Reduce, false},
      {Opcode::Vrelu, "vrelu", U::Vector, S::Unary, false},
      {Opcode::Vtanh, "vtanh", U::Vector, S::Unary, false},
      {Opcode::Vsigm, "vsigm", U::Vector, S::Unary, false},
      {Opcode::Vmv, "vmv", U::Vector, S::Unary, false},
      {Opcode::Vrsu, "vrsu", U::Vector, S::ScalarShift, false},
      {Opcode::Vrsl, "vrsl", U::Vector, S::ScalarShift, false},
      {Opcode::Ld, "ld", U::Transfer, S::None, false},
      {Opcode::St, "st", U::Transfer, S::None, false},
      {Opcode::Lldi, "lldi", U::Transfer, S::None, false},
      {Opcode::Lmv, "lmv", U::Transfer, S::None, false},
      {Opcode::Send, "send", U::Transfer, S::None, false},
      {Opcode::Recv, "recv", U::Transfer, S::None, false},
      {Opcode::Wait, "wait", U::Transfer, S::None, false},
      {Opcode::Sync, "sync", U::Transfer, S::None, false},
      {Opcode::ExtVexp, "ext.vexp", U::Vector, S::Unary, true},
      {Opcode::ExtVrsqrt, "ext.vrsqrt", U::Vector, S::Unary, true},
      {Opcode::ExtVerf, "ext.verf", U::Vector, S::Unary, true},
      {Opcode::ExtVredmax, "ext.vredmax", U::Vector, S::Reduce, true},
      {Opcode::ExtVbcast, "ext.vbcast", U::Vector, S::Broadcast, true},
      {Opcode::ExtVvdiv, "ext.vvdiv", U::Vector, S::Binary, true},
      {Opcode::ExtVmatvec, "ext.vmatvec", U::Vector, S::MatVec, true},
      {Opcode::ExtVvecmat, "ext.vvecmat", U::Vector, S::VecMat, true},
      {Opcode::ExtVquant, "ext.vquant", U::Vector, S::Convert, true},
      {Opcode::ExtVdequant, "ext.vdequant", U::Vector, S::Convert, true},
      {Opcode::ExtVlog1p, "ext.vlog1p", U::Vector, S::Unary, true},
  };
  return table;
}

const OpcodeInfo *lookupOpcode(uint8_t number) {
  for (const OpcodeInfo &info : opcodeTable())
    if (uint8_t(info.opcode) == number)
      return &info;
  return nullptr;
}

const OpcodeInfo *lookupOpcode(llvm::StringRef name) {
  for (const OpcodeInfo &info : opcodeTable())
    if (name == info.name)
      return &info;
  return nullptr;
}

unsigned bytesOf(ElementType type) {
  switch (type) {
  case ElementType::I8:
    return 1;
  case ElementType::I16:
    return 2;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  }
  return 4;
}

const char *nameOf(ElementType type) {
  switch (type) {
  case ElementType::I8:
    return "i8";
  case ElementType::I16:
    return "i16";
  case ElementType::I32:
    return "i32";
  case ElementType::F32:
    return "f32";
  }
  return "f32";
}

bool executeScalar(const Instruction &in, int32_t *r) {
  switch (in.opcode) {
  case Opcode::Nop:
    return true;
  case Opcode::Sldi:
    r[in.rd] = in.imm;
    return true;
  case Opcode::Sadd:
    r[in.rd] = int32_t(uint32_t(r[in.rs1]) + uint32_t(r[in.rs2]));
    return true;
  case Opcode::Ssub:
    r[in.rd] = int32_t(uint32_t(r[in.rs1]) - uint32_t(r[in.rs2]));
    return true;
  case Opcode::Smul:
    r[in.rd] = int32_t(uint32_t(r[in.rs1]) * uint32_t(r[in.rs2]));
    return true;
  case Opcode::Saddi:
    r[in.rd] = int32_t(uint32_t(r[in.rs1]) + uint32_t(in.imm));
    return true;
  case Opcode::Smuli:
    r[in.rd] = int32_t(uint32_t(r[in.rs1]) * uint32_t(in.imm));
    return true;
  default:
    return false;
  }
}

llvm::SmallVector<LocalAccess, 3> localAccesses(const Instruction &in, const AccessContext &c) {
  const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
  int64_t eb = bytesOf(in.type), n = in.len * eb;
  using S = VectorShape;
  if (info && info->unit == Unit::Vector) {
    switch (info->shape) {
    case S::Unary: // (a conversion reads rs1 at its own width)
      return {{in.rd, n, true}, {in.rs1, in.len * bytesOf(in.from.value_or(in.type)), false}};
    case S::Binary:
      return {{in.rd, n, true}, {in.rs1, n, false}, {in.rs2, n, false}};
    case S::Reduce:
      return {{in.rd, eb, true}, {in.rs1, n, false}};
    case S::DotProduct:
      return {{in.rd, eb, true}, {in.rs1, n, false}, {in.rs2, n, false}};
    case S::Broadcast:
      return {{in.rd, n, true}, {in.rs1, eb, false}};
    case S::ScalarShift:
      return {{in.rd, n, true}, {in.rs1, n, false}, {in.rs2, eb, false}};
    case S::MatVec:
      return {{in.rd, in.rows * eb, true}, {in.rs1, in.rows * n, false}, {in.rs2, n, false}};
    case S::VecMat:
      return {{in.rd, n, true}, {in.rs1, in.rows * n, false}, {in.rs2, in.rows * eb, false}};
    case S::Convert: // the integer side is `type`, the other operands f32
      if (in.opcode == Opcode::ExtVquant) // one multiplier (a scale register)
        return {{in.rd, n, true}, {in.rs1, 4 * in.len, false}, {in.rs2, 4, false}};
      return {{in.rd, 4 * in.len, true}, {in.rs1, n, false}, {in.rs2, 4 * in.len, false}};
    case S::None:
      break;
    }
  }
  switch (in.opcode) {
  case Opcode::Mvmul: {
    int64_t outputs = c.groupCrossbars * c.xbarCols * c.cellBits / (in.mbiw ? in.mbiw : 1);
    return {{in.rd, outputs * c.obiw / 8, true}, {in.rs1, c.xbarRows * c.ibiw / 8, false}};
  }
  case Opcode::Sld:
    return {{in.rs1, 4, false}};
  case Opcode::Ld:
  case Opcode::Recv:
    return {{in.rd, in.size, true}};
  case Opcode::St:
    return {{in.rs1, in.size, false}};
  case Opcode::Send:
    return {{in.rd, in.size, false}};
  case Opcode::Lldi:
    return {{in.rd, in.len, true}};
  case Opcode::Lmv:
    return {{in.rd, in.len, true}, {in.rs1, in.len, false}};
  default:
    return {};
  }
}

} // namespace raptor::pim
