// See json_text.hpp.
#include "common/json_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/utf8.hpp"

namespace agui {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view t, std::size_t i) {
  while (i < t.size() && is_space(t[i])) ++i;
  return i;
}

// The first index at or after i whose byte a JSON string cannot hold as it is
// (a control byte, '"' or '\\') or that is not ASCII; t.size() (or i, when
// past it) when there is none. Eight bytes at a time: a word with none of them
// is skipped whole (the per-byte tests below say exactly where one is).
std::size_t next_special(std::string_view t, std::size_t i) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  while (i + 8 <= t.size()) {
    std::uint64_t v;
    std::memcpy(&v, t.data() + i, 8);
    const std::uint64_t quote = v ^ (kOnes * '"');
    const std::uint64_t backslash = v ^ (kOnes * '\\');
    // A byte's high bit: set in v (not ASCII), or borrowed by a byte below
    // 0x20, or by a byte equal to '"' or '\\' (the zero-byte test).
    const std::uint64_t hits = (v | ((v - kOnes * 0x20) & ~v) | ((quote - kOnes) & ~quote) |
                                ((backslash - kOnes) & ~backslash)) &
                               kHighs;
    if (hits != 0) break;
    i += 8;
  }
  for (; i < t.size(); ++i) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) return i;
  }
  return i;
}

// At t[i] == '"': finds the closing quote. Sets `escaped` when a backslash was
// seen; returns npos for a control byte, invalid UTF-8 or a missing quote.
std::size_t string_end(std::string_view t, std::size_t i, bool& escaped) {
  escaped = false;
  for (i = next_special(t, i + 1); i < t.size(); i = next_special(t, i)) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (c == '"') return i;
    if (c >= 0x80) {
      const Utf8Sequence seq = utf8_sequence_at(t, i);
      if (!seq.valid) return std::string_view::npos;
      i += seq.length;
    } else if (c == '\\') {
      escaped = true;
      i += 2;  // and the escaped character; unescape_json_string() checks it
    } else {
      return std::string_view::npos;  // a control byte
    }
  }
  return std::string_view::npos;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at raw[i]; -1 when they are not.
long hex4(std::string_view raw, std::size_t i) {
  if (i + 4 > raw.size()) return -1;
  long v = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const int d = hex_digit(raw[i + k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

}  // namespace

std::size_t read_flat_string_object(std::string_view text, FlatMember* members,
                                    std::size_t capacity) {
  std::size_t i = skip_space(text, 0);
  if (i == text.size() || text[i] != '{') return 0;
  i = skip_space(text, i + 1);
  std::size_t count = 0;
  if (i < text.size() && text[i] == '}') {
    return 0;  // an empty object is no event worth a fast path
  }
  for (;;) {
    if (count == capacity || i == text.size() || text[i] != '"') return 0;
    bool escaped = false;
    std::size_t end = string_end(text, i, escaped);
    if (end == std::string_view::npos || escaped) return 0;
    const std::string_view key = text.substr(i + 1, end - i - 1);
    for (std::size_t k = 0; k < count; ++k)
      if (members[k].key == key) return 0;  // duplicate: the parser's rule decides
    i = skip_space(text, end + 1);
    if (i == text.size() || text[i] != ':') return 0;
    i = skip_space(text, i + 1);
    if (i == text.size() || text[i] != '"') return 0;
    end = string_end(text, i, escaped);
    if (end == std::string_view::npos) return 0;
    members[count++] = FlatMember{key, text.substr(i + 1, end - i - 1), escaped};
    i = skip_space(text, end + 1);
    if (i == text.size()) return 0;
    if (text[i] == '}') break;
    if (text[i] != ',') return 0;
    i = skip_space(text, i + 1);
  }
  return skip_space(text, i + 1) == text.size() ? count : 0;
}

bool unescape_json_string(std::string_view raw, std::string& out) {
  out.clear();
  out.reserve(raw.size());
  std::size_t i = 0;
  while (i < raw.size()) {
    const void* slash = std::memchr(raw.data() + i, '\\', raw.size() - i);
    const std::size_t next = slash ? static_cast<const char*>(slash) - raw.data() : raw.size();
    out.append(raw.data() + i, next - i);  // the plain run, at once
    if (next == raw.size()) break;
    i = next + 1;
    if (i == raw.size()) return false;
    switch (raw[i]) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        long cp = hex4(raw, i + 1);
        if (cp < 0) return false;
        i += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate alone
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (i + 2 >= raw.size() || raw[i + 1] != '\\' || raw[i + 2] != 'u') return false;
          const long low = hex4(raw, i + 3);
          if (low < 0xDC00 || low > 0xDFFF) return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        }
        append_utf8(out, static_cast<std::uint32_t>(cp));
        break;
      }
      default: return false;
    }
    ++i;
  }
  return true;
}

