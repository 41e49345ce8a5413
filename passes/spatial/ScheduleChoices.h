//===- ScheduleChoices.h - Modes and list schedulers ------------*- C++ -*-===//
//
// The choices of raptor-schedule-spatial (and of `raptor compile`): what a
// schedule optimizes and, in latency mode, which list scheduler builds it.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_SCHEDULECHOICES_H
#define RAPTOR_PASSES_SPATIAL_SCHEDULECHOICES_H

#include "passes/Vocabulary.h"

namespace raptor::spatial {

enum class ScheduleMode { Latency, Pipeline };
inline constexpr Choice<ScheduleMode> kScheduleModes[] = {
    {ScheduleMode::Latency, "latency", "one inference as fast as possible"},
    {ScheduleMode::Pipeline, "pipeline", "inferences streamed through at most `depth` stages (throughput)"},
};

enum class ListAlgorithm { PEFT, HEFT };
inline constexpr Choice<ListAlgorithm> kListAlgorithms[] = {
    {ListAlgorithm::PEFT, "peft", "predict earliest finish time (an optimistic cost table looks ahead)"},
    {ListAlgorithm::HEFT, "heft", "heterogeneous earliest finish time (the baseline)"},
};

enum class TransferMode { Auto, Rendezvous, Global };
inline constexpr Choice<TransferMode> kTransferModes[] = {
    {TransferMode::Auto, "auto", "whichever the queue model finds faster"},
    {TransferMode::Rendezvous, "rendezvous", "send and receive, each waiting for the other"},
    {TransferMode::Global, "global",
     "through global memory: stored after the producer's work, signalled, loaded by the reader"},
};

/// Pipeline mode: how data crosses to later stages (spatial::Crossing;
/// auto: the form of each candidate the queue model finds clearly cheaper).
enum class CrossingMode { Auto, Local, Global, Interleaved, Skewed };
inline constexpr Choice<CrossingMode> kCrossingModes[] = {
    {CrossingMode::Auto, "auto",
     "the form the queue model finds cheapest for each candidate (skewed only when predicted 10% faster than "
     "the others: its first inference takes a pass per level)"},
    {CrossingMode::Local, "local",
     "received at the pass's start, sent at its end, relayed through every level skipped"},
    {CrossingMode::Global, "global", "through global-memory regions handed over by tokens, relayed likewise"},
    {CrossingMode::Interleaved, "interleaved", "no stages: every transfer where its task needs it"},
    {CrossingMode::Skewed, "skewed",
     "a core of level l works on inference f - l in pass f; data stored once, loaded at the reader's next "
     "pass, aged in local slots when it skips levels"},
};

} // namespace raptor::spatial

RAPTOR_CHOICE_PARSER(raptor::spatial::CrossingMode)
RAPTOR_CHOICE_PARSER(raptor::spatial::ScheduleMode)
RAPTOR_CHOICE_PARSER(raptor::spatial::ListAlgorithm)
RAPTOR_CHOICE_PARSER(raptor::spatial::TransferMode)

#endif // RAPTOR_PASSES_SPATIAL_SCHEDULECHOICES_H
