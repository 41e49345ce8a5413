//===- PimInstructions.cpp - pim ops as decoded instructions ----*- C++ -*-===//
#include "dialects/pim/PimDialect.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace raptor::pim;

ElementType raptor::pim::elementTypeOf(Type type) {
  if (type.isF32())
    return ElementType::F32;
  switch (type.getIntOrFloatBitWidth()) {
  case 8:
    return ElementType::I8;
  case 16:
    return ElementType::I16;
  default:
    return ElementType::I32;
  }
}

namespace {
Instruction make(Opcode code) {
  Instruction in;
  in.opcode = code;
  return in;
}

template <typename Op> Instruction unary(Op op, Opcode code) {
  Instruction in = make(code);
  in.rd = op.getRd();
  in.rs1 = op.getRs1();
  in.len = op.getLen();
  in.type = elementTypeOf(op.getType());
  return in;
}

template <typename Op> Instruction binary(Op op, Opcode code) {
  Instruction in = unary(op, code);
  in.rs2 = op.getRs2();
  return in;
}

template <typename Op> Instruction vectorMatrix(Op op, Opcode code) {
  Instruction in = binary(op, code);
  in.rows = op.getRows();
  return in;
}

template <typename Op> Instruction scalarRR(Op op, Opcode code) {
  Instruction in = make(code);
  in.rd = op.getRd();
  in.rs1 = op.getRs1();
  in.rs2 = op.getRs2();
  return in;
}

template <typename Op> Instruction scalarRI(Op op, Opcode code) {
  Instruction in = make(code);
  in.rd = op.getRd();
  in.rs1 = op.getRs1();
  in.imm = op.getImm();
  return in;
}
} // namespace

