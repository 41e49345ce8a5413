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

} // namespace raptor::spatial

RAPTOR_CHOICE_PARSER(raptor::spatial::ScheduleMode)
RAPTOR_CHOICE_PARSER(raptor::spatial::ListAlgorithm)

#endif // RAPTOR_PASSES_SPATIAL_SCHEDULECHOICES_H
