//===- SureOps.td - Systems of uniform/affine recurrences --*- tablegen -*-===//
//
// The `sure` dialect holds a system of recurrence equations (SURE/SARE,
// shared seed 003): index space, symbolic parameters, domain, and one
// equation per variable (or piecewise branches), whose bodies read other
// variables through taps at affine maps of the index point.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SURE_OPS
#define RAPTOR_SURE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Sure_Dialect : Dialect {
  let name = "sure";
  let cppNamespace = "::raptor::sure";
  let summary = "Systems of uniform and affine recurrence equations";
  let description = [{
    A `sure.system` names its index variables and symbolic parameters (with
    optional values) and bounds its index space with an integer set. Each
    `sure.equation` defines one variable, on the whole domain or on a branch
    (an extra integer set); its body computes the value from `sure.tap`s,
    each reading a variable at an affine map of the index point whose
    symbols are the parameters, so the system stays size-independent.
  }];
}

class Sure_Op<string mnemonic, list<Trait> traits = []> : Op<Sure_Dialect, mnemonic, traits>;

def Sure_SystemOp : Sure_Op<"system", [Symbol, SymbolTable, SingleBlock, NoTerminator,
                                       IsolatedFromAbove]> {
  let summary = "A system of recurrence equations";
  let description = [{
    ```mlir
    sure.system @gemv indices ["i", "j", "k"] parameters ["M", "N"] values [3, 4]
        domain affine_set<(i, j, k)[M, N] : (i >= 0, M - i - 1 >= 0, ...)> {
      sure.equation "a" { ... }
    }
    ```
    `values` (optional) gives the parameters' values, e.g. for dfactl's
    RDG form, which folds them into the maps.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$indices,
                       StrArrayAttr:$parameters, OptionalAttr<DenseI64ArrayAttr>:$values,
                       IntegerSetAttr:$domain, OptionalAttr<DenseI64ArrayAttr>:$tau);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `indices` $indices `parameters` $parameters (`values` $values^)?
    `domain` $domain (`tau` $tau^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    unsigned getRank() { return getIndices().size(); }
  }];
}

def Sure_EquationOp : Sure_Op<"equation", [HasParent<"SystemOp">,
                                           SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "The equation (or one piecewise branch) of a variable";
  let description = [{
    Defines `variable` on the system's domain, intersected with `branch` when
    present. The body yields the value at an index point.
  }];
  let arguments = (ins StrAttr:$variable, OptionalAttr<IntegerSetAttr>:$branch);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$variable (`where` $branch^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

class Sure_FaceOp<string mnemonic, string what> : Sure_Op<mnemonic, [HasParent<"SystemOp">]> {
  let summary = what;
  let arguments = (ins StrAttr:$array, AffineMapAttr:$shape, IntegerSetAttr:$face,
                       StrAttr:$variable, AffineMapAttr:$subscripts);
  let assemblyFormat = [{
    $array `shape` $shape `on` $face `variable` $variable `at` $subscripts attr-dict
  }];
  let hasVerifier = 1;
}

def Sure_InputOp : Sure_FaceOp<"input", "A boundary face where a variable is read from an array"> {
  let description = [{
    `input T[N][N] ((i,j,k) | ..., k = -1) : v(i,j,k) = T[i][j];`: on the face's
    points, `variable` takes the value of `array` at `subscripts`.
    `shape` maps the parameters to the array's extents.
  }];
}

def Sure_OutputOp : Sure_FaceOp<"output", "A boundary face where a variable is written to an array"> {
  let description = [{
    `output C[N][N] ((i,j,k) | ..., k = K-1) : C[i][j] = v(i,j,k);`: on the
    face's points, the value of `variable` is stored into `array` at `subscripts`.
  }];
}

def Sure_TapOp : Sure_Op<"tap", [Pure, HasParent<"EquationOp">]> {
  let summary = "Reads a variable at an affine map of the index point";
  let arguments = (ins StrAttr:$variable, AffineMapAttr:$map);
  let results = (outs F64:$value);
  let assemblyFormat = "$variable `at` $map attr-dict";
  let hasVerifier = 1;
}

def Sure_ConstantOp : Sure_Op<"constant", [Pure, HasParent<"EquationOp">]> {
  let summary = "A numeric constant";
  let arguments = (ins F64Attr:$value);
  let results = (outs F64:$result);
  let assemblyFormat = "$value attr-dict";
}

def Sure_ApplyOp : Sure_Op<"apply", [Pure, HasParent<"EquationOp">]> {
  let summary = "An arithmetic operator or function of the equation body";
  let description = [{
    `fn` is one of `+ - * /` (binary), `neg`, `sqrt`, `exp`, `abs` (unary),
    `gt` (binary, 1.0 or 0.0) and `select` (condition, then, else).
  }];
  let arguments = (ins StrAttr:$fn, Variadic<F64>:$operands);
  let results = (outs F64:$result);
  let assemblyFormat = "$fn `(` $operands `)` attr-dict";
  let hasVerifier = 1;
}

def Sure_YieldOp : Sure_Op<"yield", [Pure, Terminator, HasParent<"EquationOp">]> {
  let summary = "The value an equation defines";
  let arguments = (ins Optional<F64>:$value);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::Value()); }]>];
  let assemblyFormat = "($value^)? attr-dict";
}

#endif // RAPTOR_SURE_OPS
