//===- Kernels.h - Data movement and element-wise loops from layouts -*- C++ -*-===//
//
// Every element-wise operation, copy or accumulation the lowering emits is
// described by layouts: each operand's element offsets over one domain (CuTe
// convention, first mode fastest). The plan refines the operands' modes to
// common boundaries (a mutual refinement), orders them by the destination's
// strides, takes the longest prefix that is contiguous in every operand as
// one instruction's length and turns the rest, jointly coalesced, into
// loops. Compile-time operands are laid out to suit: a bias broadcast over
// positions is materialized along the run so that one instruction covers it.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_KERNELS_H
#define RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_KERNELS_H

#include "algebra/LayoutAlgebra.h"
#include "passes/conversion/SpatialToPim/CoreEmitter.h"

#include <optional>
#include <vector>

namespace raptor::pim {

/// An operand: a local address and its element layout over the domain; or
/// compile-time values (`constant`, indexed by the layout's offsets, placed
/// as f32). `type` is its element type (operands of a conversion differ).
struct KernelOperand {
  Address base;
  layout::Layout layout;
  const std::vector<float> *constant = nullptr;
  ElementType type = ElementType::F32;
};

/// Places compile-time values in the current task's local memory (loaded
/// from global memory) and returns their address.
using ConstantPlacer = llvm::function_ref<Address(std::vector<float> values)>;

struct KernelPlan {
  int64_t run = 1;                        // elements per instruction
  llvm::SmallVector<int64_t, 6> counts;   // loops, outermost first
  llvm::SmallVector<Walk, 4> walks;       // per operand (bytes)
};

/// Plans a kernel over `operands` (operand 0 the destination; all layouts
/// over the same domain shape). Fails when two operands' modes have no
/// common refinement (the caller copies one to a compact layout first).
std::optional<KernelPlan> planKernel(llvm::ArrayRef<KernelOperand> operands, ConstantPlacer place,
                                     int64_t constantLimit = 16384);

/// Runs `body(addresses, run)` once per instruction of the plan.
void emitKernel(CoreEmitter &e, const KernelPlan &plan,
                llvm::function_ref<void(llvm::ArrayRef<Address>, int64_t)> body);

/// A compact layout of `sizes` (CuTe order) whose modes are ordered like
/// `like`'s strides: the storage order of `like`, without its gaps.
layout::Layout compactLike(const layout::Layout &like);
/// The column-major compact layout of `sizes` (CuTe's default).
layout::Layout compactLayout(llvm::ArrayRef<int64_t> sizes);

} // namespace raptor::pim

#endif // RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_KERNELS_H
