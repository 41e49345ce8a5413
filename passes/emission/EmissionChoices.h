//===- EmissionChoices.h - Which pimsim-nn files to write -------*- C++ -*-===//
#ifndef RAPTOR_PASSES_EMISSION_EMISSIONCHOICES_H
#define RAPTOR_PASSES_EMISSION_EMISSIONCHOICES_H

#include "passes/Vocabulary.h"
#include "simulator/Program.h"

namespace raptor::pim {

inline constexpr Choice<PimsimFiles> kPimsimFiles[] = {
    {PimsimFiles::Binary, "binary", "core_<i>.pim, pimsim-nn's binary programs"},
    {PimsimFiles::Json, "json", "core_<i>.json, pimsim-nn's JSON programs"},
    {PimsimFiles::Both, "both", "both forms"},
    {PimsimFiles::None, "none", "no pimsim-nn program files (Raptor's compact programs only)"},
};

} // namespace raptor::pim

RAPTOR_CHOICE_PARSER(raptor::pim::PimsimFiles)

#endif // RAPTOR_PASSES_EMISSION_EMISSIONCHOICES_H
