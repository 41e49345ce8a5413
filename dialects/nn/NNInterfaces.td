//===- NNInterfaces.td - Interfaces of the nn dialect ------*- tablegen -*-===//
//
// Ports: later passes (codec placement) key their rules on aten's argument
// names, so every nn op can name the port each operand and result binds to.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_NN_INTERFACES
#define RAPTOR_NN_INTERFACES

include "mlir/IR/OpBase.td"

def NN_PortOpInterface : OpInterface<"PortOpInterface"> {
  let cppNamespace = "::raptor::nn";
  let description = [{
    Names the aten port of every operand and result. Input ports carry the
    aten argument name (`self`, `weight`, `tensors[*]` for a variadic list);
    output ports are `out` for a single result, `out[i]` when an operator has
    several results and `out[*]` for a variadic result list (as in aten's
    schema, where results are positional).
  }];
  let methods = [
    StaticInterfaceMethod<[{
        The aten operator this kind of op stands for (empty for `nn.aten`,
        whose instances name it, and ops with no aten counterpart).
      }], "::llvm::StringRef", "getAtenOperatorName", (ins)>,
    StaticInterfaceMethod<[{
        The aten names of the op's operand groups, `[*]` marking variadic ones.
      }], "::llvm::ArrayRef<::llvm::StringLiteral>", "getInputPortGroups", (ins)>,
    InterfaceMethod<[{
        The aten operator this op stands for (`aten.cat.default`), the key of
        per-operator rule tables; empty for ops with no aten counterpart.
      }], "::llvm::StringRef", "getAtenName", (ins),
      /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return ConcreteOp::getAtenOperatorName();
      }]>,
    InterfaceMethod<[{
        The port name of operand `index`, e.g. `self` or `tensors[*]`.
      }], "::std::string", "getInputPortName", (ins "unsigned":$index),
      /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return ::raptor::nn::detail::inputPortName(
            ConcreteOp::getInputPortGroups(), index,
            [&](unsigned group) { return $_op.getODSOperandIndexAndLength(group); });
      }]>,
    InterfaceMethod<[{
        The port name of result `index`: `out`, `out[i]` or `out[*]`.
      }], "::std::string", "getOutputPortName", (ins "unsigned":$index),
      /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return ::raptor::nn::detail::outputPortName(
            $_op->getNumResults(), ConcreteOp::hasVariadicResults(), index);
      }]>,
  ];
}

#endif // RAPTOR_NN_INTERFACES
