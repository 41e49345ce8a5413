//===- Registration.cpp - Register Raptor with MLIR -------------*- C++ -*-===//
#include "capi/Registration.h"

#include "dialects/codec/CodecDialect.h"
#include "dialects/layout/LayoutDialect.h"
#include "dialects/nn/NNDialect.h"
#include "dialects/pim/PimDialect.h"
#include "dialects/spatial/SpatialDialect.h"
#include "dialects/sure/SureDialect.h"
#include "passes/Passes.h"
#include "passes/pipeline/CompilePipeline.h"

void raptor::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<raptor::codec::CodecDialect, raptor::layout::LayoutDialect, raptor::nn::NNDialect,
                  raptor::pim::PimDialect, raptor::spatial::SpatialDialect,
                  raptor::sure::SureDialect>();
}

void raptor::registerAllPasses() {
  static bool registered = [] {
    raptor::registerAllRaptorPasses();
    raptor::registerCompilePipelines();
    return true;
  }();
  (void)registered;
}
