//===- SpatialOps.td - Compute graphs for spatial scheduling -*- tablegen -*-===//
#ifndef RAPTOR_SPATIAL_OPS
#define RAPTOR_SPATIAL_OPS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Spatial_Dialect : Dialect {
  let name = "spatial";
  let cppNamespace = "::raptor::spatial";
  let summary = "Compute graphs of a model on a spatial (PIM) target, and their schedules";
  let description = [{
    A `spatial.graph` holds the compute instances of a model for one target:
    each `spatial.task` is one lane of an operator (its weight tiles fit the
    crossbars of one core), with its resident weight tiles, its execution
    cost in integer nanoseconds and its data dependencies with transfer
    sizes. Scheduling writes `core`, `start_ns`, `slot` and `last` on tasks.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::raptor::pim::PimDialect"];
}

def Spatial_TaskType : TypeDef<Spatial_Dialect, "Task"> {
  let mnemonic = "task";
  let summary = "The completion of a compute instance (a dependency token)";
}

// A #pim.target attribute (the chip the graph is for).
def Spatial_TargetAttr : Attr<CPred<"::llvm::isa<::raptor::pim::TargetAttr>($_self)">, "a #pim.target attribute"> {
  let storageType = "::mlir::Attribute";
  let returnType = "::raptor::pim::TargetAttr";
  let convertFromStorage = "::llvm::cast<::raptor::pim::TargetAttr>($_self)";
}

def Spatial_GraphOp : Op<Spatial_Dialect, "graph", [Symbol, SingleBlock, NoTerminator]> {
  let summary = "The compute graph of a function for a target";
  let description = [{
    ```mlir
    spatial.graph @main_tasks for #pim.target<"small", cores = 4, ...> attributes {function = @main} {
      %t0 = spatial.task "conv1#0" bytes [] {cost_ns = 120 : i64, ...}
    }
    ```
    `target` is the chip the tasks are costed for and scheduled on.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Spatial_TargetAttr:$target,
                       DefaultValuedAttr<I64Attr, "0">:$cores,
                       DefaultValuedAttr<I64Attr, "0">:$crossbars_per_core,
                       OptionalAttr<FlatSymbolRefAttr>:$function);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `for` $target attr-dict-with-keyword $body";
  let extraClassDeclaration = [{
    /// The figure a schedule of the graph is judged by: the queue model's
    /// predicted interval of a pipeline (`mode = "pipeline"`), else its
    /// predicted latency; null when raptor-schedule-spatial predicted none.
    ::mlir::IntegerAttr getPredictedNs();
  }];
}

def Spatial_TaskOp : Op<Spatial_Dialect, "task", [HasParent<"GraphOp">]> {
  let summary = "A compute instance: one lane of an operator";
  let description = [{
    ```mlir
    %t2 = spatial.task "conv1#1" after(%t0, %t1) bytes [4096, 2048]
        {cost_ns = 120 : i64, tiles = 4 : i64, weight = "conv1.weight", op = "nn.convolution"}
    ```
    `bytes[i]` is the size of the data the task receives from `deps[i]`;
    `tiles` the crossbars its resident weights occupy; `weight` names them
    (lanes of one operator hold distinct tiles of the same weight).
    `source` is the position of the operator in its function's body and
    `lane` the task's lane of it; a matrix lane holds the nonzero tiles of
    `row_tiles` x `col_tiles` (half-open tile ranges, passes/spatial/WeightTiling).
    A replicated lane (`replica` > 0 on the copies) holds a copy of those
    tiles and computes the output rows `rows` (half-open): image rows of a
    convolution, the rows of a linear layer's row dimension.
    A streamed lane (`block` set) computes its rows as one of a copy's row
    blocks, in order: block 0 holds the copy's tiles, a later block holds
    none (`tiles` = 0), runs on block 0's core with its crossbars and
    depends on the block before it. Its consumers start on the rows it
    made, before the copy's later blocks exist.
    `position` is the task's place in the lowering's global order (the
    order the cores' sends and receives follow; by `start_ns` without it).
  }];
  let arguments = (ins StrAttr:$name, Variadic<Spatial_TaskType>:$deps,
                       DenseI64ArrayAttr:$bytes, I64Attr:$cost_ns,
                       DefaultValuedAttr<I64Attr, "0">:$tiles,
                       OptionalAttr<StrAttr>:$weight, StrAttr:$op,
                       OptionalAttr<I64Attr>:$source, DefaultValuedAttr<I64Attr, "0">:$lane,
                       OptionalAttr<DenseI64ArrayAttr>:$row_tiles,
                       OptionalAttr<DenseI64ArrayAttr>:$col_tiles,
                       OptionalAttr<DenseI64ArrayAttr>:$rows,
                       DefaultValuedAttr<I64Attr, "0">:$replica,
                       OptionalAttr<I64Attr>:$core, OptionalAttr<I64Attr>:$start_ns,
                       OptionalAttr<I64Attr>:$slot, OptionalAttr<BoolAttr>:$last,
                       OptionalAttr<I64Attr>:$block, OptionalAttr<I64Attr>:$position);
  let results = (outs Spatial_TaskType:$done);
  let assemblyFormat = "$name (`after` `(` $deps^ `)`)? `bytes` $bytes attr-dict";
  let hasVerifier = 1;
}

#endif // RAPTOR_SPATIAL_OPS
