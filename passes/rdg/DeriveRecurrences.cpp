//===- DeriveRecurrences.cpp - nn ops as recurrence systems -----*- C++ -*-===//
//
// The raptor-derive-recurrences pass gives every nn.matmul, nn.linear and
// 2-D nn.convolution its system of uniform recurrences (the standard
// uniformized forms: operands pipelined along the index they do not depend
// on, the reduction accumulated along its own indices), as a sure.system in
// the module that the op names with `sure.recurrence = @system`.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "dialects/sure/SureDialect.h"
#include "passes/rdg/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

namespace raptor {
#define GEN_PASS_DEF_DERIVERECURRENCES
#include "passes/rdg/Passes.h.inc"
} // namespace raptor

using namespace mlir;

namespace {

/// gemm as a SURE over (i, j, k): A pipelined along j, B along i, the
/// accumulation along k (the Domain Flow catalog's uniformized form).
std::string matmulSystem(StringRef name, int64_t m, int64_t n, int64_t k) {
  return llvm::formatv(R"(
sure.system @{0} indices ["i", "j", "k"] parameters ["M", "N", "K"] values [{1}, {2}, {3}]
    domain affine_set<(i, j, k)[M, N, K] : (i >= 0, M - i - 1 >= 0, j >= 0, N - j - 1 >= 0, k >= 0, K - k - 1 >= 0)> {{
  sure.equation "a" {{
    %0 = sure.tap "a" at affine_map<(i, j, k)[M, N, K] -> (i, j - 1, k)>
    sure.yield %0
  }
  sure.equation "b" {{
    %0 = sure.tap "b" at affine_map<(i, j, k)[M, N, K] -> (i - 1, j, k)>
    sure.yield %0
  }
  sure.equation "c" {{
    %0 = sure.tap "c" at affine_map<(i, j, k)[M, N, K] -> (i, j, k - 1)>
    %1 = sure.tap "a" at affine_map<(i, j, k)[M, N, K] -> (i, j - 1, k)>
    %2 = sure.tap "b" at affine_map<(i, j, k)[M, N, K] -> (i - 1, j, k)>
    %3 = sure.apply "*"(%1, %2)
    %4 = sure.apply "+"(%0, %3)
    sure.yield %4
  }
}
)",
                       name, m, n, k)
      .str();
}

/// A 2-D convolution over (o, h, w, c, r, s): weights pipelined along w,
/// inputs along o, the sum over (c, r, s) accumulated along s, then r, then
/// c (piecewise, with uniform steps that wrap by the kernel extents).
std::string convSystem(StringRef name, int64_t o, int64_t h, int64_t w, int64_t c,
                       int64_t r, int64_t s) {
  const char *space = "(o, h, w, c, r, s)[O, H, W, C, R, S]";
  std::string domain = llvm::formatv(
      "affine_set<{0} : (o >= 0, O - o - 1 >= 0, h >= 0, H - h - 1 >= 0, w >= 0, "
      "W - w - 1 >= 0, c >= 0, C - c - 1 >= 0, r >= 0, R - r - 1 >= 0, s >= 0, S - s - 1 >= 0)>",
      space);
  auto tap = [&](StringRef var, StringRef subscripts, int id) {
    return llvm::formatv("    %{0} = sure.tap \"{1}\" at affine_map<{2} -> ({3})>\n", id, var,
                         space, subscripts)
        .str();
  };
  auto accumulate = [&](StringRef where, StringRef previous) {
    std::string body = "  sure.equation \"acc\" where affine_set<" + std::string(space) +
                       " : (" + where.str() + ")> {\n";
    body += tap("wgt", "o, h, w - 1, c, r, s", 0) + tap("x", "o - 1, h, w, c, r, s", 1);
    body += "    %2 = sure.apply \"*\"(%0, %1)\n";
    if (previous.empty())
      return body + "    sure.yield %2\n  }\n";
    body += tap("acc", previous, 3) + "    %4 = sure.apply \"+\"(%3, %2)\n    sure.yield %4\n  }\n";
    return body;
  };
  std::string text = llvm::formatv(
      "sure.system @{0} indices [\"o\", \"h\", \"w\", \"c\", \"r\", \"s\"] parameters "
      "[\"O\", \"H\", \"W\", \"C\", \"R\", \"S\"] values [{1}, {2}, {3}, {4}, {5}, {6}] domain {7} {{\n",
      name, o, h, w, c, r, s, domain);
  text += "  sure.equation \"wgt\" {\n" + tap("wgt", "o, h, w - 1, c, r, s", 0) + "    sure.yield %0\n  }\n";
  text += "  sure.equation \"x\" {\n" + tap("x", "o - 1, h, w, c, r, s", 0) + "    sure.yield %0\n  }\n";
  text += accumulate("s - 1 >= 0", "o, h, w, c, r, s - 1");
  text += accumulate("s == 0, r - 1 >= 0", "o, h, w, c, r - 1, s + S - 1");
  text += accumulate("s == 0, r == 0, c - 1 >= 0", "o, h, w, c - 1, r + R - 1, s + S - 1");
  text += accumulate("s == 0, r == 0, c == 0", "");
  return text + "}\n";
}

struct DeriveRecurrencesPass
    : raptor::impl::DeriveRecurrencesBase<DeriveRecurrencesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<Operation *, std::string>> systems;
    unsigned counter = 0;
    auto dims = [](Value v) { return cast<RankedTensorType>(v.getType()).getShape(); };
    module.walk([&](Operation *op) {
      std::string name = (op->getName().stripDialect() + "_" + Twine(counter)).str();
      if (auto mm = dyn_cast<raptor::nn::MatmulOp>(op)) {
        ArrayRef<int64_t> a = dims(mm.getSelf()), b = dims(mm.getOther());
        if (a.size() == 2 && b.size() == 2 && ShapedType::isStatic(a[0]) &&
            ShapedType::isStatic(a[1]) && ShapedType::isStatic(b[1])) {
          systems.push_back({op, matmulSystem(name, a[0], b[1], a[1])});
          ++counter;
        }
      } else if (auto linear = dyn_cast<raptor::nn::LinearOp>(op)) {
        ArrayRef<int64_t> x = dims(linear.getInput()), w = dims(linear.getWeight());
        RankedTensorType xt = cast<RankedTensorType>(linear.getInput().getType());
        if (w.size() == 2 && xt.hasStaticShape() && ShapedType::isStatic(w[0])) {
          int64_t rows = xt.getNumElements() / x.back();
          systems.push_back({op, matmulSystem(name, rows, w[0], x.back())});
          ++counter;
        }
      } else if (auto conv = dyn_cast<raptor::nn::ConvolutionOp>(op)) {
        auto out = cast<RankedTensorType>(conv.getOut().getType());
        ArrayRef<int64_t> w = dims(conv.getWeight());
        if (out.getRank() == 4 && out.hasStaticShape() && w.size() == 4 &&
            !conv.getTransposed() && conv.getGroups() == 1 &&
            llvm::none_of(w, ShapedType::isDynamic)) {
          systems.push_back({op, convSystem(name, out.getDimSize(1), out.getDimSize(2),
                                            out.getDimSize(3), w[1], w[2], w[3])});
          ++counter;
        }
      }
    });
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    for (auto &[op, text] : systems) {
      Block block;
      ParserConfig config(module.getContext());
      if (failed(parseSourceString(text, &block, config))) {
        op->emitError("internal error: cannot build the recurrence system");
        return signalPassFailure();
      }
      auto system = cast<raptor::sure::SystemOp>(block.front());
      system->moveBefore(module.getBody(), module.getBody()->end());
      op->setAttr("sure.recurrence", FlatSymbolRefAttr::get(system.getSymNameAttr()));
    }
  }
};

} // namespace
