//===- NNBase.td - The nn dialect and its op base class ----*- tablegen -*-===//
#ifndef RAPTOR_NN_BASE
#define RAPTOR_NN_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "dialects/nn/NNInterfaces.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::raptor::nn";
  let summary = "Model graphs at aten granularity";
  let description = [{
    The `nn` dialect holds a machine-learning model as a graph of tensor
    operators, one op per aten operator, with aten's argument names for
    operands (`self`, `weight`, `tensors`, ...). A model is a `func.func`
    whose arguments are either user inputs (`nn.input = "x"`) or weights
    (`nn.param = "layer.weight"`, shape and dtype only), and whose
    constants (when data is present) are `nn.constant` ops. Any aten operator
    without a dedicated op is kept as `nn.aten`, so no model fails to import.
  }];
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Argument attribute naming a weight (graph input holding a parameter).
    static constexpr ::llvm::StringLiteral kParamAttrName = "nn.param";
    /// Argument attribute naming a user input of the graph.
    static constexpr ::llvm::StringLiteral kInputAttrName = "nn.input";
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def NN_Tensor : RankedTensorOf<[AnyType]>;
def NN_FloatTensor : RankedTensorOf<[AnyFloat]>;
def NN_IntTensor : RankedTensorOf<[AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Base op
//===----------------------------------------------------------------------===//

// Every nn op names its ports (see NN_PortOpInterface). The input port groups
// are computed here from the op's `arguments`: each operand's name, with
// `[*]` appended for a variadic operand list. Attributes are not ports.
class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, !listconcat(traits, [NN_PortOpInterface])> {
  list<string> nnInputPortGroups = !foldl([]<string>, !range(!size(arguments)),
      acc, i,
      !if(!isa<TypeConstraint>(!getdagarg<Constraint>(arguments, i)),
          !listconcat(acc, [!getdagname(arguments, i) #
              !if(!isa<Variadic>(!getdagarg<Constraint>(arguments, i)), "[*]", "")]),
          acc));
  bit nnVariadicResults = 0;
  // The aten (or xaten) operator this op stands for, e.g. aten.cat.default;
  // rule tables such as the codec commutation table are keyed by it.
  string nnAtenName = "";
  // Ops add their own declarations here rather than in extraClassDeclaration.
  code nnExtraClassDeclaration = "";
  let extraClassDeclaration = [{
    static ::llvm::ArrayRef<::llvm::StringLiteral> getInputPortGroups() {
      static constexpr ::llvm::StringLiteral groups[] = {}]
        # !interleave(!foreach(n, nnInputPortGroups, "\"" # n # "\", "), "")
        # [{""};
      return ::llvm::ArrayRef(groups).drop_back();
    }
    static constexpr bool hasVariadicResults() { return }]
        # !if(nnVariadicResults, "true", "false") # [{; }
    static constexpr ::llvm::StringLiteral getAtenOperatorName() {
      return "}] # nnAtenName # [{";
    }
  }] # nnExtraClassDeclaration;
}

#endif // RAPTOR_NN_BASE
