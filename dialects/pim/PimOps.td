//===- PimOps.td - Per-core programs of a PIM chip ---------*- tablegen -*-===//
//
// The `pim` dialect is the address-level form of a compiled model: one
// region per core holding the core's array groups (crossbars bound to
// immutable weight tiles) and its straight-line program, one op per
// instruction of the target's instruction set (pimsim-nn's, described in
// ../shared/docs/pim-target.md), plus a counted `pim.repeat` whose
// registers advance by fixed strides, so that thousands of identical MVM
// steps stay one loop. Instructions the target lacks but transformers need
// are `pim.ext.*` ops: a program using them is not pimsim-compatible.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PIM_OPS
#define RAPTOR_PIM_OPS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

def Pim_Dialect : Dialect {
  let name = "pim";
  let cppNamespace = "::raptor::pim";
  let summary = "Per-core instruction programs for processing-in-memory chips";
  let description = [{
    A `pim.chip` holds the global data of a compiled model (`pim.weight`
    tensors the crossbars are programmed from, `pim.data` constants and
    `pim.io` buffers in global memory) and one `pim.core` per used core.
    A core declares its `pim.group`s (array groups of crossbars, each bound
    to a tile of one weight matrix) and lists its instructions in program
    order. Registers are 32-bit and hold addresses; `pim.repeat` repeats its
    body with some registers advanced by a stride per iteration (restored
    when the loop ends), which is how data movement computed with the
    layout algebra becomes compact loops.
  }];
  let dependentDialects = ["::raptor::layout::LayoutDialect"];
  let useDefaultAttributePrinterParser = 1;
  // `pim.target` on a module: the target of the compile (#pim.target).
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Adds the dialect's attributes (PimTarget.cpp, beside their storage).
    void registerAttributes();
  }];
}

include "dialects/pim/PimAttrs.td"

// Marker traits: the unit that executes an instruction, and extensions.
def Pim_ScalarUnit : NativeOpTrait<"ScalarUnit"> { let cppNamespace = "::raptor::pim"; }
def Pim_MatrixUnit : NativeOpTrait<"MatrixUnit"> { let cppNamespace = "::raptor::pim"; }
def Pim_VectorUnit : NativeOpTrait<"VectorUnit"> { let cppNamespace = "::raptor::pim"; }
def Pim_TransferUnit : NativeOpTrait<"TransferUnit"> { let cppNamespace = "::raptor::pim"; }
def Pim_Extension : NativeOpTrait<"Extension"> { let cppNamespace = "::raptor::pim"; }

class Pim_Op<string mnemonic, list<Trait> traits = []> : Op<Pim_Dialect, mnemonic, traits>;

// An instruction sits in a core's program or in a loop body.
class Pim_Instr<string mnemonic, list<Trait> traits = []>
    : Pim_Op<mnemonic, !listconcat(traits, [ParentOneOf<["CoreOp", "RepeatOp"]>])>;

// Signless integers read back signed (upstream's I64Attr/I32Attr give unsigned).
class Pim_SignedAttr<I type, string ret> : TypedSignlessIntegerAttrBase<type, ret, ret # " attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}
def Pim_I64 : Pim_SignedAttr<I64, "int64_t">;
def Pim_I32 : Pim_SignedAttr<I32, "int32_t">;

// A register number 0..31, printed `r7`.
def Pim_Reg : ConfinedAttr<Pim_I32, [IntNonNegative, IntMaxValue<31>]>;
// A vector element type (the data type of a vector instruction's operands).
def Pim_ElementType : TypeAttrOf<AnyTypeOf<[F32, I8, I16, I32]>>;
// A #layout.layout attribute (a data-movement or matrix layout).
def Pim_LayoutAttr : Attr<CPred<"::llvm::isa<::raptor::layout::LayoutAttr>($_self)">,
                          "a #layout.layout attribute"> {
  // Stored as a plain attribute so that it prints in full (#layout.layout<...>).
  let storageType = "::mlir::Attribute";
  let returnType = "::raptor::layout::LayoutAttr";
  let convertFromStorage = "::llvm::cast<::raptor::layout::LayoutAttr>($_self)";
}

