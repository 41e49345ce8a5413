//===- CodecBase.td - The codec dialect and its attributes -*- tablegen -*-===//
#ifndef RAPTOR_CODEC_BASE
#define RAPTOR_CODEC_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Codec_Dialect : Dialect {
  let name = "codec";
  let cppNamespace = "::raptor::codec";
  let summary = "Placement of quantization codecs in model graphs";
  let description = [{
    Markers, semantics and materialized codecs of the non-local codec
    placement algorithm (shared seed 000). Every tensor edge of a marked
    graph carries a *semantics* `#codec.sem<id: source -> target>`: edges
    with the same id form one subgraph over which codecs commute, and the
    subgraph's absolute dominator carries `codec.dominator_of = array<i64:
    id, ...>`. Materialization replaces markers by `codec.encode`,
    `codec.decode` and `codec.observe` ops.

    Tensor types stay those of the source model (the source view); the
    target element type of a value is that of its semantics.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Discardable attribute on an op (or function argument) listing the ids
    /// of the subgraphs it is the absolute dominator of.
    static constexpr ::llvm::StringLiteral kDominatorOfAttrName = "codec.dominator_of";
    /// The compression policy a graph's markers were inserted for.
    static constexpr ::llvm::StringLiteral kPolicyAttrName = "codec.policy";
  }];
}

def Codec_SemanticsAttr : AttrDef<Codec_Dialect, "Semantics"> {
  let mnemonic = "sem";
  let summary = "A semantics (id, source element type, target element type)";
  let description = [{
    `#codec.sem<7: f32 -> i8>`: data of source type f32 that the compressed
    model holds as i8. Two semantics are compatible when their source and
    target types agree; the id identifies one subgraph.
  }];
  let parameters = (ins "int64_t":$id, "::mlir::Type":$source, "::mlir::Type":$target);
  let assemblyFormat = "`<` $id `:` $source `->` $target `>`";
  let extraClassDeclaration = [{
    /// Same source and target types (the ids may differ).
    bool isCompatibleWith(SemanticsAttr other) const {
      return getSource() == other.getSource() && getTarget() == other.getTarget();
    }
    /// The data is encoded (target differs from source).
    bool isEncoded() const { return getSource() != getTarget(); }
  }];
}

#endif // RAPTOR_CODEC_BASE
