//===- OversizedShapes.cpp - Screening IR text for overflowing shapes -----===//
#include "support/OversizedShapes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>

namespace raptor {
namespace {

bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.'; }

/// White space as MLIR's lexer skips it: a NUL byte inside the buffer too.
bool isLexerSpace(char c) { return llvm::isSpace(c) || c == '\0'; }

bool startsComment(llvm::StringRef text, size_t pos) {
  return text[pos] == '/' && pos + 1 < text.size() && text[pos + 1] == '/';
}

/// Where the `//` comment at `pos` ends: the lexer stops at '\n' or '\r'.
size_t commentEnd(llvm::StringRef text, size_t pos) {
  size_t end = text.find_first_of("\n\r", pos);
  return end == llvm::StringRef::npos ? text.size() : end;
}

/// Skips what the lexer skips between tokens: white space and comments.
size_t skipSpaces(llvm::StringRef text, size_t pos) {
  while (pos < text.size()) {
    if (isLexerSpace(text[pos]))
      ++pos;
    else if (startsComment(text, pos))
      pos = commentEnd(text, pos);
    else
      break;
  }
  return pos;
}

/// The bare identifier starting at `pos` (an alias's name after `!`).
llvm::StringRef identifierAt(llvm::StringRef text, size_t pos) {
  size_t end = pos;
  while (end < text.size() && isIdentifierChar(text[end]))
    ++end;
  return text.slice(pos, end);
}

/// The position of the `<` after `keyword` at `pos` (white space between
/// them is the lexer's), or npos when `keyword<` does not start there.
size_t keywordBracket(llvm::StringRef text, size_t pos, llvm::StringRef keyword) {
  if (!text.substr(pos).starts_with(keyword))
    return llvm::StringRef::npos;
  size_t bracket = skipSpaces(text, pos + keyword.size());
  return bracket < text.size() && text[bracket] == '<' ? bracket : llvm::StringRef::npos;
}

/// Results of one op that a value use may name (`%v#N`): far beyond any
/// real op, far below what the parser can allocate placeholders for.
constexpr uint64_t kMaxResultNumber = uint64_t(1) << 24;

/// Reads the dimension list after `keyword <` starting at `pos`. Returns the
/// dimensions (`4x9223372036854775807`, without the white space and
/// comments the lexer allows between them) and whether their product
/// overflows int64; a malformed list is left to MLIR's parser (not
/// overflowing).
bool overflows(llvm::StringRef text, size_t pos, std::string &dims) {
  // MLIR's lexer lets white space separate a dimension list's tokens
  // (`4 x 5`, `4x\n  5xf32`).
  pos = skipSpaces(text, pos);
  dims.clear();
  int64_t product = 1;
  bool overflow = false, empty = false;
  while (pos < text.size()) {
    size_t token = pos;
    bool scalable = text[pos] == '[';
    size_t digits = pos + (scalable ? 1 : 0);
    if (digits < text.size() && text[digits] == '?') {
      pos = digits + 1;
    } else {
      size_t end = digits;
      while (end < text.size() && llvm::isDigit(text[end]))
        ++end;
      if (end == digits)
        break;
      uint64_t value;
      // A dimension that does not fit int64 is the parser's own error.
      if (text.slice(digits, end).getAsInteger(10, value) || value > INT64_MAX)
        return false;
      pos = end;
      empty |= value == 0;
      // Once overflowed, the wrapped product is meaningless: stop multiplying.
      if (!overflow && __builtin_mul_overflow(product, static_cast<int64_t>(value), &product))
        overflow = true;
    }
    if (scalable) {
      if (pos >= text.size() || text[pos] != ']')
        return false;
      ++pos;
    }
    // The dimension as written, without what the lexer skipped around it.
    dims += (dims.empty() ? "" : "x") + text.slice(token, pos).str();
    pos = skipSpaces(text, pos);
    if (pos >= text.size() || text[pos] != 'x')
      break;
    pos = skipSpaces(text, pos + 1);
    // `4xf32`: the character after 'x' starts the element type.
    if (pos < text.size() && !llvm::isDigit(text[pos]) && text[pos] != '?' && text[pos] != '[')
      break;
  }
  // A zero dimension makes the count zero however large the others are.
  return overflow && !empty;
}

/// The end of the `<...>` that opens at `pos` (nested brackets and string
/// literals skipped), or npos.
size_t closingBracket(llvm::StringRef text, size_t pos) {
  int depth = 0;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (startsComment(text, pos)) {
      pos = commentEnd(text, pos);
    } else if (c == '"') {
      for (++pos; pos < text.size() && text[pos] != '"'; ++pos)
        if (text[pos] == '\\')
          ++pos;
    } else if (c == '<') {
      ++depth;
    } else if (c == '>' && --depth == 0) {
      return pos;
    }
  }
  return llvm::StringRef::npos;
}

} // namespace

