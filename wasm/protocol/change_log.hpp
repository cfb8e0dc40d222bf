// The change log: what changed, for a UI that must not re-read the whole thread
// per event. The reducer and the round driver write to it; the host takes it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/json.hpp"
#include "protocol/kinds.hpp"

namespace agui {

// What changed, for a UI that must not re-read the whole thread per event. Each
// record is a small JSON object with a "kind"; see docs/changes.md. Records
// are kept as JSON text, written as they happen: the host takes them as one
// array to parse, and nothing is built twice.
class ChangeLog {
 public:
  // One record, written as it is built and closed at the end of the statement
  // that made it (or of the scope that names it):
  //   changes_.record(ChangeKind::kToolCallEnded).str("toolCallId", id);
  // No record may be started while another is open.
  class Record {
   public:
    Record(const Record&) = delete;
    Record& operator=(const Record&) = delete;
    ~Record() { log_.text_ += '}'; }
    Record& str(std::string_view key, std::string_view value);
    Record& num(std::string_view key, long long value);
    Record& flag(std::string_view key, bool value);
    Record& value(std::string_view key, const json& value);         // written from where it is
    Record& raw(std::string_view key, std::string_view json_text);  // already JSON text

   private:
    friend class ChangeLog;
    explicit Record(ChangeLog& log) : log_(log) {}
    void key(std::string_view key);
    ChangeLog& log_;
  };
  Record record(ChangeKind kind);
  // {"kind": "tool_call_status", toolCallId, name, status, error?}: the one
  // writer of a call's state, for the reducer and the driver alike. A state
  // only moves forward, and a final one (done, error, cancelled, denied) never
  // moves again: such a move is refused, nothing is written, and the caller
  // reports it (call_state_final) with the state the call keeps.
  bool call_status(std::string_view call_id, std::string_view name, CallState state,
                   const std::string* error = nullptr);
  // The one move out of a final state: a call closed with a provisional answer
  // (Thread::mark_provisional) whose real answer came after all is done.
  void answered_after_all(std::string_view call_id, std::string_view name);
  // The call's last state, when one was announced.
  std::optional<CallState> call_state(std::string_view call_id) const;
  // For the problem a refused move reports: "tool call 'c1' is done, a final state".
  std::string final_state_of(std::string_view call_id) const;
  // {"kind": kind, key: value}
  void push(ChangeKind kind, std::string_view key, const json& value) {
    record(kind).value(key, value);
  }
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  // Hands over everything recorded since the last take, as a JSON array's text.
  std::string take_text();
  // The same, parsed (for C++ callers and the tests).
  json take();

 private:
  std::string text_ = "[";
  std::size_t count_ = 0;
  // toolCallId -> its last state (a CallState; size_t shares the code of the core's other maps)
  std::unordered_map<std::string, std::size_t> states_;
};

}  // namespace agui
