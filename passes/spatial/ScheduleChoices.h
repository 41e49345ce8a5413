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

} // namespace raptor::spatial

RAPTOR_CHOICE_PARSER(raptor::spatial::ScheduleMode)
RAPTOR_CHOICE_PARSER(raptor::spatial::ListAlgorithm)
RAPTOR_CHOICE_PARSER(raptor::spatial::TransferMode)

#endif // RAPTOR_PASSES_SPATIAL_SCHEDULECHOICES_H
