//===- OversizedShapes.h - Screening IR text for overflowing shapes -*- C++ -*-===//
//
// MLIR's parser accepts a shaped type whose element count does not fit in
// int64 (tensor<4x9223372036854775807xf32>) and then asserts the moment an
// attribute of that type is built (ShapedType::getNumElements). A compiler
// must answer such input with a diagnostic, so every entry point that parses
// user IR (raptor-opt, the Python driver) screens the text first. Types
// elsewhere (a function's arguments) parse safely and reach Raptor's own
// verifiers, which report them at their values. Value uses naming a result
// number beyond 2^24 (`%0#2147483648`, for which the parser allocates a
// placeholder per result) are refused the same way.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SUPPORT_OVERSIZEDSHAPES_H
#define RAPTOR_SUPPORT_OVERSIZEDSHAPES_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>

namespace raptor {

/// An attribute's shaped type in IR text whose static dimensions multiply
/// past int64.
struct OversizedShape {
  size_t offset;       ///< where the type's keyword starts in the text
  std::string message; ///< one line, without location
};

/// The type of the first elements attribute in `text` (`dense<...>`,
/// `sparse<...>`, `dense_resource<...>`, outside comments and string
/// literals) that is a `tensor`, `memref` or `vector` whose static element
/// count overflows int64, or the first value use `%v#N` with N >= 2^24.
std::optional<OversizedShape> findOversizedShape(llvm::StringRef text);

} // namespace raptor

#endif // RAPTOR_SUPPORT_OVERSIZEDSHAPES_H
