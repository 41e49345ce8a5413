//===- CodecChoices.h - Policies and placements of codecs -------*- C++ -*-===//
//
// The choices of the codec-placement passes (and of `raptor compile
// --precision int8`, `raptor codec-report`): which operators get INT8
// variants (the seed's compression policies) and how codecs are placed.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_CODECCHOICES_H
#define RAPTOR_PASSES_CODEC_CODECCHOICES_H

#include "passes/Vocabulary.h"

namespace raptor::codec {

/// A pass's `policy` option: a compression policy, or the one the function
/// already carries (`codec.policy`, written by the first codec pass), so
/// that the steps of a placement can run one by one.
enum class PolicyChoice { Function, Z, Y, X, W };
inline constexpr Choice<PolicyChoice> kPolicyChoices[] = {
    {PolicyChoice::Function, "function", "the function's codec.policy, else W"},
    {PolicyChoice::Z, "Z", "no operator gets an INT8 variant (float32 throughout)"},
    {PolicyChoice::Y, "Y", "matrix operators (convolutions, linear layers, matrix products)"},
    {PolicyChoice::X, "X", "Y plus concatenation, splits and fan-out"},
    {PolicyChoice::W, "W", "X plus views, pooling and padding"},
};

enum class Placement { Local, Nonlocal, NonlocalCoalesced };
inline constexpr Choice<Placement> kPlacements[] = {
    {Placement::Local, "local", "the baseline: codecs around every operator that needs them"},
    {Placement::Nonlocal, "nonlocal", "one codec per same-semantics subgraph, at its absolute dominator"},
    {Placement::NonlocalCoalesced, "nonlocal-coalesced",
     "non-local, with subgraphs merged through the meta-graph where that saves codecs"},
};

} // namespace raptor::codec

RAPTOR_CHOICE_PARSER(raptor::codec::PolicyChoice)
RAPTOR_CHOICE_PARSER(raptor::codec::Placement)

#endif // RAPTOR_PASSES_CODEC_CODECCHOICES_H
