// The change log: what changed, for a UI that must not re-read the whole thread
// per event. The reducer and the round driver write to it; the host takes it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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
  // writer of a call's state, for the reducer and the driver alike.
  void call_status(std::string_view call_id, std::string_view name, CallState state,
                   const std::string* error = nullptr) {
    auto r = record(ChangeKind::kToolCallStatus);
    r.str("toolCallId", call_id).str("name", name).str("status", to_string(state));
    if (error) r.str("error", *error);
  }
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
};

}  // namespace agui