std::optional<OversizedShape> findOversizedShape(llvm::StringRef text) {
  // Only elements attributes build their type's element count while
  // parsing; a type elsewhere reaches Raptor's verifiers, which report it at
  // its value (dialects/nn/ElementCount.h).
  static constexpr llvm::StringLiteral attributes[] = {"dense_resource", "dense", "sparse"};
  static constexpr llvm::StringLiteral types[] = {"tensor", "memref", "vector"};
  // The message for a shaped type at `pos` that overflows, if it does.
  auto oversizedType = [&](size_t pos) -> std::optional<std::string> {
    for (llvm::StringRef keyword : types) {
      std::string dims;
      size_t open = keywordBracket(text, pos, keyword);
      if (open != llvm::StringRef::npos && overflows(text, open + 1, dims))
        return (keyword + " type with shape " + dims + " has more than 2^63 - 1 elements").str();
    }
    return std::nullopt;
  };
  // Type aliases (`!big = tensor<...>`, defined before use) of such types.
  llvm::StringMap<std::string> oversizedAliases;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (startsComment(text, i)) {
      i = commentEnd(text, i);
      continue;
    }
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '%') {
      // `%0#2147483648`: the parser makes one placeholder per result up to
      // the number used, and runs out of memory.
      size_t hash = i + 1;
      while (hash < text.size() && isIdentifierChar(text[hash]))
        ++hash;
      size_t end = hash + 1;
      while (end < text.size() && llvm::isDigit(text[end]))
        ++end;
      uint64_t number;
      if (hash < text.size() && text[hash] == '#' && end > hash + 1 &&
          (text.slice(hash + 1, end).getAsInteger(10, number) || number >= kMaxResultNumber))
        return OversizedShape{i, ("result number " + text.slice(hash + 1, end) + " of " +
                                  text.slice(i, hash) + " is beyond " + llvm::Twine(kMaxResultNumber - 1))
                                     .str()};
      i = hash - 1;
      continue;
    }
    if (i > 0 && isIdentifierChar(text[i - 1]))
      continue;
    if (c == '!') {
      llvm::StringRef name = identifierAt(text, i + 1);
      size_t equals = skipSpaces(text, i + 1 + name.size());
      if (!name.empty() && equals < text.size() && text[equals] == '=')
        if (std::optional<std::string> message = oversizedType(skipSpaces(text, equals + 1)))
          oversizedAliases[name] = *message;
      i += name.size();
      continue;
    }
    for (llvm::StringRef attribute : attributes) {
      size_t bracket = keywordBracket(text, i, attribute);
      if (bracket == llvm::StringRef::npos)
        continue;
      size_t end = closingBracket(text, bracket);
      if (end == llvm::StringRef::npos)
        return std::nullopt; // the parser's own error
      size_t colon = skipSpaces(text, end + 1);
      if (colon >= text.size() || text[colon] != ':')
        break;
      size_t type = skipSpaces(text, colon + 1);
      if (std::optional<std::string> message = oversizedType(type))
        return OversizedShape{type, *message};
      if (type < text.size() && text[type] == '!') {
        llvm::StringRef alias = identifierAt(text, type + 1);
        auto found = oversizedAliases.find(alias);
        if (!alias.empty() && found != oversizedAliases.end())
          return OversizedShape{type, ("type alias !" + alias + ": " + found->second).str()};
      }
      i = end;
      break;
    }
  }
  return std::nullopt;
}

} // namespace raptor
