// Incremental text/event-stream parser (WHATWG HTML, "Server-sent events",
// section "Interpreting an event stream"). Sans-I/O: it is fed byte chunks of any
// size, split anywhere (inside a UTF-8 sequence, between CR and LF, inside a
// field name), and hands back the events completed so far.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agui {

struct SseEvent {
  std::string type;  // the `event` field; "message" when absent
  std::string data;  // `data` lines joined with '\n'
  std::string id;    // the last event ID seen (sticky across events, per spec)
  // The stream is decoded as UTF-8 (per spec): each invalid stretch in `type`
  // or `data` became U+FFFD. How many, so the caller can say so.
  std::size_t invalid_utf8 = 0;
};

struct SseLimits {
  // Bytes one event may hold (data plus the line being read). 0 = no limit.
  std::size_t max_event_bytes = 0;
};

class SseParser {
 public:
  explicit SseParser(SseLimits limits = {});

  // Feeds bytes; appends each completed event to `out`. Returns false once the
  // stream is unusable (an event over the limit); error() then says why, and
  // further input is ignored.
  bool feed(std::string_view bytes, std::vector<SseEvent>& out);

  // The stream ended. Per spec, an event not terminated by a blank line is
  // discarded; returns true when such a partial event (or a partial line) was
  // dropped, so the caller can report a stream cut mid-event. Afterwards the
  // parser reads a reconnected stream from its start (a BOM is stripped again);
  // the last event ID and retry persist, as for an EventSource.
  bool finish();

  // The last `retry` value (milliseconds), when the stream sent one.
  std::optional<std::uint64_t> retry() const { return retry_; }
  const std::string& error() const { return error_; }
  std::size_t bytes_seen() const { return bytes_seen_; }

 private:
  // Splits `bytes` (BOM already handled) into lines; false once over the limit.
  bool consume(std::string_view bytes, std::vector<SseEvent>& out);
  void process_line(std::string_view line, std::vector<SseEvent>& out);
  void dispatch(std::vector<SseEvent>& out);
  // Checks `held` bytes (data buffer plus the line being read) against the limit.
  bool within_limit(std::size_t held);
  // The spec's data buffer size: ours plus the LF it keeps after the last line.
  std::size_t data_held() const { return data_.size() + (has_data_ ? 1 : 0); }

  SseLimits limits_;
  std::string line_;        // the unterminated line carried over from earlier chunks
  std::string data_;        // data buffer of the event being assembled, without the
                            // spec's LF after its last line
  bool has_data_ = false;   // a data line was seen: the spec's buffer is not empty
  std::string event_type_;  // event type buffer
  std::string last_event_id_;
  bool pending_fields_ = false;  // any field seen since the last blank line
  bool after_cr_ = false;        // last byte was CR: a following LF belongs to it
  bool failed_ = false;
  std::uint8_t bom_matched_ = 0;  // leading bytes that matched EF BB BF so far
  bool bom_checked_ = false;      // the stream start is past: no BOM to strip any more
  std::optional<std::uint64_t> retry_;
  std::string error_;
  std::size_t bytes_seen_ = 0;
};

}  // namespace agui