namespace {

// The code unit of a \uXXXX escape at t[i] == '\\', or -1 when there is none.
long escaped_unit(std::string_view t, std::size_t i) {
  if (i + 2 > t.size() || t[i] != '\\' || t[i + 1] != 'u') return -1;
  return hex4(t, i + 2);
}

// Copies a string token from t[i] == '"' into out, each lone surrogate escape
// written as \uFFFD; returns the index past the closing quote.
std::size_t copy_string_mending_surrogates(std::string_view t, std::size_t i, std::string& out) {
  out += t[i++];
  while (i < t.size() && t[i] != '"') {
    const long unit = t[i] == '\\' ? escaped_unit(t, i) : -1;
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      const long next = escaped_unit(t, i + 6);
      if (next >= 0xDC00 && next <= 0xDFFF) {
        out.append(t.substr(i, 12));
        i += 12;
      } else {
        out += "\\uFFFD";
        i += 6;
      }
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      out += "\\uFFFD";
      i += 6;
    } else {
      const std::size_t n = t[i] == '\\' && i + 1 < t.size() ? 2 : 1;
      out.append(t.substr(i, n));
      i += n;
    }
  }
  if (i < t.size()) out += t[i++];
  return i;
}

// Copies a number token at t[i] into out, as null when it overflows a double.
std::size_t copy_number_mending_overflow(std::string_view t, std::size_t i, std::string& out) {
  std::size_t end = i;
  while (end < t.size() && std::strchr("+-0123456789.eE", t[end]) != nullptr && t[end] != '\0')
    ++end;
  const std::string token(t.substr(i, end - i));
  out += std::isinf(std::strtod(token.c_str(), nullptr)) ? std::string("null") : token;
  return end;
}

// The text with what JSON.parse accepts and nlohmann refuses rewritten (see
// parse_json); other bytes, valid or not, are copied for the parser to judge.
std::string mend_for_nlohmann(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '"') {
      i = copy_string_mending_surrogates(t, i, out);
    } else if (t[i] == '-' || (t[i] >= '0' && t[i] <= '9')) {
      i = copy_number_mending_overflow(t, i, out);
    } else {
      out += t[i++];
    }
  }
  return out;
}

// At t[i] == '"', in text the parser accepted: the index of the closing quote.
std::size_t closing_quote(std::string_view t, std::size_t i) {
  while (++i < t.size() && t[i] != '"') i += t[i] == '\\';
  return i;
}

// Past the JSON value at t[i] (text the parser accepted): a string by its
// quotes, a container by its depth, a scalar up to the ',' or '}' after it.
std::size_t skip_value(std::string_view t, std::size_t i) {
  for (std::size_t depth = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {
      i = closing_quote(t, i);
      if (depth == 0) return i + 1;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}' || c == ',') {
      if (depth == 0) return i;
      if (c != ',' && --depth == 0) return i + 1;
    }
  }
  return i;
}

}  // namespace

std::optional<std::string_view> raw_string_member(std::string_view t, std::string_view key) {
  std::optional<std::string_view> found;
  std::size_t i = skip_space(t, 0);
  if (i == t.size() || t[i] != '{') return found;
  for (i = skip_space(t, i + 1); i < t.size() && t[i] == '"';) {
    std::size_t end = closing_quote(t, i);
    const bool match = t.substr(i + 1, end - i - 1) == key;  // (an escaped key never matches)
    i = skip_space(t, end + 1);
    if (i == t.size() || t[i] != ':') break;
    i = skip_space(t, i + 1);
    if (match && i < t.size() && t[i] == '"')
      found = t.substr(i + 1, (end = closing_quote(t, i)) - i - 1);
    i = skip_space(t, skip_value(t, i));
    if (i < t.size() && t[i] == ',') i = skip_space(t, i + 1);
  }
  return found;
}

