//===- FixedPointOps.cpp - Activations and products in fixed point -*- C++ -*-===//
//
// The element-wise operators of integer-only programs that are more than
// one instruction on int32 (simulator/FixedPoint.h has the arithmetic,
// element by element, that these instruction sequences compute):
// sigmoid and tanh through pimsim-nn's vsigm / vtanh, which take and give
// Q15 in integer programs, and the product of two fixed-point values in
// four 31-bit partial products.
//
//===----------------------------------------------------------------------===//
#include "simulator/FixedPoint.h"
#include "passes/conversion/SpatialToPim/Lowering.h"

#include <deque>

using namespace mlir;

namespace raptor::pim {

using layout::Layout;

namespace {

/// Emits the steps of one term shift (FixedPoint.h's applyTerm) on `x` in
/// place; `scalar` makes a constant operand.
LogicalResult shiftTerm(Lowering &l, const KernelOperand &x, const TermShift &t,
                        llvm::function_ref<KernelOperand(float)> scalar) {
  CoreEmitter &e = l.here();
  auto step = [&](Opcode code, float value) {
    return l.kernel({x, x, scalar(value)}, [&](ArrayRef<Address> a, int64_t run) {
      e.vector(code, a[0], a[1], a[2], run, ElementType::I32);
    });
  };
  if ((t.left && failed(step(Opcode::Vvsll, float(t.left)))) || (t.pre && failed(step(Opcode::Vvsra, float(t.pre)))) ||
      (t.rounding && failed(step(Opcode::Vvadd, float(t.rounding)))) ||
      (t.right && failed(step(Opcode::Vvsra, float(t.right)))))
    return failure();
  return success();
}

} // namespace

LogicalResult Lowering::fixedActivation(const KernelOperand &dst, const KernelOperand &src, ArrayRef<int64_t> sizes,
                                        Opcode function) {
  std::deque<std::vector<float>> keep;
  Layout everywhere = broadcastLayout({}, sizes);
  auto scalar = [&](float v) {
    keep.push_back({v});
    return KernelOperand{Address(), everywhere, &keep.back(), ElementType::I32};
  };
  CoreEmitter &e = here();
  int32_t bits = int32_t(*fixedPointBits);
  // Clamped to +-32 (min as -max(-x, -bound)), to Q15 in dst, the
  // activation in place, back to the program's unit.
  int32_t bound = activationBound(bits);
  auto step = [&](Opcode code, const KernelOperand &from, float value) {
    return kernel({dst, from, scalar(value)}, [&](ArrayRef<Address> a, int64_t run) {
      e.vector(code, a[0], a[1], a[2], run, ElementType::I32);
    });
  };
  if (bound == INT32_MAX ? failed(kernel({dst, src}, [&](ArrayRef<Address> a, int64_t run) {
        e.vector(Opcode::Vmv, a[0], a[1], std::nullopt, run, ElementType::I32);
      }))
                         : failed(step(Opcode::Vvmax, src, float(-bound))) ||
                               failed(step(Opcode::Vvmul, dst, -1.0f)) ||
                               failed(step(Opcode::Vvmax, dst, float(-bound))) ||
                               failed(step(Opcode::Vvmul, dst, -1.0f)))
    return failure();
  if (failed(shiftTerm(*this, dst, termShift(kActivationBits - bits), scalar)) ||
      failed(kernel({dst, dst}, [&](ArrayRef<Address> a, int64_t run) {
        e.vector(function, a[0], a[1], std::nullopt, run, ElementType::I32);
      })))
    return failure();
  return shiftTerm(*this, dst, termShift(bits - kActivationBits), scalar);
}

LogicalResult Lowering::fixedProduct(const KernelOperand &dst, const KernelOperand &a, const KernelOperand &b,
                                     ArrayRef<int64_t> sizes) {
  std::deque<std::vector<float>> keep;
  Layout everywhere = broadcastLayout({}, sizes);
  auto scalar = [&](float v) {
    keep.push_back({v});
    return KernelOperand{Address(), everywhere, &keep.back(), ElementType::I32};
  };
  Layout compact = compactLike(dst.layout);
  int64_t bytes = 4 * compact.cosize();
  FailureOr<int> buffer = scratch(5 * bytes);
  if (failed(buffer))
    return failure();
  Address base = Address::at(addressOfBuffer(*buffer));
  auto scratchOperand = [&](int i) { return KernelOperand{base.plus(i * bytes), compact, nullptr, ElementType::I32}; };
  KernelOperand ah = scratchOperand(0), al = scratchOperand(1), bh = scratchOperand(2), bl = scratchOperand(3),
                low = scratchOperand(4);
  CoreEmitter &e = here();
  auto step = [&](Opcode code, const KernelOperand &d, const KernelOperand &x, const KernelOperand &y) {
    return kernel({d, x, y}, [&](ArrayRef<Address> r, int64_t run) {
      e.vector(code, r[0], r[1], r[2], run, ElementType::I32);
    });
  };
  int32_t bits = int32_t(*fixedPointBits);
  using O = Opcode;
  // x = xh 2^15 + xl for both factors; the products lo lo, hi lo, lo hi, hi hi.
  if (failed(step(O::Vvsra, ah, a, scalar(15))) || failed(step(O::Vvsll, al, ah, scalar(15))) ||
      failed(step(O::Vvsub, al, a, al)) || failed(step(O::Vvsra, bh, b, scalar(15))) ||
      failed(step(O::Vvsll, bl, bh, scalar(15))) || failed(step(O::Vvsub, bl, b, bl)) ||
      failed(step(O::Vvmul, low, al, bl)) || failed(step(O::Vvmul, bl, ah, bl)) ||
      failed(step(O::Vvmul, al, al, bh)) || failed(step(O::Vvmul, ah, ah, bh)))
    return failure();
  // Each to the unit 2^-bits, then their sum.
  if (failed(shiftTerm(*this, ah, termShift(30 - bits), scalar)) ||
      failed(shiftTerm(*this, bl, termShift(15 - bits), scalar)) ||
      failed(shiftTerm(*this, al, termShift(15 - bits), scalar)) ||
      failed(shiftTerm(*this, low, termShift(-bits), scalar)) || failed(step(O::Vvadd, ah, ah, bl)) ||
      failed(step(O::Vvadd, ah, ah, al)) || failed(step(O::Vvadd, dst, ah, low)))
    return failure();
  return success();
}

} // namespace raptor::pim
