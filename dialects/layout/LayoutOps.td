//===- LayoutOps.td - The layout dialect -------------------*- tablegen -*-===//
#ifndef RAPTOR_LAYOUT_OPS
#define RAPTOR_LAYOUT_OPS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Layout_Dialect : Dialect {
  let name = "layout";
  let cppNamespace = "::raptor::layout";
  let summary = "CuTe layouts and their algebra (shared seed 004)";
  let description = [{
    `#layout.layout<((4,4),4):((16,1),4)>` is a layout, verified on parse;
    ops compose, coalesce, complement, divide and multiply layouts and
    constant-fold through Raptor's C++ algebra, so `--canonicalize` reduces a
    chain of layout ops on constants to one attribute. An invalid operation
    on constants (non-composable layouts, a non-complementable layout) is a
    verifier error naming the failed condition.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

def Layout_LayoutAttr : AttrDef<Layout_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "A layout shape:stride (nested tuples of one profile)";
  let parameters = (ins StringRefParameter<"canonical text">:$text);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout (valid: the attribute is verified on construction).
    ::raptor::layout::Layout getLayout() const;
    static LayoutAttr get(::mlir::MLIRContext *context, const ::raptor::layout::Layout &layout);
  }];
}

def Layout_MorphismAttr : AttrDef<Layout_Dialect, "Morphism"> {
  let mnemonic = "morphism";
  let summary = "A nested tuple morphism, `(4,4) --(1, 3)--> (4,2,4)`";
  let description = [{
    Domain, map (1-based, 0 for `*`) and codomain in the notation of the
    paper's module; verified on parse (an injective map away from `*`, the
    Tuple condition).
  }];
  let parameters = (ins StringRefParameter<"canonical text">:$text);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::raptor::layout::Morphism getMorphism() const;
  }];
}

def Layout_LayoutType : TypeDef<Layout_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "A layout value";
}

class Layout_Op<string mnemonic, list<Trait> traits = []>
    : Op<Layout_Dialect, mnemonic, !listconcat(traits, [Pure])>;

def Layout_ConstantOp : Layout_Op<"constant", [ConstantLike]> {
  let summary = "A constant layout";
  let arguments = (ins Layout_LayoutAttr:$value);
  let results = (outs Layout_LayoutType:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def Layout_EncodeOp : Layout_Op<"encode"> {
  let summary = "L_f: the layout a morphism encodes";
  let arguments = (ins Layout_MorphismAttr:$morphism);
  let results = (outs Layout_LayoutType:$result);
  let assemblyFormat = "$morphism attr-dict";
  let hasFolder = 1;
}

class Layout_BinaryOp<string mnemonic, string what> : Layout_Op<mnemonic> {
  let summary = what;
  let arguments = (ins Layout_LayoutType:$lhs, Layout_LayoutType:$rhs);
  let results = (outs Layout_LayoutType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Layout_ComposeOp : Layout_BinaryOp<"compose", "lhs o rhs (apply rhs, then lhs)">;
def Layout_ComposeTractableOp : Layout_BinaryOp<"compose_tractable",
    "lhs o rhs by the chapter 4 algorithm (tractable layouts required)">;
def Layout_LogicalDivideOp : Layout_BinaryOp<"logical_divide", "lhs / rhs = lhs o (rhs, rhs complement)">;
def Layout_LogicalProductOp : Layout_BinaryOp<"logical_product", "lhs x rhs = (lhs, lhs complement o rhs)">;

def Layout_CoalesceOp : Layout_Op<"coalesce"> {
  let summary = "Flatten, drop size-1 modes, merge contiguous modes";
  let arguments = (ins Layout_LayoutType:$input);
  let results = (outs Layout_LayoutType:$result);
  let assemblyFormat = "$input attr-dict";
  let hasFolder = 1;
}

def Layout_ComplementOp : Layout_Op<"complement"> {
  let summary = "The complement of a layout in [0, size)";
  let arguments = (ins Layout_LayoutType:$input, I64Attr:$size);
  let results = (outs Layout_LayoutType:$result);
  let assemblyFormat = "$input `size` $size attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

#endif // RAPTOR_LAYOUT_OPS