//===----------------------------------------------------------------------===//
// Chip structure
//===----------------------------------------------------------------------===//

def Pim_ChipOp : Pim_Op<"chip", [SymbolTable, SingleBlock, NoTerminator, IsolatedFromAbove]> {
  let summary = "A compiled model: global data and one program per core";
  let description = [{
    ```mlir
    pim.chip @resnet cores 168 crossbars 96 of [128, 128] memory 67108864 {
      pim.weight @conv1 dense<...> : tensor<64x3x7x7xf32>
      pim.io @x input "x" at 0 : tensor<1x3x224x224xf32> layout #layout.layout<...>
      pim.core 0 { ... }
    }
    ```
    `memory` is each core's local memory in bytes; `cell_bits` and
    `weight_bits` the crossbar cells' precision and the weights' width.
    `target`, when present, is the #pim.target the chip was compiled for
    (its geometry must be the chip's); the emitter writes pimsim-nn's
    chip.json and network.json from it.

    `frames` is how many passes of every core's program make the first
    inference: 1 for a program that computes the model in one pass; a
    skewed pipeline (docs/scheduling.md) runs a core of level l on
    inference f - l in pass f, so its first inference leaves the last
    level after `frames` = last level + 1 passes, and the simulators run
    that many.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Pim_I64:$cores, Pim_I64:$crossbars,
                       DenseI64ArrayAttr:$xbar_size, Pim_I64:$memory,
                       DefaultValuedAttr<Pim_I64, "8">:$cell_bits,
                       DefaultValuedAttr<Pim_I64, "8">:$weight_bits,
                       OptionalAttr<Pim_TargetAttr>:$target,
                       DefaultValuedAttr<Pim_I64, "1">:$frames);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `cores` $cores `crossbars` $crossbars `of` $xbar_size `memory` $memory
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getXbarRows() { return getXbarSize()[0]; }
    int64_t getXbarCols() { return getXbarSize()[1]; }
  }];
}