std::optional<Instruction> raptor::pim::toInstruction(Operation *op) {
  using R = std::optional<Instruction>;
  using O = Opcode;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([](NopOp) { return make(O::Nop); })
      .Case([](SldiOp o) {
        Instruction in = make(O::Sldi);
        in.rd = o.getRd();
        in.imm = o.getImm();
        return in;
      })
      .Case([](SldOp o) {
        Instruction in = make(O::Sld);
        in.rd = o.getRd();
        in.rs1 = o.getRs1();
        return in;
      })
      .Case([](SaddOp o) { return scalarRR(o, O::Sadd); })
      .Case([](SsubOp o) { return scalarRR(o, O::Ssub); })
      .Case([](SmulOp o) { return scalarRR(o, O::Smul); })
      .Case([](SaddiOp o) { return scalarRI(o, O::Saddi); })
      .Case([](SmuliOp o) { return scalarRI(o, O::Smuli); })
      .Case([](SetbwOp o) {
        Instruction in = make(O::Setbw);
        in.ibiw = o.getIbiw();
        in.obiw = o.getObiw();
        return in;
      })
      .Case([](MvmulOp o) {
        Instruction in = make(O::Mvmul);
        in.rd = o.getRd();
        in.rs1 = o.getRs1();
        in.group = o.getGroup();
        in.mbiw = o.getMbiw();
        in.relu = o.getRelu();
        return in;
      })
      .Case([](VvaddOp o) { return binary(o, O::Vvadd); })
      .Case([](VvsubOp o) { return binary(o, O::Vvsub); })
      .Case([](VvmulOp o) { return binary(o, O::Vvmul); })
      .Case([](VvdmulOp o) { return binary(o, O::Vvdmul); })
      .Case([](VvmaxOp o) { return binary(o, O::Vvmax); })
      .Case([](VvsllOp o) { return binary(o, O::Vvsll); })
      .Case([](VvsraOp o) { return binary(o, O::Vvsra); })
      .Case([](VrsuOp o) { return binary(o, O::Vrsu); })
      .Case([](VrslOp o) { return binary(o, O::Vrsl); })
      .Case([](VavgOp o) { return unary(o, O::Vavg); })
      .Case([](VreluOp o) { return unary(o, O::Vrelu); })
      .Case([](VtanhOp o) { return unary(o, O::Vtanh); })
      .Case([](VsigmOp o) { return unary(o, O::Vsigm); })
      .Case([](VmvOp o) {
        Instruction in = unary(o, O::Vmv);
        if (std::optional<Type> from = o.getFrom())
          in.from = elementTypeOf(*from);
        return in;
      })
      .Case([](ExtVexpOp o) { return unary(o, O::ExtVexp); })
      .Case([](ExtVrsqrtOp o) { return unary(o, O::ExtVrsqrt); })
      .Case([](ExtVerfOp o) { return unary(o, O::ExtVerf); })
      .Case([](ExtVlog1pOp o) { return unary(o, O::ExtVlog1p); })
      .Case([](ExtVredmaxOp o) { return unary(o, O::ExtVredmax); })
      .Case([](ExtVbcastOp o) { return unary(o, O::ExtVbcast); })
      .Case([](ExtVvdivOp o) { return binary(o, O::ExtVvdiv); })
      .Case([](ExtVquantOp o) { return binary(o, O::ExtVquant); })
      .Case([](ExtVdequantOp o) { return binary(o, O::ExtVdequant); })
      .Case([](ExtVmatvecOp o) { return vectorMatrix(o, O::ExtVmatvec); })
      .Case([](ExtVvecmatOp o) { return vectorMatrix(o, O::ExtVvecmat); })
      .Case([](LdOp o) {
        Instruction in = make(O::Ld);
        in.rd = o.getRd();
        in.rs1 = o.getRs1();
        in.size = o.getSize();
        return in;
      })
      .Case([](StOp o) {
        Instruction in = make(O::St);
        in.rd = o.getRd();
        in.rs1 = o.getRs1();
        in.size = o.getSize();
        return in;
      })
      .Case([](LldiOp o) {
        Instruction in = make(O::Lldi);
        in.rd = o.getRd();
        in.imm = o.getImm();
        in.len = o.getLen();
        return in;
      })
      .Case([](LmvOp o) {
        Instruction in = make(O::Lmv);
        in.rd = o.getRd();
        in.rs1 = o.getRs1();
        in.len = o.getLen();
        return in;
      })
      .Case([](SendOp o) {
        Instruction in = make(O::Send);
        in.rd = in.rs1 = o.getRd();
        in.core = o.getCore();
        in.size = o.getSize();
        in.tag = o.getTag();
        return in;
      })
      .Case([](RecvOp o) {
        Instruction in = make(O::Recv);
        in.rd = o.getRd();
        in.core = o.getCore();
        in.size = o.getSize();
        in.tag = o.getTag();
        return in;
      })
      .Case([](SyncOp o) {
        Instruction in = make(O::Sync);
        in.core = o.getCore();
        in.event = o.getEvent();
        return in;
      })
      .Case([](WaitOp o) {
        Instruction in = make(O::Wait);
        in.event = o.getEvent();
        in.waitValue = o.getValue();
        return in;
      })
      .Default([](Operation *) { return std::nullopt; });
}

namespace {
Type typeOf(OpBuilder &b, ElementType t) {
  switch (t) {
  case ElementType::I8:
    return b.getI8Type();
  case ElementType::I16:
    return b.getI16Type();
  case ElementType::I32:
    return b.getI32Type();
  case ElementType::F32:
    break;
  }
  return b.getF32Type();
}

template <typename Op> Operation *unaryOp(OpBuilder &b, Location loc, const Instruction &in) {
  return Op::create(b, loc, in.rd, in.rs1, in.len, typeOf(b, in.type));
}
template <typename Op> Operation *binaryOp(OpBuilder &b, Location loc, const Instruction &in) {
  return Op::create(b, loc, in.rd, in.rs1, in.rs2, in.len, typeOf(b, in.type));
}
template <typename Op> Operation *vectorMatrixOp(OpBuilder &b, Location loc, const Instruction &in) {
  return Op::create(b, loc, in.rd, in.rs1, in.rs2, in.rows, in.len, typeOf(b, in.type));
}
} // namespace

