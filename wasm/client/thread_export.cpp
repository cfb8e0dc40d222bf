// Thread export and import: a snapshot of the thread and the turn in flight that
// a page can store and load after a reload. Import closes what the snapshot
// cannot vouch for (a call that was running, a run that was streaming) with an
// error result, so nothing runs twice and nothing is left open.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "client/round_driver.hpp"
#include "common/json_text.hpp"
#include "protocol/fields.hpp"

namespace agui {

using detail::call_name;
using detail::opt_string;

json RoundDriver::export_thread() const { return export_with(thread_.messages(), thread_.state()); }

json RoundDriver::export_journal(bool whole) {
  const Thread::Changes changed = thread_.take_changes();
  // A change holding most of the messages (a long run's end, a snapshot) would
  // be about the export's size: the export is written instead.
  const std::size_t changed_messages =
      changed.edited.size() + (thread_.size() - changed.moved_from);
  if (whole || 2 * changed_messages > thread_.size()) return export_thread();
  json edited = json::array();
  for (std::size_t i : changed.edited) edited.push_back(json::array({i, thread_.at(i)}));
  json tail = json::array();
  for (std::size_t i = changed.moved_from; i < thread_.size(); ++i) tail.push_back(thread_.at(i));
  json messages = {{"from", changed.moved_from},
                   {"count", thread_.size()},
                   {"edited", std::move(edited)},
                   {"tail", std::move(tail)}};
  json change = export_with(std::move(messages), changed.state ? thread_.state() : json());
  change["format"] = "agui-client-tools/thread-change";
  if (!changed.state) change.erase("state");
  return change;
}

// One part of the export after another; the format's fields are listed at the end.
json RoundDriver::export_with(json messages, json state) const {
  json calls = json::array();
  for (const auto& c : round_) {
    json j = {{"toolCallId", c.id}, {"name", c.name}, {"args", c.args}};
    j["status"] = c.status == CallStatus::kPendingApproval ? "pending_approval"
                  : c.status == CallStatus::kRunning       ? "running"
                                                           : "answered";
    if (c.status == CallStatus::kAnswered) {
      j["content"] = c.content;
      if (c.error) j["error"] = *c.error;
    }
    calls.push_back(std::move(j));
  }
  // A run still streaming is cut by the reload: its client calls must be
  // closed on import, as a failed run's are (they never ran).
  json streaming = json::array();
  json deferred = json::array();
  if (phase_ == Phase::kRunning) {
    // Also the calls an interrupted run left for this (resume) run.
    std::vector<std::string> ids(deferred_);
    ids.insert(ids.end(), reducer_.calls_started().begin(), reducer_.calls_started().end());
    std::unordered_map<std::string, std::string> names;  // toolCallId -> tool name
    for (const auto& id : ids) names.emplace(id, std::string());
    for (std::size_t i = 0; i < thread_.size(); ++i) {
      auto list = thread_.at(i).find("toolCalls");
      if (list == thread_.at(i).end() || !list->is_array()) continue;
      for (const auto& c : *list) {
        const auto* call_id = opt_string(c, "id");
        if (auto it = call_id ? names.find(*call_id) : names.end(); it != names.end())
          it->second = call_name(c);
      }
    }
    for (const auto& id : ids) {
      if (handled_.count(id) || thread_.find_result(id)) continue;
      if (registry_->find(names[id])) streaming.push_back(id);
    }
  } else {
    for (const auto& id : deferred_) deferred.push_back(id);
  }
  json over_limit = json::object();  // calls still to be answered with the limit's error
  for (const auto& [id, bytes] : reducer_.calls_over_argument_limit()) {
    if (!handled_.count(id)) over_limit[id] = bytes;
  }
  json interrupts = json::array();
  for (const auto& i : interrupts_) interrupts.push_back(i.interrupt);
  json handled = json::array();
  std::vector<std::string> sorted(handled_.begin(), handled_.end());
  std::sort(sorted.begin(), sorted.end());
  for (auto& id : sorted) handled.push_back(id);
  json out = {{"format", "agui-client-tools/thread"},
              {"version", 1},
              {"threadId", thread_.id()},
              {"messages", std::move(messages)},
              {"state", std::move(state)},
              {"round", rounds_},
              {"calls", calls},
              {"handled", handled},
              {"interrupts", interrupts},
              {"resume", resume_},
              {"streamingCalls", streaming},
              {"deferredCalls", deferred},
              {"argumentBytesOverLimit", over_limit},
              {"idCounter", id_counter_}};
  // The turn's own forwardedProps go on with it after a reload (only when it has some).
  if (!turn_props_.empty()) out["turnForwardedProps"] = turn_props_;
  return out;
}

namespace {

Error bad_import(const std::string& what) {
  return make_error(ErrorCode::kInvalidArgument, "thread import: " + what);
}

// The fields an import cannot do without, each checked for its type: an export
// may come back edited or from another version, so a bad one is an error naming
// it, never a throw.
std::optional<Error> check_export(const json& e, const DriverOptions& options) {
  const auto* format = opt_string(e, "format");
  if (!format || *format != "agui-client-tools/thread")
    return bad_import("not an exported thread (format must be \"agui-client-tools/thread\")");
  auto version = e.find("version");
  if (version == e.end() || !version->is_number_integer() || *version != 1)
    return bad_import("unsupported version (this runtime reads version 1)");
  const auto* thread_id = opt_string(e, "threadId");
  if (!thread_id || thread_id->empty()) return bad_import("'threadId' must be a non-empty string");
  auto messages = e.find("messages");
  if (messages == e.end() || !messages->is_array())
    return bad_import("'messages' must be an array");
  // What this runtime exports nests a few levels more than the events it took
  // in (message, toolCalls, call, function): anything deeper was not ours.
  if (json_deeper_than(e, options.max_json_depth + 8)) {
    return make_error(ErrorCode::kLimitExceeded,
                      "thread import: the export nests arrays and objects deeper than " +
                          std::to_string(options.max_json_depth + 8) +
                          " levels (maxJsonDepth + 8)");
  }
  // What the thread itself requires (a MESSAGES_SNAPSHOT may bring messages
  // without a role): what was exported can always be imported.
  for (std::size_t i = 0; i < messages->size(); ++i) {
    if (!opt_string((*messages)[i], "id"))
      return bad_import("message " + std::to_string(i) + " needs a string 'id'");
  }
  auto round = e.find("round");
  if (round != e.end() && !(round->is_number_integer() && *round >= 0))
    return bad_import("'round' must be an integer >= 0");
  if (auto list = e.find("interrupts"); list != e.end() && list->is_array()) {
    for (const auto& i : *list) {
      if (!opt_string(i, "id")) return bad_import("each interrupt needs a string 'id'");
    }
  }
  if (auto calls = e.find("calls"); calls != e.end() && calls->is_array()) {
    for (const auto& j : *calls) {
      if (!opt_string(j, "toolCallId") || !opt_string(j, "status"))
        return bad_import("each call needs 'toolCallId' and 'status'");
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<std::unique_ptr<RoundDriver>, Error> RoundDriver::from_export(
    std::shared_ptr<const ToolRegistry> registry, const json& e, DriverOptions options,
    double now) {
  if (auto bad = check_export(e, options)) return *bad;
  auto driver = std::make_unique<RoundDriver>(std::move(registry), *opt_string(e, "threadId"),
                                              std::move(options));
  driver->restore_thread(e);
  driver->restore_interrupts(e);
  driver->restore_calls(e);
  driver->close_streamed_calls(e);
  // Any other call the export holds without an answer (the agent's own, left
  // open) is closed now, as before a request: the imported thread is one a
  // provider accepts.
  driver->close_calls_left_open(driver->calls_held_open());
  driver->now_ = now;
  driver->resume_imported_ = driver->cancel_expired_interrupts();
  if (!driver->round_.empty() || !driver->interrupts_.empty() || driver->resume_imported_)
    driver->phase_ = Phase::kAwaiting;
  driver->announce_imported_ = true;
  return driver;
}

// The messages, the state and the loop's counters.
void RoundDriver::restore_thread(const json& e) {
  const json& messages = e["messages"];
  thread_.replace_all(std::vector<json>(messages.begin(), messages.end()));
  if (e.contains("state")) thread_.set_state(e["state"]);
  if (auto round = e.find("round"); round != e.end())
    rounds_ = static_cast<int>(std::min<std::uint64_t>(round->get<std::uint64_t>(), 1000));
  if (auto h = e.find("handled"); h != e.end() && h->is_array()) {
    for (const auto& id : *h) {
      if (id.is_string()) handled_.insert(id.get<std::string>());
    }
  }
  if (auto r = e.find("resume"); r != e.end() && r->is_array()) resume_ = *r;
  if (auto p = e.find("turnForwardedProps"); p != e.end() && p->is_object()) turn_props_ = *p;
  if (auto o = e.find("argumentBytesOverLimit"); o != e.end() && o->is_object()) {
    for (auto it = o->begin(); it != o->end(); ++it) {
      if (it->is_number_unsigned())
        reducer_.note_argument_bytes_over_limit(it.key(), it->get<std::size_t>());
    }
  }
  if (auto d = e.find("deferredCalls"); d != e.end() && d->is_array()) {
    for (const auto& id : *d) {
      if (id.is_string()) deferred_.push_back(id.get<std::string>());
    }
  }
  if (auto n = e.find("idCounter"); n != e.end() && n->is_number_unsigned())
    id_counter_ = n->get<std::uint64_t>();
}

// Pending interrupts, with their response schemas compiled again (a bad one was
// reported when it first arrived).
void RoundDriver::restore_interrupts(const json& e) {
  auto list = e.find("interrupts");
  if (list == e.end() || !list->is_array()) return;
  for (const auto& i : *list) interrupts_.push_back(make_interrupt(i, false));
}

// The round's calls: answered ones keep their answer, pending approvals stay
// pending, and a call that was running is closed (never run twice: its handler
// may have completed before the page went away).
void RoundDriver::restore_calls(const json& e) {
  auto calls = e.find("calls");
  if (calls == e.end() || !calls->is_array()) return;
  for (const auto& j : *calls) {
    const auto& status = *opt_string(j, "status");
    const auto* name = opt_string(j, "name");
    const auto* content = opt_string(j, "content");
    auto args = j.find("args");
    Call c{*opt_string(j, "toolCallId"),
           name ? *name : std::string(),
           args != j.end() && args->is_object() ? *args : json::object(),
           CallStatus::kAnswered,
           content ? *content : std::string(),
           {}};
    handled_.insert(c.id);
    if (status == "pending_approval") {
      c.status = CallStatus::kPendingApproval;
    } else if (status == "running") {
      answer_with_error(c,
                        "the page was closed while this call was running; it may have completed, "
                        "so it was not run again");
    } else if (const auto* err = opt_string(j, "error")) {
      c.error = *err;
    }
    add_to_round(std::move(c));
  }
}

// Client calls of a run that was still streaming when the export was taken:
// they never ran, and the run that made them is gone.
void RoundDriver::close_streamed_calls(const json& e) {
  auto open = e.find("streamingCalls");
  if (open == e.end() || !open->is_array()) return;
  std::vector<Call> cut;
  for (const auto& id : *open) {
    if (!id.is_string()) continue;
    const auto& call_id = id.get_ref<const std::string&>();
    auto ref = thread_.find_tool_call(call_id);
    if (!ref || handled_.count(call_id) || thread_.find_result(call_id)) continue;
    handled_.insert(call_id);
    Call& c = cut.emplace_back(
        Call{call_id, call_name(ref->call()), json(), CallStatus::kRunning, {}, {}});
    cancel(c, "the page was closed while the run was streaming; this call was not run");
  }
  append_tool_messages(cut);
}

}  // namespace agui
