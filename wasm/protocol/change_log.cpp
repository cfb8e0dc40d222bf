// The change log's records, written as JSON text as they happen. See change_log.hpp.
#include "protocol/change_log.hpp"

#include "common/json_text.hpp"

namespace agui {

ChangeLog::Record ChangeLog::record(ChangeKind kind) {
  if (count_++ != 0) text_ += ',';
  text_ += "{\"kind\":";
  write_json_string(text_, to_string(kind));
  return Record(*this);
}

void ChangeLog::Record::key(std::string_view key) {
  log_.text_ += ',';
  write_json_string(log_.text_, key);
  log_.text_ += ':';
}

ChangeLog::Record& ChangeLog::Record::str(std::string_view key, std::string_view value) {
  this->key(key);
  write_json_string(log_.text_, value);
  return *this;
}

ChangeLog::Record& ChangeLog::Record::num(std::string_view key, long long value) {
  this->key(key);
  log_.text_ += std::to_string(value);
  return *this;
}

ChangeLog::Record& ChangeLog::Record::flag(std::string_view key, bool value) {
  this->key(key);
  log_.text_ += value ? "true" : "false";
  return *this;
}

// As the bindings dump every value: a stray invalid byte becomes U+FFFD rather
// than an exception in the middle of a stream.
ChangeLog::Record& ChangeLog::Record::value(std::string_view key, const json& value) {
  this->key(key);
  write_json(log_.text_, value);
  return *this;
}

ChangeLog::Record& ChangeLog::Record::raw(std::string_view key, std::string_view json_text) {
  this->key(key);
  log_.text_ += json_text;
  return *this;
}

bool ChangeLog::call_status(std::string_view call_id, std::string_view name, CallState state,
                            const std::string* error) {
  // (kinds.hpp lists the states in the order a call moves through them.)
  const auto rank = static_cast<std::size_t>(state);
  std::string id(call_id);
  auto it = states_.find(id);
  if (it != states_.end() &&
      (it->second >= static_cast<std::size_t>(CallState::kDone) || rank < it->second))
    return false;
  states_[id] = rank;
  auto r = record(ChangeKind::kToolCallStatus);
  r.str("toolCallId", call_id).str("name", name).str("status", to_string(state));
  if (error) r.str("error", *error);
  return true;
}

void ChangeLog::answered_after_all(std::string_view call_id, std::string_view name) {
  if (call_state(call_id) == CallState::kDone) return;
  states_.erase(std::string(call_id));
  call_status(call_id, name, CallState::kDone);
}

std::optional<CallState> ChangeLog::call_state(std::string_view call_id) const {
  auto it = states_.find(std::string(call_id));
  if (it == states_.end()) return std::nullopt;
  return static_cast<CallState>(it->second);
}

std::string ChangeLog::final_state_of(std::string_view call_id) const {
  std::string out = "tool call '";
  out += call_id;
  out += "' is ";
  out += to_string(call_state(call_id).value_or(CallState::kDone));
  out += ", a final state";
  return out;
}

std::string ChangeLog::take_text() {
  std::string out = std::move(text_);
  out += ']';
  text_.assign(1, '[');  // (not `= "["`: g++ 12 warns falsely on it, -Wrestrict)
  count_ = 0;
  return out;
}

json ChangeLog::take() { return json::parse(take_text()); }

}  // namespace agui