Operation *raptor::pim::buildInstruction(OpBuilder &b, Location loc, const Instruction &in) {
  using O = Opcode;
  switch (in.opcode) {
  case O::Nop:
    return NopOp::create(b, loc);
  case O::Sldi:
    return SldiOp::create(b, loc, in.rd, in.imm);
  case O::Sld:
    return SldOp::create(b, loc, in.rd, in.rs1);
  case O::Sadd:
    return SaddOp::create(b, loc, in.rd, in.rs1, in.rs2);
  case O::Ssub:
    return SsubOp::create(b, loc, in.rd, in.rs1, in.rs2);
  case O::Smul:
    return SmulOp::create(b, loc, in.rd, in.rs1, in.rs2);
  case O::Saddi:
    return SaddiOp::create(b, loc, in.rd, in.rs1, in.imm);
  case O::Smuli:
    return SmuliOp::create(b, loc, in.rd, in.rs1, in.imm);
  case O::Setbw:
    return SetbwOp::create(b, loc, in.ibiw, in.obiw);
  case O::Mvmul:
    return MvmulOp::create(b, loc, in.rd, in.rs1, in.group, in.mbiw, in.relu);
  case O::Vvadd:
    return binaryOp<VvaddOp>(b, loc, in);
  case O::Vvsub:
    return binaryOp<VvsubOp>(b, loc, in);
  case O::Vvmul:
    return binaryOp<VvmulOp>(b, loc, in);
  case O::Vvdmul:
    return binaryOp<VvdmulOp>(b, loc, in);
  case O::Vvmax:
    return binaryOp<VvmaxOp>(b, loc, in);
  case O::Vvsll:
    return binaryOp<VvsllOp>(b, loc, in);
  case O::Vvsra:
    return binaryOp<VvsraOp>(b, loc, in);
  case O::Vrsu:
    return binaryOp<VrsuOp>(b, loc, in);
  case O::Vrsl:
    return binaryOp<VrslOp>(b, loc, in);
  case O::Vavg:
    return unaryOp<VavgOp>(b, loc, in);
  case O::Vrelu:
    return unaryOp<VreluOp>(b, loc, in);
  case O::Vtanh:
    return unaryOp<VtanhOp>(b, loc, in);
  case O::Vsigm:
    return unaryOp<VsigmOp>(b, loc, in);
  case O::Vmv:
    return VmvOp::create(b, loc, in.rd, in.rs1, in.len,
                         in.from ? TypeAttr::get(typeOf(b, *in.from)) : TypeAttr(), typeOf(b, in.type));
  case O::ExtVexp:
    return unaryOp<ExtVexpOp>(b, loc, in);
  case O::ExtVrsqrt:
    return unaryOp<ExtVrsqrtOp>(b, loc, in);
  case O::ExtVerf:
    return unaryOp<ExtVerfOp>(b, loc, in);
  case O::ExtVlog1p:
    return unaryOp<ExtVlog1pOp>(b, loc, in);
  case O::ExtVredmax:
    return unaryOp<ExtVredmaxOp>(b, loc, in);
  case O::ExtVbcast:
    return unaryOp<ExtVbcastOp>(b, loc, in);
  case O::ExtVvdiv:
    return binaryOp<ExtVvdivOp>(b, loc, in);
  case O::ExtVquant:
    return binaryOp<ExtVquantOp>(b, loc, in);
  case O::ExtVdequant:
    return binaryOp<ExtVdequantOp>(b, loc, in);
  case O::ExtVmatvec:
    return vectorMatrixOp<ExtVmatvecOp>(b, loc, in);
  case O::ExtVvecmat:
    return vectorMatrixOp<ExtVvecmatOp>(b, loc, in);
  case O::Ld:
    return LdOp::create(b, loc, in.rd, in.rs1, in.size);
  case O::St:
    return StOp::create(b, loc, in.rd, in.rs1, in.size);
  case O::Lldi:
    return LldiOp::create(b, loc, in.rd, in.imm, in.len);
  case O::Lmv:
    return LmvOp::create(b, loc, in.rd, in.rs1, in.len);
  case O::Send:
    return SendOp::create(b, loc, in.rd, in.core, in.size, in.tag);
  case O::Recv:
    return RecvOp::create(b, loc, in.rd, in.core, in.size, in.tag);
  case O::Sync:
    return SyncOp::create(b, loc, in.core, in.event);
  case O::Wait:
    return WaitOp::create(b, loc, in.event, in.waitValue);
  default:
    return nullptr; // vsoftmax and loop records have no op
  }
}
