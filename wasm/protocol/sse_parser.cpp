// text/event-stream parsing, byte by byte as the WHATWG HTML standard
// ("Interpreting an event stream") describes it, but chunk-wise: every byte is
// looked at once, and a line is copied only when it straddles a chunk boundary.
#include "protocol/sse_parser.hpp"

#include <limits>
#include <utility>

#include "common/utf8.hpp"

namespace agui {

namespace {

constexpr char kBom[] = "\xEF\xBB\xBF";
constexpr std::size_t kBomSize = 3;

// Index of the first CR or LF in `bytes` at or after `from`, or npos.
std::size_t find_line_end(std::string_view bytes, std::size_t from) {
  for (std::size_t i = from; i < bytes.size(); ++i) {
    if (bytes[i] == '\n' || bytes[i] == '\r') return i;
  }
  return std::string_view::npos;
}

// The spec's "consists of only ASCII digits", in base ten. Empty, non-digit and
// values too large for 64 bits are ignored (nullopt).
std::optional<std::uint64_t> parse_retry(std::string_view value) {
  if (value.empty()) return std::nullopt;
  std::uint64_t result = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (result > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    result = result * 10 + digit;
  }
  return result;
}

}  // namespace

SseParser::SseParser(SseLimits limits) : limits_(limits) {}

bool SseParser::feed(std::string_view bytes, std::vector<SseEvent>& out) {
  if (failed_) return false;
  bytes_seen_ += bytes.size();
  if (!bom_checked_) {
    // Match the BOM a byte at a time: it may arrive split across chunks.
    while (!bytes.empty() && bom_matched_ < kBomSize && bytes.front() == kBom[bom_matched_]) {
      ++bom_matched_;
      bytes.remove_prefix(1);
    }
    if (bom_matched_ == kBomSize) {
      bom_checked_ = true;  // stripped
    } else if (!bytes.empty()) {
      // Not a BOM after all: the bytes that matched so far are content.
      bom_checked_ = true;
      if (bom_matched_ > 0 && !consume(std::string_view(kBom, bom_matched_), out)) return false;
    } else {
      return true;  // chunk ended inside a possible BOM: decide on the next byte
    }
  }
  return consume(bytes, out);
}

bool SseParser::consume(std::string_view bytes, std::vector<SseEvent>& out) {
  std::size_t pos = 0;
  if (after_cr_ && !bytes.empty()) {
    after_cr_ = false;
    if (bytes.front() == '\n') pos = 1;  // the LF of a CRLF split across chunks
  }
  while (pos < bytes.size()) {
    const std::size_t end = find_line_end(bytes, pos);
    if (end == std::string_view::npos) {
      // Unterminated: keep the tail for the next chunk. Only the new bytes are
      // scanned next time, so one-byte chunks stay linear.
      line_.append(bytes.substr(pos));
      return within_limit(data_held() + line_.size());
    }
    std::string_view line = bytes.substr(pos, end - pos);
    if (!line_.empty()) {
      line_.append(line);
      line = line_;
    }
    if (!within_limit(data_held() + line.size())) return false;
    process_line(line, out);
    line_.clear();  // keeps its capacity for the next straddling line
    pos = end + 1;
    if (bytes[end] == '\r') {
      if (pos < bytes.size()) {
        if (bytes[pos] == '\n') ++pos;
      } else {
        after_cr_ = true;
      }
    }
  }
  return true;
}

bool SseParser::within_limit(std::size_t held) {
  if (limits_.max_event_bytes == 0 || held <= limits_.max_event_bytes) return true;
  failed_ = true;
  error_ =
      "SSE event exceeds max_event_bytes (" + std::to_string(limits_.max_event_bytes) + " bytes)";
  // Nothing more will be dispatched: release the buffers now.
  line_ = std::string();
  data_ = std::string();
  has_data_ = false;
  event_type_.clear();
  pending_fields_ = false;
  return false;
}

void SseParser::process_line(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    dispatch(out);
    return;
  }
  if (line.front() == ':') return;  // comment
  std::string_view field = line;
  std::string_view value;
  if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  pending_fields_ = true;
  if (field == "data") {
    // The spec appends the value and then a LF, and drops the last LF when it
    // dispatches: a LF before each line but the first is the same text, without
    // growing the buffer a second time for every event.
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    event_type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  } else if (field == "retry") {
    if (auto retry = parse_retry(value)) retry_ = retry;
  }
  // Any other field is ignored, as the spec says.
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
  pending_fields_ = false;
  if (!has_data_) {
    event_type_.clear();
    return;
  }
  has_data_ = false;
  SseEvent event;
  event.type = event_type_.empty() ? std::string("message") : std::move(event_type_);
  event.data = std::move(data_);
  event.id = last_event_id_;
  event.invalid_utf8 = repair_utf8(event.type) + repair_utf8(event.data);
  out.push_back(std::move(event));
  data_.clear();  // moved-from: make it a valid empty buffer again
  event_type_.clear();
}

bool SseParser::finish() {
  const bool partial_bom = !bom_checked_ && bom_matched_ > 0;
  const bool dropped = !failed_ && (pending_fields_ || !line_.empty() || partial_bom);
  // Ready for a reconnected stream: a fresh start (BOM included), but the last
  // event ID and the retry value persist, as they do for an EventSource.
  line_.clear();
  data_.clear();
  has_data_ = false;
  event_type_.clear();
  pending_fields_ = false;
  after_cr_ = false;
  bom_matched_ = 0;
  bom_checked_ = false;
  return dropped;
}

}  // namespace agui
