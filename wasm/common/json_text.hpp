// JSON text on the hot path. Reading: the flat all-string objects that make up
// most of a stream (every delta, start, end and result) without nlohmann's
// character-at-a-time lexer; anything else goes to the parser. Writing: every
// JSON value the core hands out, byte for byte what nlohmann's dump() writes,
// with whole runs of plain text copied at once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.hpp"

namespace agui {

// One member of a flat object: the key as written (never escaped), and the
// value's text between its quotes, escapes still in.
struct FlatMember {
  std::string_view key;
  std::string_view raw;
  bool escaped = false;  // `raw` holds a backslash: decode with unescape_json_string()
};

// Reads `text` when it is exactly a JSON object of at most `capacity` members
// whose keys hold no escape and whose values are all strings, with no two keys
// alike. Returns the member count, or 0 for anything else (a number, a nested
// value, an escaped key, a control byte or invalid UTF-8 in a string, text
// after the object): the caller then hands the text to the full parser, which
// reports what is wrong.
std::size_t read_flat_string_object(std::string_view text, FlatMember* members,
                                    std::size_t capacity);

// Decodes a string's raw text (between its quotes) into `out`. False when an
// escape is not JSON or a \u escape is a lone surrogate (nlohmann refuses
// those too; the full parser then reports it).
bool unescape_json_string(std::string_view raw, std::string& out);

// The raw text (as FlatMember::raw) of the string member `key` at the top level
// of the JSON object `text`, the last when it repeats (as JSON.parse keeps), or
// nullopt. For text the parser accepted; an escaped key is not matched.
std::optional<std::string_view> raw_string_member(std::string_view text, std::string_view key);

// The lone surrogate escapes at the edges of a string's raw text, 0 where there
// is none: a low half that starts it (\ude00...), a high half that ends it
// (...\ud83d). JSON.stringify writes each half of a pair split by slice() so.
struct SurrogateEdges {
  unsigned leading_low = 0;
  unsigned trailing_high = 0;
};
SurrogateEdges lone_surrogate_edges(std::string_view raw);

// The members as a JSON object (each value decoded), or nullopt when a value's
// escapes are not JSON.
std::optional<json> flat_object_json(const FlatMember* members, std::size_t count);

// Parses `text` as JSON.parse does, then holds the value as JSON.stringify
// would write it: where nlohmann refuses what JSON.parse accepts, a \u escape
// of a lone surrogate becomes U+FFFD (UTF-8 cannot hold the surrogate) and a
// number past a double's range (1e400, which JSON.parse reads as Infinity)
// becomes null. A discarded value (is_discarded()) when the text is not JSON,
// as JSON.parse says: a NUL byte anywhere or a leading BOM included.
json parse_json(std::string_view text);

// Appends `text` to `out` as a JSON string, quotes included, escaped as
// nlohmann's dump() escapes it. Returns false, having appended nothing, when
// `text` is not valid UTF-8.
bool append_json_string(std::string& out, std::string_view text);
// The same for any text: what is not valid UTF-8 becomes U+FFFD, as dump()'s
// error_handler_t::replace does.
void write_json_string(std::string& out, std::string_view text);

// Appends `value` as dump(-1, ' ', false, error_handler_t::replace) writes it:
// compact, keys in the object's order, a string that is not valid UTF-8 with
// U+FFFD for what is not (so nothing the core hands out can throw mid-way).
void write_json(std::string& out, const json& value);
std::string dump_json(const json& value);

}  // namespace agui