def Pim_WeightOp : Pim_Op<"weight", [Symbol, HasParent<"ChipOp">]> {
  let summary = "A weight tensor the crossbars are programmed from";
  let description = [{
    The (compile-time folded) values of one weight; `pim.group`s take tiles
    of it through a matrix layout.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, ElementsAttr:$value);
  let assemblyFormat = "$sym_name $value attr-dict";
}

def Pim_DataOp : Pim_Op<"data", [Symbol, HasParent<"ChipOp">]> {
  let summary = "Constant data in global memory (biases, norm parameters, masks)";
  let arguments = (ins SymbolNameAttr:$sym_name, Pim_I64:$address, ElementsAttr:$value);
  let assemblyFormat = "$sym_name `at` $address $value attr-dict";
  let hasVerifier = 1;
}

def Pim_IoOp : Pim_Op<"io", [Symbol, HasParent<"ChipOp">]> {
  let summary = "A model input or output buffer in global memory";
  let description = [{
    `layout` maps the tensor's coordinates (torch dimensions in reverse, the
    first mode fastest, as CuTe layouts do) to element offsets from
    `address`: the host writes inputs and reads outputs through it.

    An input with a `vocabulary` holds token ids (an embedding's indices):
    int32 integers in [0, vocabulary), written unscaled also in an
    integer-only program; the host refuses any other id.
    ```mlir
    pim.io @in_ids "input" name "ids" at 0 : tensor<1x8xi32> layout #layout.layout<(8,1):(1,8)> {vocabulary = 500 : i64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kind, StrAttr:$name,
                       Pim_I64:$address, TypeAttrOf<AnyRankedTensor>:$type,
                       Pim_LayoutAttr:$layout, OptionalAttr<Pim_I64>:$vocabulary);
  let assemblyFormat = "$sym_name $kind `name` $name `at` $address `:` $type `layout` $layout attr-dict";
  let hasVerifier = 1;
}

def Pim_CoreOp : Pim_Op<"core", [HasParent<"ChipOp">, SingleBlock, NoTerminator]> {
  let summary = "The array groups and the program of one core";
  let arguments = (ins Pim_I64:$id);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$id attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Pim_GroupOp : Pim_Op<"group", [HasParent<"CoreOp">]> {
  let summary = "An array group: crossbars sharing one input vector, bound to a weight tile";
  let description = [{
    ```mlir
    pim.group 0 crossbars 2 weight @conv1 matrix #layout.layout<((3,49),64):((49,1),147)>
        rows [0, 128] cols [0, 64]
    ```
    The group holds rows `[r0, r1)` and columns `[c0, c1)` of the weight
    matrix whose element (k, n) is `weight[matrix(k, n)]` (elements outside
    the weight's matrix rows are zero). Crossbar j of the group holds
    columns `c0 + j * xbar_cols ...`. The layout's two modes are the
    matrix's rows and columns; cells beyond them are zero. A core's groups
    are numbered 0, 1, ... in the order they are declared.
  }];
  let arguments = (ins Pim_I64:$id, Pim_I64:$crossbars, FlatSymbolRefAttr:$weight,
                       Pim_LayoutAttr:$matrix, DenseI64ArrayAttr:$rows, DenseI64ArrayAttr:$cols);
  let assemblyFormat = [{
    $id `crossbars` $crossbars `weight` $weight `matrix` $matrix `rows` $rows `cols` $cols
    attr-dict
  }];
  let hasVerifier = 1;
}

def Pim_RepeatOp : Pim_Op<"repeat", [ParentOneOf<["CoreOp", "RepeatOp"]>, SingleBlock,
                                      NoTerminator]> {
  let summary = "Repeat a body `count` times, advancing registers by strides";
  let description = [{
    ```mlir
    pim.repeat 56 [r8 += 256, r9 += 512] {
      pim.lmv r9, r8 len 768
    }
    ```
    In iteration i (0 <= i < count) register r holds its value at entry plus
    i * stride; after the loop it holds its entry value again. The body may
    not write a strided register. The target has no branches: emission for
    pimsim-nn unrolls the loop (a `saddi` per stride between iterations).
  }];
  let arguments = (ins Pim_I64:$count, DenseI32ArrayAttr:$regs, DenseI32ArrayAttr:$strides);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scalar instructions (registers only; they execute at decode)
//===----------------------------------------------------------------------===//

def Pim_NopOp : Pim_Instr<"nop", [Pim_ScalarUnit]> {
  let summary = "No operation";
  let assemblyFormat = "attr-dict";
}

def Pim_SldiOp : Pim_Instr<"sldi", [Pim_ScalarUnit]> {
  let summary = "rd <- imm";
  let arguments = (ins Pim_Reg:$rd, Pim_I32:$imm);
  let assemblyFormat = "custom<Reg>($rd) `,` $imm attr-dict";
}

def Pim_SldOp : Pim_Instr<"sld", [Pim_ScalarUnit]> {
  let summary = "rd <- the 32-bit word at local address rs1";
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1);
  let assemblyFormat = "custom<Reg>($rd) `,` custom<Reg>($rs1) attr-dict";
}

class Pim_ScalarRR<string mnemonic, string what> : Pim_Instr<mnemonic, [Pim_ScalarUnit]> {
  let summary = what;
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_Reg:$rs2);
  let assemblyFormat = "custom<Reg>($rd) `,` custom<Reg>($rs1) `,` custom<Reg>($rs2) attr-dict";
}
def Pim_SaddOp : Pim_ScalarRR<"sadd", "rd <- rs1 + rs2">;
def Pim_SsubOp : Pim_ScalarRR<"ssub", "rd <- rs1 - rs2">;
def Pim_SmulOp : Pim_ScalarRR<"smul", "rd <- rs1 * rs2">;

class Pim_ScalarRI<string mnemonic, string what> : Pim_Instr<mnemonic, [Pim_ScalarUnit]> {
  let summary = what;
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_I32:$imm);
  let assemblyFormat = "custom<Reg>($rd) `,` custom<Reg>($rs1) `,` $imm attr-dict";
}
def Pim_SaddiOp : Pim_ScalarRI<"saddi", "rd <- rs1 + imm">;
def Pim_SmuliOp : Pim_ScalarRI<"smuli", "rd <- rs1 * imm">;

//===----------------------------------------------------------------------===//
// Matrix instructions
//===----------------------------------------------------------------------===//

def Pim_SetbwOp : Pim_Instr<"setbw", [Pim_MatrixUnit]> {
  let summary = "Set the input and output element widths (bits) of what follows";
  let arguments = (ins Pim_I32:$ibiw, Pim_I32:$obiw);
  let assemblyFormat = "$ibiw `,` $obiw attr-dict";
  let hasVerifier = 1;
}

def Pim_MvmulOp : Pim_Instr<"mvmul", [Pim_MatrixUnit]> {
  let summary = "Matrix-vector product on an array group";
  let description = [{
    Reads `xbar_rows` input elements at local address rs1, multiplies them
    by every crossbar of group `group` and writes `xbar_cols * cell_bits /
    mbiw` outputs per crossbar, crossbar after crossbar, at rd; `relu`
    clamps negative outputs to zero.
  }];
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_I64:$group, Pim_I32:$mbiw,
                       DefaultValuedAttr<BoolAttr, "false">:$relu);
  let assemblyFormat = [{
    custom<Reg>($rd) `,` custom<Reg>($rs1) `,` `group` $group `mbiw` $mbiw attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// Vector instructions (`len` elements of `type`)
//===----------------------------------------------------------------------===//

class Pim_VectorBinary<string mnemonic, string what, list<Trait> traits = [Pim_VectorUnit]>
    : Pim_Instr<mnemonic, traits> {
  let summary = what;
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_Reg:$rs2, Pim_I64:$len, Pim_ElementType:$type);
  let assemblyFormat = [{
    custom<Reg>($rd) `,` custom<Reg>($rs1) `,` custom<Reg>($rs2) `len` $len `:` $type attr-dict
  }];
  let hasVerifier = 1;
}
class Pim_VectorUnary<string mnemonic, string what, list<Trait> traits = [Pim_VectorUnit]>
    : Pim_Instr<mnemonic, traits> {
  let summary = what;
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_I64:$len, Pim_ElementType:$type);
  let assemblyFormat = "custom<Reg>($rd) `,` custom<Reg>($rs1) `len` $len `:` $type attr-dict";
  let hasVerifier = 1;
}

def Pim_VvaddOp : Pim_VectorBinary<"vvadd", "rd[i] <- rs1[i] + rs2[i]">;
def Pim_VvsubOp : Pim_VectorBinary<"vvsub", "rd[i] <- rs1[i] - rs2[i]">;
def Pim_VvmulOp : Pim_VectorBinary<"vvmul", "rd[i] <- rs1[i] * rs2[i]">;
def Pim_VvdmulOp : Pim_VectorBinary<"vvdmul", "rd[0] <- sum of rs1[i] * rs2[i] (dot product)">;
def Pim_VvmaxOp : Pim_VectorBinary<"vvmax", "rd[i] <- max(rs1[i], rs2[i])">;
def Pim_VvsllOp : Pim_VectorBinary<"vvsll", "rd[i] <- rs1[i] << rs2[i] (integers)">;
def Pim_VvsraOp : Pim_VectorBinary<"vvsra", "rd[i] <- rs1[i] >> rs2[i], arithmetic (integers)">;
def Pim_VrsuOp : Pim_VectorBinary<"vrsu", "rd[i] <- rs1[i] >> rs2[0], logical (integers)">;
def Pim_VrslOp : Pim_VectorBinary<"vrsl", "rd[i] <- rs1[i] << rs2[0] (integers)">;
def Pim_VavgOp : Pim_VectorUnary<"vavg", "rd[0] <- the mean of rs1[0..len)">;
def Pim_VreluOp : Pim_VectorUnary<"vrelu", "rd[i] <- max(rs1[i], 0)">;
def Pim_VtanhOp : Pim_VectorUnary<"vtanh", "rd[i] <- tanh(rs1[i])">;
def Pim_VsigmOp : Pim_VectorUnary<"vsigm", "rd[i] <- 1 / (1 + exp(-rs1[i]))">;
def Pim_VmvOp : Pim_Instr<"vmv", [Pim_VectorUnit]> {
  let summary = "rd[i] <- rs1[i], converting integers of type `from` to `type`";
  let description = [{
    A move of `len` elements. With `from`, rs1 holds `from` integers that
    are sign-extended (or narrowed to their low bits) to `type`: in
    pimsim-nn's forms, the setbw before it gives rs1's width as ibiw and
    rd's as obiw.

    ```mlir
    pim.vmv r2, r3 len 16 : i8
    pim.vmv r2, r3 len 16 from i32 : i8
    ```
  }];
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_I64:$len, OptionalAttr<Pim_ElementType>:$from,
                       Pim_ElementType:$type);
  let assemblyFormat = [{
    custom<Reg>($rd) `,` custom<Reg>($rs1) `len` $len (`from` $from^)? `:` $type attr-dict
  }];
  let hasVerifier = 1;
}

// Extensions: not in pimsim-nn's set (softmax, exp, division, reciprocal
// square root and reductions other than vavg do not exist there).
def Pim_ExtVexpOp : Pim_VectorUnary<"ext.vexp", "rd[i] <- exp(rs1[i]) (extension)",
                                    [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVrsqrtOp : Pim_VectorUnary<"ext.vrsqrt", "rd[i] <- 1 / sqrt(rs1[i]) (extension)",
                                      [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVerfOp : Pim_VectorUnary<"ext.verf", "rd[i] <- erf(rs1[i]) (extension)",
                                    [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVlog1pOp : Pim_VectorUnary<"ext.vlog1p", "rd[i] <- log(1 + rs1[i]) (extension)",
                                      [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVredmaxOp : Pim_VectorUnary<"ext.vredmax", "rd[0] <- max of rs1[0..len) (extension)",
                                       [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVbcastOp : Pim_VectorUnary<"ext.vbcast", "rd[i] <- rs1[0] (extension)",
                                      [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVvdivOp : Pim_VectorBinary<"ext.vvdiv", "rd[i] <- rs1[i] / rs2[i] (extension)",
                                      [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVquantOp : Pim_VectorBinary<"ext.vquant",
    "rd[i] <- saturate(round_half_even(rs1[i] * rs2[0])): f32 to the integer `type`, one multiplier "
    "(a codec encoder; extension)", [Pim_VectorUnit, Pim_Extension]>;
def Pim_ExtVdequantOp : Pim_VectorBinary<"ext.vdequant",
    "rd[i] <- f32(rs1[i]) * rs2[i]: the integer `type` to f32 (a codec decoder; extension)",
    [Pim_VectorUnit, Pim_Extension]>;

class Pim_VectorMatrix<string mnemonic, string what> : Pim_Instr<mnemonic, [Pim_VectorUnit, Pim_Extension]> {
  let summary = what;
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_Reg:$rs2, Pim_I64:$rows, Pim_I64:$len,
                       Pim_ElementType:$type);
  let assemblyFormat = [{
    custom<Reg>($rd) `,` custom<Reg>($rs1) `,` custom<Reg>($rs2) `rows` $rows `len` $len `:` $type
    attr-dict
  }];
  let hasVerifier = 1;
}
def Pim_ExtVmatvecOp : Pim_VectorMatrix<"ext.vmatvec",
    "rd[j] <- sum_i rs1[j * len + i] * rs2[i] for j < rows (local matrix times vector; extension)">;
def Pim_ExtVvecmatOp : Pim_VectorMatrix<"ext.vvecmat",
    "rd[i] <- sum_j rs2[j] * rs1[j * len + i] for i < len (vector times local matrix; extension)">;

//===----------------------------------------------------------------------===//
// Transfer instructions (sizes in bytes)
//===----------------------------------------------------------------------===//

def Pim_LdOp : Pim_Instr<"ld", [Pim_TransferUnit]> {
  let summary = "Local rd <- `size` bytes of global memory at the register pair rs1, rs1+1";
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_I64:$size);
  let assemblyFormat = "custom<Reg>($rd) `,` custom<Reg>($rs1) `size` $size attr-dict";
  let hasVerifier = 1;
}

def Pim_StOp : Pim_Instr<"st", [Pim_TransferUnit]> {
  let summary = "Global memory at the register pair rd, rd+1 <- `size` bytes at local rs1";
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_I64:$size);
  let assemblyFormat = "custom<Reg>($rd) `,` custom<Reg>($rs1) `size` $size attr-dict";
  let hasVerifier = 1;
}

def Pim_LldiOp : Pim_Instr<"lldi", [Pim_TransferUnit]> {
  let summary = "Fill `len` local bytes at rd with the byte `imm`";
  let arguments = (ins Pim_Reg:$rd, ConfinedAttr<Pim_I32, [IntNonNegative, IntMaxValue<255>]>:$imm,
                       Pim_I64:$len);
  let assemblyFormat = "custom<Reg>($rd) `,` $imm `len` $len attr-dict";
}

def Pim_LmvOp : Pim_Instr<"lmv", [Pim_TransferUnit]> {
  let summary = "Copy `len` local bytes from rs1 to rd";
  let arguments = (ins Pim_Reg:$rd, Pim_Reg:$rs1, Pim_I64:$len);
  let assemblyFormat = "custom<Reg>($rd) `,` custom<Reg>($rs1) `len` $len attr-dict";
}

def Pim_SendOp : Pim_Instr<"send", [Pim_TransferUnit]> {
  let summary = "Send `size` local bytes at rd to core `core` (blocking rendezvous)";
  let description = [{
    Pairs with the `pim.recv` of the same `tag` on core `core`; both block
    until the other side is reached. (The target reads the source address
    from rd; emission writes rs1 = rd.)
  }];
  let arguments = (ins Pim_Reg:$rd, Pim_I64:$core, Pim_I64:$size, Pim_I64:$tag);
  let assemblyFormat = "custom<Reg>($rd) `to` $core `size` $size `tag` $tag attr-dict";
}

def Pim_RecvOp : Pim_Instr<"recv", [Pim_TransferUnit]> {
  let summary = "Receive `size` bytes from core `core` into local rd (blocking rendezvous)";
  let arguments = (ins Pim_Reg:$rd, Pim_I64:$core, Pim_I64:$size, Pim_I64:$tag);
  let assemblyFormat = "custom<Reg>($rd) `from` $core `size` $size `tag` $tag attr-dict";
}

def Pim_SyncOp : Pim_Instr<"sync", [Pim_TransferUnit]> {
  let summary = "Add one to event register `event` of core `core`";
  let arguments = (ins Pim_I64:$core, ConfinedAttr<Pim_I64, [IntNonNegative, IntMaxValue<31>]>:$event);
  let assemblyFormat = "$core `event` $event attr-dict";
}

def Pim_WaitOp : Pim_Instr<"wait", [Pim_TransferUnit]> {
  let summary = "Block until local event register `event` reaches `value`, then subtract it";
  let arguments = (ins ConfinedAttr<Pim_I64, [IntNonNegative, IntMaxValue<31>]>:$event,
                       ConfinedAttr<Pim_I64, [IntPositive]>:$value);
  let assemblyFormat = "`event` $event `value` $value attr-dict";
}

#endif // RAPTOR_PIM_OPS
