//===- CompilePipeline.cpp - What raptor compile runs, in C++ ---*- C++ -*-===//
#include "passes/pipeline/CompilePipeline.h"

#include "passes/codec/Passes.h"
#include "passes/conversion/Passes.h"
#include "passes/emission/Passes.h"
#include "passes/nn/Passes.h"
#include "passes/spatial/Passes.h"

#include "mlir/Pass/PassRegistry.h"

namespace raptor {

namespace {

void prepareModelSteps(std::vector<CompileStep> &steps, const CompileOptions &o) {
  steps.push_back({"normalizing row operators (softmax, attention, maxima)", [] { return createNormalizeRowOps(); }});
  steps.push_back({"folding batch norms", [] { return createFoldBatchNorm(); }});
  steps.push_back({"folding batches into channels", [] { return createFoldBatchIntoChannels(); }});
  steps.push_back({"expanding powers", [] { return createExpandPowers(); }});
  steps.push_back({"expanding selections by known masks", [] { return createExpandSelects(); }});
  steps.push_back({"converting products by weights into linear layers",
                   [] { return createConvertWeightProducts(); }});
  if (o.precision != Precision::INT8)
    return;
  PlaceCodecsOptions place;
  place.policy = o.policy;
  place.placement = o.placement;
  place.materialize = false;
  steps.push_back({("placing codecs (policy " + nameOf(llvm::ArrayRef(codec::kPolicyChoices), o.policy) + ", " +
                    nameOf(llvm::ArrayRef(codec::kPlacements), o.placement) + ")")
                       .str(),
                   [place] { return createPlaceCodecs(place); }});
  steps.push_back({"materializing codecs", [] { return createMaterializeCodecs(); }});
  // The vector unit dequantizes, then quantizes.
  steps.push_back({"applying requantizers as decoders and encoders", [] { return createExpandRequantizers(); }});
}

void backendSteps(std::vector<CompileStep> &steps, const CompileOptions &o,
                  std::shared_ptr<const nn::SafeTensorsFile> weights) {
  bool pipelined = o.pipelineDepth > 0;
  BuildComputeGraphOptions build;
  build.targetPath = o.targetPath;
  build.replicate = o.replicate;
  build.replicationBudget = o.replicationBudget;
  build.mode = pipelined ? spatial::ScheduleMode::Pipeline : spatial::ScheduleMode::Latency;
  build.followRows = o.followRows == FollowRows::On || (o.followRows == FollowRows::Auto && pipelined);
  // `auto` has nothing to compare in pipeline mode (stages overlap
  // inferences, not rows): whole tensors. An explicit row block there is
  // the pass's error.
  bool automatic = o.rowBlockAlternative && pipelined;
  build.rowBlock = automatic ? 0 : o.rowBlock;
  build.rowBlockAlternative = o.rowBlockAlternative && !pipelined;
  // `auto` shortens lanes for one inference's latency; a pipeline keeps
  // full lanes (an explicit height there is the pass's error).
  build.laneTiles = o.laneTilesAuto && pipelined ? 0 : o.laneTiles;
  // ... and lets shorter lanes challenge the default height in latency
  // mode: which height is fastest depends on the model (docs/scheduling.md).
  build.laneTilesChallengers = o.laneTilesAuto && !pipelined && o.laneTiles > 1;
  // A pipeline's balanced copies weighed with their followers challenge
  // those weighed by their MVMs (which is better depends on the model).
  build.balanceFollowersChallenger = pipelined;
  steps.push_back({"building the compute graph", [build] { return createBuildComputeGraph(build); }});
  ScheduleSpatialOptions schedule;
  schedule.algorithm = o.algorithm;
  schedule.transfers = o.transfers;
  schedule.crossing = o.crossing;
  schedule.localBoundaries = o.localBoundaries;
  schedule.mode = pipelined ? spatial::ScheduleMode::Pipeline : spatial::ScheduleMode::Latency;
  if (pipelined)
    schedule.depth = o.pipelineDepth;
  steps.push_back({pipelined ? "scheduling (pipeline of at most " + std::to_string(o.pipelineDepth) + " stages)"
                             : ("scheduling (" + nameOf(llvm::ArrayRef(spatial::kListAlgorithms), o.algorithm) + ")")
                                   .str(),
                   [schedule] { return createScheduleSpatial(schedule); }});
  LowerToPimOptions lower;
  lower.weightsPath = o.weightsPath;
  steps.push_back({"lowering to per-core programs", [lower, weights] { return createLowerToPim(lower, weights); }});
  EmitPimOptions emit;
  emit.output = o.output;
  emit.pimsim = o.pimsim;
  emit.unrollLimit = o.unrollLimit;
  emit.source = o.source;
  steps.push_back({"writing the program directory", [emit] { return createEmitPim(emit); }});
}

} // namespace

std::vector<CompileStep> compileSteps(CompilePhase phase, const CompileOptions &o,
                                      std::shared_ptr<const nn::SafeTensorsFile> weights) {
  std::vector<CompileStep> steps;
  CompileOptions fp32 = o;
  fp32.precision = Precision::FP32;
  switch (phase) {
  case CompilePhase::PrepareModel:
    prepareModelSteps(steps, o);
    break;
  case CompilePhase::Backend:
    backendSteps(steps, o, std::move(weights));
    break;
  case CompilePhase::Compile:
    prepareModelSteps(steps, fp32);
    backendSteps(steps, fp32, std::move(weights));
    break;
  }
  return steps;
}

void populateCompilePipeline(mlir::OpPassManager &pm, CompilePhase phase, const CompileOptions &o,
                             std::shared_ptr<const nn::SafeTensorsFile> weights) {
  for (const CompileStep &step : compileSteps(phase, o, std::move(weights)))
    pm.addPass(step.create());
}

namespace {

/// The options of the registered pipelines: CompileOptions as pass-pipeline
/// options, with CompileOptions' defaults.
struct PipelineOptions : mlir::PassPipelineOptions<PipelineOptions> {
  const CompileOptions defaults{};
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Target file (JSON, docs/scheduling.md); default: the module's "
                                            "pim.target")};
  Option<std::string> weights{*this, "weights", llvm::cl::desc("The model's weights (.safetensors)")};
  Option<std::string> output{*this, "output", llvm::cl::desc("The program directory to write")};
  Option<std::string> source{*this, "source", llvm::cl::desc("The model's name for the manifest")};
  Option<Precision> precision{*this, "precision", llvm::cl::desc("Number format"),
                              llvm::cl::init(defaults.precision), choicesOf(kPrecisions)};
  Option<codec::PolicyChoice> policy{*this, "policy", llvm::cl::desc("int8: compression policy"),
                                     llvm::cl::init(defaults.policy), choicesOf(codec::kPolicyChoices)};
  Option<codec::Placement> placement{*this, "placement", llvm::cl::desc("int8: codec placement"),
                                     llvm::cl::init(defaults.placement), choicesOf(codec::kPlacements)};
  Option<spatial::ReplicationRule> replicate{*this, "replicate",
                                             llvm::cl::desc("Replication of weight lanes onto spare crossbars"),
                                             llvm::cl::init(defaults.replicate),
                                             choicesOf(spatial::kReplicationRules)};
  Option<double> replicationBudget{*this, "replication-budget",
                                   llvm::cl::desc("Fraction of the chip's crossbars lanes and copies may use"),
                                   llvm::cl::init(defaults.replicationBudget)};
  Option<FollowRows> followRows{*this, "follow-rows",
                                llvm::cl::desc("Element-wise and pooling operators follow row copies"),
                                llvm::cl::init(defaults.followRows), choicesOf(kFollowRows)};
  Option<int64_t> rowBlock{*this, "row-block",
                           llvm::cl::desc("Latency mode: rows per streamed block of a convolution (0: whole "
                                          "tensors)"),
                           llvm::cl::init(defaults.rowBlock)};
  Option<bool> rowBlockAlternative{*this, "row-block-alternative",
                                   llvm::cl::desc("With row-block: keep whichever of the streamed and the "
                                                  "whole-tensor schedules the queue model finds faster"),
                                   llvm::cl::init(defaults.rowBlockAlternative)};
  Option<int64_t> laneTiles{*this, "lane-tiles",
                            llvm::cl::desc("Latency mode: the most row tiles one lane stacks (0: a core's)"),
                            llvm::cl::init(defaults.laneTiles)};
  Option<bool> laneTilesAuto{*this, "lane-tiles-auto",
                             llvm::cl::desc("lane-tiles in latency mode only: a pipeline keeps full lanes"),
                             llvm::cl::init(defaults.laneTilesAuto)};
  Option<spatial::ListAlgorithm> algorithm{*this, "algorithm", llvm::cl::desc("Latency mode's list scheduler"),
                                           llvm::cl::init(defaults.algorithm), choicesOf(spatial::kListAlgorithms)};
  Option<spatial::TransferMode> transfers{*this, "transfers",
                                          llvm::cl::desc("Latency mode: how data goes to other cores"),
                                          llvm::cl::init(defaults.transfers), choicesOf(spatial::kTransferModes)};
  Option<spatial::CrossingMode> crossing{*this, "crossing",
                                         llvm::cl::desc("Pipeline mode: how data crosses to later stages"),
                                         llvm::cl::init(defaults.crossing), choicesOf(spatial::kCrossingModes)};
  Option<bool> localBoundaries{*this, "local-boundaries",
                               llvm::cl::desc("Pipeline mode, crossing auto: also consider the forms holding "
                                              "the iteration boundary in local memory"),
                               llvm::cl::init(defaults.localBoundaries)};
  Option<int64_t> pipeline{*this, "pipeline",
                           llvm::cl::desc("Schedule for throughput in at most this many stages (0: latency mode)"),
                           llvm::cl::init(defaults.pipelineDepth)};
  Option<pim::PimsimFiles> pimsim{*this, "pimsim", llvm::cl::desc("pimsim-nn program files"),
                                  llvm::cl::init(defaults.pimsim), choicesOf(pim::kPimsimFiles)};
  Option<int64_t> unrollLimit{*this, "unroll-limit",
                              llvm::cl::desc("Skip pimsim-nn files beyond this many unrolled instructions (0: no "
                                             "limit)"),
                              llvm::cl::init(defaults.unrollLimit)};

