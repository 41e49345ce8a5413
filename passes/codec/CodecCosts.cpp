//===- CodecCosts.cpp - The codec placement cost model ----------*- C++ -*-===//
#include "passes/codec/CodecCosts.h"
#include "passes/codec/MarkerCodecs.h"

#include "dialects/nn/NNOps.h"

#include "llvm/Support/Format.h"

using namespace mlir;

namespace raptor::codec {

static uint64_t numElements(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return type.hasStaticShape() ? type.getNumElements() : 0;
}

static uint64_t bytes(Value v, Type element) {
  return numElements(v) * ((element.getIntOrFloatBitWidth() + 7) / 8);
}

CodecCosts computeCosts(CodecGraph &g, const std::vector<Subgraph> &subgraphs) {
  CodecCosts c;
  c.function = g.function().getSymName().str();
  std::vector<Edge> &edges = g.getEdges();
  for (const Subgraph &h : subgraphs)
    if (!h.removed) {
      ++c.subgraphs;
      c.encodedSubgraphs += h.sem.encoded();
    }
  for (unsigned v = 0, n = g.numNodes(); v < n; ++v) {
    switch (g.kind(v)) {
    case NodeKind::Input: {
      // Storage: a floating-point weight is stored in the type its readers
      // read it in (encoded when every reader reads it encoded).
      if (!g.function().getArgAttr(v, nn::NNDialect::kParamAttrName) ||
          g.outEdges(v).empty())
        break;
      Value arg = g.function().getArgument(v);
      Type element = cast<RankedTensorType>(arg.getType()).getElementType();
      if (!isa<FloatType>(element))
        break;
      // Follow weight -> output marker -> input markers -> readers.
      bool allEncoded = true;
      for (unsigned f : g.outEdges(v)) {
        unsigned m = edges[f].head;
        if (g.kind(m) != NodeKind::MarkOutput) {
          allEncoded &= edges[f].sem.encoded();
          continue;
        }
        for (unsigned f2 : g.outEdges(m)) {
          unsigned mi = edges[f2].head;
          if (g.kind(mi) == NodeKind::MarkInput && !g.outEdges(mi).empty())
            allEncoded &= edges[g.outEdges(mi).front()].sem.encoded();
          else
            allEncoded &= edges[f2].sem.encoded();
        }
      }
      c.storageBytes += allEncoded ? numElements(arg) : bytes(arg, element);
      break;
    }
    case NodeKind::Operator: {
      Operation *op = g.op(v);
      if (op->hasTrait<OpTrait::IsTerminator>() || isa<nn::ConstantOp>(op))
        break;
      // An explicit fan-out (repeats 1) is an identity that moves no data:
      // its readers' reads are counted, not its own.
      if (auto fanOut = dyn_cast<nn::FanOutOp>(op); fanOut && fanOut.getRepeats() == 1)
        break;
      for (unsigned e : g.inEdges(v))
        c.operatorTrafficBytes += bytes(edges[e].operand->get(), edges[e].sem.target);
      break;
    }
    case NodeKind::MarkInput:
    case NodeKind::MarkOutput:
      ++c.markers;
      break;
    }
  }
  for (const MarkerCodec &m : markerCodecs(g)) {
    if (m.kind == CodecKind::None || m.aheadOfTime || m.sharedWith)
      continue;
    Value value = g.op(m.marker)->getOperand(0);
    uint64_t items = numElements(value);
    if (m.kind == CodecKind::Requantize) { // codes to codes: reads the encoded input
      ++c.requantizers;
      c.codecItems += items;
      c.codecTrafficBytes += bytes(value, m.from.target);
      continue;
    }
    // A decode-encode whose decoder another marker has: only its encoder.
    bool decodes = (m.kind == CodecKind::Decode || m.kind == CodecKind::DecodeEncode) &&
                   !m.decoderSharedWith;
    bool encodes = m.kind == CodecKind::Encode || m.kind == CodecKind::DecodeEncode;
    if (decodes) {
      ++c.decoders;
      c.codecItems += items;
      c.codecTrafficBytes += bytes(value, m.from.target);
    }
    if (encodes) {
      ++c.encoders;
      c.codecItems += items;
      c.codecTrafficBytes += bytes(value, m.from.source);
    }
  }
  return c;
}

llvm::json::Value toJSON(const CodecCosts &c) {
  constexpr double MiB = 1024.0 * 1024.0;
  return llvm::json::Object{
      {"function", c.function},
      {"storage_bytes", c.storageBytes},
      {"storage_mib", c.storageBytes / MiB},
      {"traffic_bytes", c.trafficBytes()},
      {"traffic_mib", c.trafficBytes() / MiB},
      {"operator_traffic_bytes", c.operatorTrafficBytes},
      {"operator_traffic_mib", c.operatorTrafficBytes / MiB},
      {"codec_traffic_bytes", c.codecTrafficBytes},
      {"codec_traffic_mib", c.codecTrafficBytes / MiB},
      {"codec_items", c.codecItems},
      {"codec_items_m", c.codecItems / 1e6},
      {"encoders", c.encoders},
      {"decoders", c.decoders},
      {"requantizers", c.requantizers},
      {"subgraphs", c.subgraphs},
      {"encoded_subgraphs", c.encodedSubgraphs},
      {"markers", c.markers},
  };
}

void printTable(const CodecCosts &c, llvm::raw_ostream &os) {
  constexpr double MiB = 1024.0 * 1024.0;
  os << "codec costs of @" << c.function << "\n";
  os << llvm::format("  %-28s %12.2f MiB\n", "storage", c.storageBytes / MiB);
  os << llvm::format("  %-28s %12.2f MiB\n", "traffic", c.trafficBytes() / MiB);
  os << llvm::format("  %-28s %12.2f MiB\n", "  of which operators", c.operatorTrafficBytes / MiB);
  os << llvm::format("  %-28s %12.2f MiB\n", "  of which codecs", c.codecTrafficBytes / MiB);
  os << llvm::format("  %-28s %12.2f M\n", "codec items", c.codecItems / 1e6);
  os << llvm::format("  %-28s %12llu\n", "encoders", (unsigned long long)c.encoders);
  os << llvm::format("  %-28s %12llu\n", "decoders", (unsigned long long)c.decoders);
  os << llvm::format("  %-28s %12llu\n", "requantizers", (unsigned long long)c.requantizers);
  os << llvm::format("  %-28s %12llu (%llu encoded)\n", "subgraphs",
                     (unsigned long long)c.subgraphs,
                     (unsigned long long)c.encodedSubgraphs);
}

} // namespace raptor::codec