SurrogateEdges lone_surrogate_edges(std::string_view raw) {
  SurrogateEdges edges;
  const long first = escaped_unit(raw, 0);
  if (first >= 0xDC00 && first <= 0xDFFF) edges.leading_low = static_cast<unsigned>(first);
  if (raw.size() < 6) return edges;
  const std::size_t at = raw.size() - 6;
  std::size_t slashes = 0;  // an even run of backslashes before it: a real escape
  while (slashes < at && raw[at - 1 - slashes] == '\\') ++slashes;
  const long last = escaped_unit(raw, at);
  if (slashes % 2 == 0 && last >= 0xD800 && last <= 0xDBFF)
    edges.trailing_high = static_cast<unsigned>(last);
  return edges;
}

json parse_json(std::string_view text) {
  // nlohmann ends the text at a NUL byte and skips a leading BOM (so
  // `{"a":1}\0{"a":2}` reads as the first value); JSON.parse refuses both.
  if (text.find('\0') != std::string_view::npos || text.substr(0, 3) == "\xEF\xBB\xBF")
    return json(json::value_t::discarded);
  json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded()) return value;
  // The rare path: only text nlohmann refused is scanned and parsed again.
  const std::string mended = mend_for_nlohmann(text);
  if (mended == text) return value;
  return json::parse(mended, nullptr, /*allow_exceptions=*/false);
}

std::optional<json> flat_object_json(const FlatMember* members, std::size_t count) {
  json out = json::object();
  auto& object = out.get_ref<json::object_t&>();
  std::string value;
  for (std::size_t k = 0; k < count; ++k) {
    const FlatMember& m = members[k];
    if (m.escaped) {
      if (!unescape_json_string(m.raw, value)) return std::nullopt;
      object.emplace(std::string(m.key), value);
    } else {
      object.emplace(std::string(m.key), std::string(m.raw));
    }
  }
  return out;
}

bool append_json_string(std::string& out, std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  const std::size_t start = out.size();
  // libc++'s reserve() allocates exactly what it is asked for: grow
  // geometrically, or a change log is copied whole for every string written.
  const std::size_t need = start + text.size() + 2;
  if (need > out.capacity()) out.reserve(std::max(need, 2 * out.capacity()));
  out += '"';
  std::size_t plain = 0;  // start of the run not yet copied
  for (std::size_t i = next_special(text, 0); i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const Utf8Sequence seq = utf8_sequence_at(text, i);
      if (!seq.valid) {
        out.resize(start);
        return false;
      }
      i = next_special(text, i + seq.length);
      continue;
    }
    out.append(text.data() + plain, i - plain);
    plain = i + 1;
    out += '\\';
    switch (c) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '\b': out += 'b'; break;
      case '\f': out += 'f'; break;
      case '\n': out += 'n'; break;
      case '\r': out += 'r'; break;
      case '\t': out += 't'; break;
      default:
        out += "u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
    i = next_special(text, plain);
  }
  out.append(text.data() + plain, text.size() - plain);
  out += '"';
  return true;
}

void write_json_string(std::string& out, std::string_view text) {
  if (!append_json_string(out, text))
    out += json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

void write_json(std::string& out, const json& value) {
  using value_t = json::value_t;
  switch (value.type()) {
    case value_t::string: write_json_string(out, value.get_ref<const std::string&>()); return;
    case value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        write_json_string(out, key);
        out += ':';
        write_json(out, member);
      }
      out += '}';
      return;
    }
    case value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        write_json(out, item);
      }
      out += ']';
      return;
    }
    case value_t::null: out += "null"; return;
    case value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    default:  // numbers (nlohmann's shortest round-trip form), binary, discarded
      out += value.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

std::string dump_json(const json& value) {
  std::string out;
  write_json(out, value);
  return out;
}

}  // namespace agui
