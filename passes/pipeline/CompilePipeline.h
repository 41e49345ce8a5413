//===- CompilePipeline.h - What raptor compile runs, in C++ -----*- C++ -*-===//
//
// A compile in three phases, each a pass pipeline populated from one typed
// CompileOptions (whose defaults are `raptor compile`'s):
//
//   raptor-prepare-model    nn -> nn: batch norms folded; for int8 the
//                           codecs placed and materialized
//   (calibration)           int8 only: Python runs the model with torch,
//                           then raptor-fuse-rescales (integer programs)
//   raptor-compile-backend  nn -> spatial -> pim -> program directory
//
// `raptor-compile` is the first and the last for a float32 compile. All three
// are registered, so `raptor-opt --raptor-compile="..."` runs exactly what
// `raptor compile` runs, and the CLI, the Python API and raptor-opt share
// these functions. Options are enums from the vocabularies of the stages
// (passes/Vocabulary.h); no text a user wrote becomes pipeline text.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_PIPELINE_COMPILEPIPELINE_H
#define RAPTOR_PASSES_PIPELINE_COMPILEPIPELINE_H

#include "passes/Vocabulary.h"
#include "passes/codec/CodecChoices.h"
#include "passes/nn/SafeTensors.h"
#include "passes/spatial/Replication.h"
#include "passes/spatial/ScheduleChoices.h"
#include "simulator/Program.h"

#include "mlir/Pass/PassManager.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace raptor {

enum class Precision { FP32, INT8 };
inline constexpr Choice<Precision> kPrecisions[] = {
    {Precision::FP32, "fp32", "float32 throughout"},
    {Precision::INT8, "int8", "codec placement decides where data is encoded; int8 crossbar weights per output "
                              "channel (docs/quantization.md)"},
};

/// Whether element-wise and pooling operators follow their input's row
/// copies with copies of their own.
enum class FollowRows { Auto, On, Off };
inline constexpr Choice<FollowRows> kFollowRows[] = {
    {FollowRows::Auto, "auto", "in pipeline mode only"},
    {FollowRows::On, "on", "always"},
    {FollowRows::Off, "off", "never"},
};

/// Everything a compile is told. The defaults are raptor compile's.
struct CompileOptions {
  /// The target file (read once, by raptor-build-compute-graph); empty: the
  /// module's pim.target.
  std::string targetPath;
  /// The weights file; empty: the weights the caller opened, or none.
  std::string weightsPath;
  /// The program directory to write (raptor-emit-pim).
  std::string output;
  /// What the model argument named (the manifest's `source`).
  std::string source;

  Precision precision = Precision::FP32;
  codec::PolicyChoice policy = codec::PolicyChoice::Y;
  codec::Placement placement = codec::Placement::NonlocalCoalesced;

  spatial::ReplicationRule replicate = spatial::ReplicationRule::Auto;
  double replicationBudget = 0.5;
  FollowRows followRows = FollowRows::Auto;
  /// The rows per block `--row-block auto` streams (bench/row_streaming.py:
  /// 8 beat 4 on the int8 CNNs that stream at all).
  static constexpr int64_t kAutoRowBlock = 8;
  /// Latency mode: rows per streamed block of a convolution (0: whole
  /// tensors per task); with rowBlockAlternative, the whole-tensor graph
  /// too, the scheduler keeping it unless the streamed one is clearly
  /// faster (the default, `--row-block auto`; pipeline mode: whole).
  int64_t rowBlock = kAutoRowBlock;
  bool rowBlockAlternative = true;
  /// The lane height `--lane-tiles auto` starts from in latency mode, and
  /// which the shorter heights challenge (bench/lane_tiles.py: 3 beats 6
  /// and full lanes everywhere; 2 and 1 win on some models only).
  static constexpr int64_t kAutoLaneTiles = 3;
  /// Latency mode: the most row tiles one lane of an MVM operator stacks
  /// (0: as many as a core holds); taller columns become lanes of partial
  /// sums on other cores. With laneTilesAuto (the default, `--lane-tiles
  /// auto`) pipeline mode keeps full lanes, and latency mode keeps lanes of
  /// laneTiles unless shorter ones are predicted clearly faster.
  int64_t laneTiles = kAutoLaneTiles;
  bool laneTilesAuto = true;

  spatial::ListAlgorithm algorithm = spatial::ListAlgorithm::PEFT;
  /// Latency mode: how data goes to other cores (auto: the queue model's
  /// faster of rendezvous and global memory).
  spatial::TransferMode transfers = spatial::TransferMode::Auto;
  /// Pipeline mode: how data crosses to later stages (auto: the queue
  /// model's cheapest form for each candidate).
  spatial::CrossingMode crossing = spatial::CrossingMode::Auto;
  /// Pipeline mode under crossing auto: the forms holding the iteration
  /// boundary in local memory are candidates (a compile whose choice ran
  /// out of local memory is lowered again without them).
  bool localBoundaries = true;
  /// The most pipeline stages; 0: latency mode.
  int64_t pipelineDepth = 0;

  pim::PimsimFiles pimsim = pim::PimsimFiles::Binary;
  int64_t unrollLimit = 16000000;
};

/// The phases a compile is made of (each a registered pipeline).
enum class CompilePhase { PrepareModel, Backend, Compile };
inline constexpr Choice<CompilePhase> kCompilePhases[] = {
    {CompilePhase::PrepareModel, "prepare-model",
     "nn -> nn: raptor-fold-batch-norm; with precision=int8 also raptor-place-codecs, raptor-materialize-codecs "
     "and raptor-expand-requantizers"},
    {CompilePhase::Backend, "compile-backend",
     "a prepared (int8: calibrated) model to its program directory: raptor-build-compute-graph, "
     "raptor-schedule-spatial, raptor-lower-to-pim, raptor-emit-pim"},
    {CompilePhase::Compile, "compile", "a float32 compile: prepare-model, then compile-backend"},
};

/// One pass of a phase, and what it does in words (for progress messages).
struct CompileStep {
  std::string description;
  std::function<std::unique_ptr<mlir::Pass>()> create;
};

/// The passes of `phase`, in order. `weights`, when given, is the caller's
/// open weights file (raptor compile opens it once for calibration, the
/// lowering and the accuracy report); else the lowering opens weightsPath.
std::vector<CompileStep> compileSteps(CompilePhase phase, const CompileOptions &options,
                                      std::shared_ptr<const nn::SafeTensorsFile> weights = nullptr);
/// Adds the passes of `phase` to `pm`.
void populateCompilePipeline(mlir::OpPassManager &pm, CompilePhase phase, const CompileOptions &options,
                             std::shared_ptr<const nn::SafeTensorsFile> weights = nullptr);

/// Registers raptor-prepare-model, raptor-compile-backend and raptor-compile.
void registerCompilePipelines();

} // namespace raptor

RAPTOR_CHOICE_PARSER(raptor::Precision)
RAPTOR_CHOICE_PARSER(raptor::FollowRows)

#endif // RAPTOR_PASSES_PIPELINE_COMPILEPIPELINE_H
