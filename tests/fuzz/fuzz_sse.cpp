// libFuzzer target: the SSE parser. The input is an event stream; it is parsed
// whole, byte by byte, and in chunks whose sizes are derived from the input, and
// each must give the same events, retry value and finish() verdict as a naive
// reference parser written straight from the WHATWG rules. With a limit (also
// derived from the input) every chunking must fail or succeed alike.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.hpp"
#include "fuzz_support.hpp"
#include "protocol/sse_parser.hpp"

namespace {

using agui::SseEvent;
using agui::SseLimits;
using agui::SseParser;

struct Outcome {
  std::vector<SseEvent> events;
  std::optional<std::uint64_t> retry;
  bool ok = true;
  bool dropped = false;
  std::string error;
};

bool same_events(const std::vector<SseEvent>& a, const std::vector<SseEvent>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].type != b[i].type || a[i].data != b[i].data || a[i].id != b[i].id ||
        a[i].invalid_utf8 != b[i].invalid_utf8)
      return false;
  }
  return true;
}

bool same(const Outcome& a, const Outcome& b) {
  return same_events(a.events, b.events) && a.retry == b.retry && a.ok == b.ok &&
         a.dropped == b.dropped && a.error == b.error;
}

// The stream parsed twice in a row on one parser (a reconnection: the last event
// ID and retry persist), each time split into chunks of the given sizes.
Outcome parse(std::string_view stream, const std::vector<std::size_t>& sizes, SseLimits limits) {
  Outcome out;
  SseParser parser(limits);
  for (int pass = 0; pass < 2; ++pass) {
    std::size_t pos = 0, k = 0;
    while (pos < stream.size() && out.ok) {
      const std::size_t n = sizes.empty() ? stream.size() : sizes[k++ % sizes.size()];
      out.ok = parser.feed(stream.substr(pos, n), out.events);
      pos += n;
    }
    if (!out.ok) break;
    out.dropped = parser.finish() || out.dropped;
  }
  out.retry = parser.retry();
  out.error = parser.error();
  return out;
}

// The reference: whole lines, split on CRLF, LF or CR, each processed as the
// standard's steps say. No chunking, no optimisation.
struct Reference {
  bool counting = true;  // the first pass counts what it sees
  std::string last_id;
  std::optional<std::uint64_t> retry;

  void tally(const char* kind) {
    if (counting) agui::fuzz::count(kind);
  }

  bool run(std::string_view s, std::vector<SseEvent>& out) {
    if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
    std::string data, type;
    bool pending = false;
    std::size_t start = 0, i = 0;
    while (i < s.size()) {
      if (s[i] != '\r' && s[i] != '\n') {
        ++i;
        continue;
      }
      std::string_view line = s.substr(start, i - start);
      const bool crlf = s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n';
      tally(crlf ? "line-end:crlf" : s[i] == '\r' ? "line-end:cr" : "line-end:lf");
      i += crlf ? 2 : 1;
      start = i;
      if (line.empty()) {
        pending = false;
        if (!data.empty()) {
          data.pop_back();
          // The stream is UTF-8-decoded with replacement; line ends (ASCII)
          // never fall inside a sequence, so decoding per field is the same.
          SseEvent ev{type.empty() ? "message" : type, data, last_id};
          ev.invalid_utf8 = agui::repair_utf8(ev.type) + agui::repair_utf8(ev.data);
          out.push_back(std::move(ev));
        }
        data.clear();
        type.clear();
        continue;
      }
      if (line[0] == ':') {
        tally("comment");
        continue;
      }
      pending = true;
      std::string_view field = line, value;
      if (auto colon = line.find(':'); colon != std::string_view::npos) {
        field = line.substr(0, colon);
        value = line.substr(colon + 1);
        if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
      }
      if (field == "data") {
        data.append(value);
        data += '\n';
      } else if (field == "event") {
        type = value;
      } else if (field == "id") {
        if (value.find('\0') == std::string_view::npos)
          last_id = value;
        else
          tally("id-with-nul");
      } else if (field == "retry") {
        bool digits = !value.empty();
        unsigned __int128 v = 0;
        for (char c : value) {
          digits = digits && c >= '0' && c <= '9';
          if (digits) v = v * 10 + static_cast<unsigned>(c - '0');
          if (v > UINT64_MAX) digits = false;
        }
        if (digits)
          retry = static_cast<std::uint64_t>(v);
        else
          tally("retry-invalid");
      } else if (field != "data" && field != "event") {
        tally("field-unknown");
      }
    }
    return pending || start < s.size();  // an unterminated event or line is dropped
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view stream(reinterpret_cast<const char*>(bytes), size);
  agui::fuzz::Rng rng(stream);

  Reference ref;
  Outcome expected;
  for (int pass = 0; pass < 2; ++pass) {
    ref.counting = pass == 0;
    expected.dropped = ref.run(stream, expected.events) || expected.dropped;
  }
  expected.retry = ref.retry;

  std::vector<std::size_t> chunks;
  for (int i = 0, n = 1 + static_cast<int>(rng.below(8)); i < n; ++i)
    chunks.push_back(1 + rng.below(17));

  const Outcome whole = parse(stream, {}, {});
  AGUI_FUZZ_CHECK(same(whole, expected), "whole stream differs from the reference parser");
  AGUI_FUZZ_CHECK(same(parse(stream, {1}, {}), expected), "byte-wise feeding differs");
  AGUI_FUZZ_CHECK(same(parse(stream, chunks, {}), expected), "chunked feeding differs");

  // A limit: whether and where the stream fails must not depend on chunking.
  const SseLimits limits{1 + rng.below(96)};
  const Outcome limited = parse(stream, {}, limits);
  agui::fuzz::count("streams");
  if (expected.dropped) agui::fuzz::count("stream-cut-mid-event");
  if (stream.substr(0, 3) == "\xEF\xBB\xBF") agui::fuzz::count("bom");
  if (!limited.ok) agui::fuzz::count("over-max-event-bytes");
  AGUI_FUZZ_CHECK(same(parse(stream, {1}, limits), limited),
                  "byte-wise feeding with a limit differs");
  AGUI_FUZZ_CHECK(same(parse(stream, chunks, limits), limited),
                  "chunked feeding with a limit differs");
  for (const auto& e : limited.events) {
    // The limit counts bytes as received: each U+FFFD (3 bytes) replaced at
    // least one, so the received data was at most this long.
    AGUI_FUZZ_CHECK(e.data.size() <= limits.max_event_bytes + 2 * e.invalid_utf8,
                    "an event over the limit was dispatched");
  }
  return 0;
}
