// UTF-8 as the WHATWG Encoding standard decodes it: what is valid, and how an
// invalid stretch becomes U+FFFD (one per maximal subpart, as TextDecoder and
// every browser's EventSource do).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agui {

// At `i`: the length of the valid sequence there, or, when it is not valid,
// the length of the stretch one U+FFFD replaces (at least 1).
struct Utf8Sequence {
  std::size_t length;
  bool valid;
};
Utf8Sequence utf8_sequence_at(std::string_view text, std::size_t i);

// Offset of the first byte that breaks UTF-8 (overlong forms, surrogates and
// code points past U+10FFFF included), or nullopt for valid text.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);

// Replaces each invalid stretch with U+FFFD; returns how many it replaced.
// Valid text (the usual case) is only scanned, never copied.
std::size_t repair_utf8(std::string& text);

// Appends code point `cp` (a scalar value) as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);

}  // namespace agui
