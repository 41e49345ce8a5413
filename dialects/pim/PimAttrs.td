//===- PimAttrs.td - Attributes of the pim dialect ---------*- tablegen -*-===//
#ifndef RAPTOR_PIM_ATTRS
#define RAPTOR_PIM_ATTRS

include "mlir/IR/AttrTypeBase.td"

def Pim_TargetAttr : AttrDef<Pim_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "A PIM chip: geometry, network and pimsim-nn's timing parameters";
  let description = [{
    The target a model is compiled for, as a target file describes it
    (docs/scheduling.md): parsed once where a compile begins and carried in
    the IR from then on (the module's `pim.target`, each `spatial.graph`'s
    and each `pim.chip`'s `target`), so that no pass reads a file and IR
    saved between phases replays anywhere. `pimsim` holds the timing
    parameters that differ from pimsim-nn's defaults. Verified as a target
    file is (positive sizes, a mesh that holds the cores, known pimsim keys,
    timing rules that can be derived).

    ```mlir
    #pim.target<"small", cores = 4, mesh = [2, 2], crossbars = 8,
                crossbar = [64, 64], cell_bits = 2, weight_bits = 8,
                clock_ns = 1, link_bytes_per_cycle = 32, hop_latency_cycles = 2,
                local_memory_bytes = 1048576, pimsim = {rob_size = 1 : i64}>
    ```
  }];
  let parameters = (ins StringRefParameter<"the target's name">:$name,
                        "unsigned":$cores, "unsigned":$mesh_rows, "unsigned":$mesh_cols,
                        "unsigned":$crossbars_per_core, "unsigned":$crossbar_rows, "unsigned":$crossbar_cols,
                        "unsigned":$cell_bits, "unsigned":$weight_bits,
                        APFloatParameter<"ns">:$clock_ns, APFloatParameter<"bytes">:$link_bytes_per_cycle,
                        APFloatParameter<"cycles">:$hop_latency_cycles,
                        "int64_t":$local_memory_bytes,
                        "::mlir::DictionaryAttr":$pimsim);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The target's model (valid: the attribute is verified on construction).
    ::raptor::pim::TargetModel getModel() const;
    static TargetAttr get(::mlir::MLIRContext *context, const ::raptor::pim::TargetModel &target);
  }];
}

#endif // RAPTOR_PIM_ATTRS
