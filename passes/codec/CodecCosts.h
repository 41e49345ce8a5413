//===- CodecCosts.h - The codec placement cost model ------------*- C++ -*-===//
//
// The cost model of shared seed 000, section 3, on a graph whose markers
// carry edge semantics: storage (weights), traffic (every operand read by
// every operator, once per consumer) and codec items (array items crossing
// materialized codecs). docs/codec.md states the counting conventions.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_CODECCOSTS_H
#define RAPTOR_PASSES_CODEC_CODECCOSTS_H

#include "passes/codec/CodecGraph.h"

#include "llvm/Support/JSON.h"

namespace raptor::codec {

struct CodecCosts {
  std::string function;
  uint64_t storageBytes = 0;
  uint64_t operatorTrafficBytes = 0; // operand reads of the model's operators
  uint64_t codecTrafficBytes = 0;    // reads of the materialized feature codecs
  uint64_t trafficBytes() const { return operatorTrafficBytes + codecTrafficBytes; }
  uint64_t codecItems = 0;         // items through feature codecs
  uint64_t encoders = 0, decoders = 0, requantizers = 0;
  uint64_t subgraphs = 0, encodedSubgraphs = 0;
  uint64_t markers = 0;
};

/// Costs of the function of `graph` (whose semantics are read or assigned).
CodecCosts computeCosts(CodecGraph &graph, const std::vector<Subgraph> &subgraphs);

llvm::json::Value toJSON(const CodecCosts &costs);
void printTable(const CodecCosts &costs, llvm::raw_ostream &os);

} // namespace raptor::codec

#endif // RAPTOR_PASSES_CODEC_CODECCOSTS_H