  CompileOptions compileOptions() const {
    CompileOptions o;
    o.targetPath = target;
    o.weightsPath = weights;
    o.output = output;
    o.source = source;
    o.precision = precision;
    o.policy = policy;
    o.placement = placement;
    o.replicate = replicate;
    o.replicationBudget = replicationBudget;
    o.followRows = followRows;
    o.rowBlock = rowBlock;
    o.rowBlockAlternative = rowBlockAlternative;
    o.laneTiles = laneTiles;
    o.laneTilesAuto = laneTilesAuto;
    o.algorithm = algorithm;
    o.transfers = transfers;
    o.crossing = crossing;
    o.localBoundaries = localBoundaries;
    o.pipelineDepth = pipeline;
    o.pimsim = pimsim;
    o.unrollLimit = unrollLimit;
    return o;
  }
};

} // namespace

void registerCompilePipelines() {
  mlir::PassPipelineRegistration<PipelineOptions>(
      "raptor-prepare-model",
      "raptor compile's first phase: batch norms folded; with precision=int8 also codecs placed and "
      "materialized (then calibrate: raptor compile does it with torch)",
      [](mlir::OpPassManager &pm, const PipelineOptions &o) {
        populateCompilePipeline(pm, CompilePhase::PrepareModel, o.compileOptions());
      });
  mlir::PassPipelineRegistration<PipelineOptions>(
      "raptor-compile-backend",
      "raptor compile's last phase: compute graph, schedule, per-core programs, program directory (output=DIR)",
      [](mlir::OpPassManager &pm, const PipelineOptions &o) {
        populateCompilePipeline(pm, CompilePhase::Backend, o.compileOptions());
      });
  mlir::PassPipelineRegistration<PipelineOptions>(
      "raptor-compile",
      "What raptor compile runs for a float32 model, with its defaults: raptor-prepare-model and "
      "raptor-compile-backend (example: --raptor-compile=\"target=chip.json weights=m.safetensors output=out\")",
      [](mlir::OpPassManager &pm, const PipelineOptions &o) {
        populateCompilePipeline(pm, CompilePhase::Compile, o.compileOptions());
      });
}

} // namespace raptor
