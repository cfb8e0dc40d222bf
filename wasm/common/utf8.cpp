// See utf8.hpp.
#include "common/utf8.hpp"

namespace agui {

Utf8Sequence utf8_sequence_at(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return {1, true};
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    return {1, false};
  }
  // The bytes that continue the sequence correctly so far belong to the
  // replaced stretch; the first that does not is decoded afresh.
  for (std::size_t k = 1; k < length; ++k) {
    if (i + k >= text.size()) return {k, false};
    const auto byte = static_cast<unsigned char>(text[i + k]);
    if (byte < (k == 1 ? low : 0x80) || byte > (k == 1 ? high : 0xBF)) return {k, false};
  }
  return {length, true};
}

std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const Utf8Sequence seq = utf8_sequence_at(text, i);
    if (!seq.valid) return i;
    i += seq.length;
  }
  return std::nullopt;
}

std::size_t repair_utf8(std::string& text) {
  const auto first = invalid_utf8_at(text);
  if (!first) return 0;
  std::string out(text, 0, *first);
  out.reserve(text.size() + 8);
  std::size_t replaced = 0;
  for (std::size_t i = *first; i < text.size();) {
    const Utf8Sequence seq = utf8_sequence_at(text, i);
    if (seq.valid) {
      out.append(text, i, seq.length);
    } else {
      out += "\xEF\xBF\xBD";
      ++replaced;
    }
    i += seq.length;
  }
  text = std::move(out);
  return replaced;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace agui
