//===- FuseRescales.cpp - One requantization per int8 layer ------*- C++ -*-===//
//
// raptor-fuse-rescales: in integer-only programs, decode(sums) [-> relu]
// [-> max pool] -> encoders become one codec.rescale per encoder (Passes.td
// says why). Only the
// functions calibration made integer-only change: a float program's
// decoder produces f32 for its readers, which a rescale cannot.
//
//===----------------------------------------------------------------------===//
#include "dialects/codec/CodecDialect.h"
#include "dialects/nn/NNOps.h"
#include "passes/codec/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace raptor {
#define GEN_PASS_DEF_FUSERESCALES
#include "passes/codec/Passes.h.inc"
} // namespace raptor

using namespace mlir;
using namespace raptor::codec;

namespace {

/// The single reader of `v`, if it has exactly one.
Operation *onlyUser(Value v) { return v.hasOneUse() ? *v.getUsers().begin() : nullptr; }

/// Fuses one decoder: its value, through at most one clamp (ReLU, ReLU6)
/// and then one max pooling (each its operand's only reader), read by
/// encoders alone. Each
/// encoder becomes a rescale of the sums (and, behind it, a copy of the
/// pooling, on codes: encoding is monotone, so the maximum commutes with
/// it and the codes' padding, -128, stays below every code).
void fuse(DecodeOp d) {
  Value v = d.getOutput();
  // A clamp: ReLU, hardtanh (ReLU6) or clamp; its real bounds.
  Operation *clamp = onlyUser(v);
  std::optional<double> low, high;
  if (isa_and_nonnull<raptor::nn::ReluOp>(clamp)) {
    low = 0.0;
  } else if (auto h = dyn_cast_or_null<raptor::nn::HardtanhOp>(clamp)) {
    low = h.getMinVal().convertToDouble(), high = h.getMaxVal().convertToDouble();
  } else if (auto c = dyn_cast_or_null<raptor::nn::ClampOp>(clamp)) {
    if (c.getMin())
      low = c.getMin()->convertToDouble();
    if (c.getMax())
      high = c.getMax()->convertToDouble();
  } else {
    clamp = nullptr;
  }
  if (clamp)
    v = clamp->getResult(0);
  auto pool = dyn_cast_or_null<raptor::nn::MaxPool2dOp>(onlyUser(v));
  if (pool && pool.getIndices().use_empty())
    v = pool.getOut();
  else
    pool = nullptr;
  SmallVector<EncodeOp> encoders;
  for (Operation *user : v.getUsers()) {
    auto e = dyn_cast<EncodeOp>(user);
    if (!e || !e.getSemantics().getTarget().isInteger(8))
      return;
    encoders.push_back(e);
  }
  if (encoders.empty())
    return;
  for (EncodeOp encode : encoders) {
    OpBuilder b(encode);
    auto bound = [&](std::optional<double> x) { return x ? b.getF64FloatAttr(*x) : FloatAttr(); };
    Value codes = RescaleOp::create(b, encode.getLoc(), d.getType(), d.getInput(), d.getSemantics(),
                                    encode.getSemantics(), bound(low), bound(high))
                      .getOutput();
    if (pool) {
      IRMapping map;
      map.map(pool.getSelf(), codes);
      codes = b.clone(*pool, map)->getResult(0);
    }
    encode.replaceAllUsesWith(codes);
    encode.erase();
  }
  if (pool)
    pool.erase();
  if (clamp)
    clamp->erase();
  d.erase();
}

struct FuseRescalesPass : raptor::impl::FuseRescalesBase<FuseRescalesPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr("raptor.fixed_point_bits"))
        return;
      SmallVector<DecodeOp> decoders;
      func.walk([&](DecodeOp d) {
        if (d.getSemantics().getTarget().isInteger(32))
          decoders.push_back(d);
      });
      for (DecodeOp d : decoders)
        fuse(d);
    });
  }
};

} // namespace
