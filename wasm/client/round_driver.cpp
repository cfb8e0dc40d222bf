// The client-tool loop. See round_driver.hpp for the Step protocol and
// docs/round-loop.md for the rules it keeps.
#include "client/round_driver.hpp"

#include <algorithm>

#include "common/iso8601.hpp"
#include "common/json_text.hpp"
#include "protocol/fields.hpp"

namespace agui {

namespace {

using detail::call_function;
using detail::call_name;
using detail::opt_string;

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

RoundDriver::RoundDriver(std::shared_ptr<const ToolRegistry> registry, std::string thread_id,
                         DriverOptions options)
    : registry_(std::move(registry)),
      options_(std::move(options)),
      thread_(std::move(thread_id)),
      reducer_(thread_, changes_,
               ReducerLimits{options_.max_argument_bytes, options_.max_json_depth,
                             options_.max_message_bytes}) {}

std::string RoundDriver::next_id(const char* kind) {
  std::string id = kind;
  id += '-';
  if (!options_.id_prefix.empty()) {
    id += options_.id_prefix;
    id += '-';
  }
  const std::size_t stem = id.size();
  // Never an id the thread already holds (one a server chose, or one made
  // before a reload by a driver whose counter this one does not know).
  do {
    id.resize(stem);
    id += std::to_string(++id_counter_);
  } while (thread_.find_message(id) != nullptr);
  return id;
}

Step RoundDriver::refuse(ErrorCode code, std::string message) const {
  return Step::refused(code, std::move(message));
}

bool RoundDriver::streaming(std::string_view run_id) const {
  return phase_ == Phase::kRunning && run_id == run_id_;
}

RoundDriver::Call* RoundDriver::find_call(std::string_view id) {
  auto it = round_index_.find(std::string(id));
  return it == round_index_.end() ? nullptr : &round_[it->second];
}

void RoundDriver::clear_round() {
  round_.clear();
  approval_due_.clear();
  round_index_.clear();
  round_answered_ = 0;
}

RoundDriver::Call& RoundDriver::add_to_round(Call call) {
  round_index_.emplace(call.id, round_.size());
  round_.push_back(std::move(call));
  return round_.back();
}

// ---------------------------------------------------------------- turns

std::optional<Step> RoundDriver::read_run_options(const char* method, const json& run_options,
                                                  json& props) const {
  props = json::object();
  if (run_options.is_null()) return std::nullopt;
  const std::string where = std::string(method) + ": options";
  if (!run_options.is_object())
    return refuse(ErrorCode::kInvalidArgument, where + " must be an object");
  for (auto it = run_options.begin(); it != run_options.end(); ++it) {
    if (it.key() != "forwardedProps")
      return refuse(ErrorCode::kInvalidArgument, where + ": unknown option '" + it.key() + "'");
    if (!it->is_object())
      return refuse(ErrorCode::kInvalidArgument, where + ".forwardedProps must be an object");
    if (json_deeper_than(*it, options_.max_json_depth))
      return refuse(ErrorCode::kLimitExceeded, where + ".forwardedProps nests deeper than " +
                                                   std::to_string(options_.max_json_depth) +
                                                   " levels (maxJsonDepth)");
    props = *it;
  }
  return std::nullopt;
}

Step RoundDriver::send_step(const json& input, const json& run_options) {
  json props;
  if (auto refused = read_run_options("send()", run_options, props)) return *refused;
  std::vector<json> incoming;
  if (input.is_string()) {
    incoming.push_back(json{{"role", "user"}, {"content", input}});
  } else if (input.is_array()) {
    for (std::size_t i = 0; i < input.size(); ++i) {
      const json& m = input[i];
      const auto* role = opt_string(m, "role");
      if (role == nullptr || !m.contains("content")) {
        return refuse(ErrorCode::kInvalidArgument, "send(): message " + std::to_string(i) +
                                                       " needs a string 'role' and a 'content'");
      }
      if (const auto* id = opt_string(m, "id"); id && thread_.find_message(*id)) {
        return refuse(ErrorCode::kInvalidArgument,
                      "send(): message id '" + *id + "' is already in the thread");
      }
      if (auto refused = second_answer(input, i)) return *refused;
      if (json_deeper_than(m, options_.max_json_depth)) {
        return refuse(ErrorCode::kLimitExceeded, "send(): message " + std::to_string(i) +
                                                     " nests arrays and objects deeper than " +
                                                     std::to_string(options_.max_json_depth) +
                                                     " levels (maxJsonDepth)");
      }
      incoming.push_back(m);
    }
  } else {
    return refuse(ErrorCode::kInvalidArgument, "send() takes a string or an array of messages");
  }
  if (incoming.empty() && props.empty())
    return refuse(ErrorCode::kInvalidArgument,
                  "send(): no message to send (a run with no new message needs "
                  "options.forwardedProps)");

  Step step;
  if (phase_ == Phase::kRunning) {
    // A new message supersedes the run in flight: its stream is abandoned (later
    // bytes for it are stale) and the calls it opened are closed.
    close_unanswered_client_calls("cancelled: a new message was sent before this call could run");
  } else if (phase_ == Phase::kAwaiting) {
    // A new message while calls or interrupts are outstanding: close them first,
    // so the thread never keeps a call without an answer.
    close_open_calls("cancelled: a new message was sent before this call finished");
    close_deferred_calls("cancelled: a new message was sent before this call could run");
    cancel_pending_interrupts("a new message was sent");
  }
  if (phase_ != Phase::kIdle) {
    changes_.record(ChangeKind::kTurnEnded)
        .str("reason", "aborted")
        .str("message", "superseded by a new message");
  }
  for (auto& m : incoming) {
    if (!opt_string(m, "id")) m["id"] = next_id("msg");
    // A tool message answering a call goes right after it, as TOOL_CALL_RESULT does.
    const auto* role = opt_string(m, "role");
    json& stored = role && *role == "tool" ? thread_.insert_result(std::move(m))
                                           : thread_.append(std::move(m));
    changes_.push(ChangeKind::kMessageAdded, "message", stored);
  }
  rounds_ = 0;
  turn_props_ = std::move(props);
  repeat_key_.clear();
  repeat_count_ = 0;
  changes_.record(ChangeKind::kTurnStarted);
  return start_run(std::move(step));
}

// A tool message for a call that has its answer (in the thread, or earlier in
// the same send()) would be a second one, which providers refuse.
std::optional<Step> RoundDriver::second_answer(const json& all, std::size_t i) const {
  auto answered_call = [](const json& m) -> const std::string* {
    const auto* role = opt_string(m, "role");
    return role && *role == "tool" ? opt_string(m, "toolCallId") : nullptr;
  };
  const std::string* call_id = answered_call(all[i]);
  if (call_id == nullptr) return std::nullopt;
  bool answered = thread_.find_result(*call_id) != nullptr;
  for (std::size_t k = 0; k < i && !answered; ++k) {
    const std::string* earlier = answered_call(all[k]);
    answered = earlier && *earlier == *call_id;
  }
  if (!answered) return std::nullopt;
  return refuse(ErrorCode::kAlreadyAnswered, "send(): message " + std::to_string(i) +
                                                 " answers tool call '" + *call_id +
                                                 "', which already has an answer");
}

Step RoundDriver::start_run(Step step) {
  run_id_ = next_id("run");
  phase_ = Phase::kRunning;
  reducer_.begin_run(run_id_);
  sse_ = std::make_unique<SseParser>(options_.sse);
  // No request goes out with an open call: providers refuse such a thread, on
  // this run and every later one.
  close_calls_left_open(calls_held_open());
  write_run_input();
  changes_.record(ChangeKind::kRoundStarted).num("round", rounds_).str("runId", run_id_);
  step.run = Step::Run{run_id_};
  return step;
}

void RoundDriver::write_run_input() {
  if (tools_revision_ != registry_->revision()) {
    tools_text_ = dump_json(registry_->advertise());
    tools_revision_ = registry_->revision();
  }
  write_input(run_input_, run_id_, turn_props_, true);
  if (!resume_.empty()) {
    run_input_.pop_back();  // (the closing brace)
    run_input_ += ",\"resume\":";
    write_json(run_input_, resume_);
    run_input_ += '}';
    resume_ = json::array();
  }
}

// The RunAgentInput, its keys in the order @ag-ui/client's HttpAgent sends
// them, each message written from where the thread holds it.
void RoundDriver::write_input(std::string& out, const std::string& run_id, const json& props,
                              bool with_messages) const {
  out.assign("{\"threadId\":");
  write_json_string(out, thread_.id());
  out += ",\"runId\":";
  write_json_string(out, run_id);
  out += ",\"tools\":";
  out += tools_text_;
  out += ",\"context\":";
  write_json(out, options_.context);
  out += ",\"forwardedProps\":";
  // The turn's (or request's) own keys over the runtime's, as {...runtime, ...own} in JS.
  if (props.empty() || !options_.forwarded_props.is_object()) {
    write_json(out, props.empty() ? options_.forwarded_props : props);
  } else {
    json merged = options_.forwarded_props;
    for (auto it = props.begin(); it != props.end(); ++it) merged[it.key()] = *it;
    write_json(out, merged);
  }
  out += ",\"state\":";
  if (thread_.state().is_null()) {
    out += "{}";
  } else {
    write_json(out, thread_.state());
  }
  out += ",\"messages\":[";
  bool first = true;
  for (std::size_t i = 0; with_messages && i < thread_.size(); ++i) {
    const json& m = thread_.at(i);
    const auto* role = opt_string(m, "role");
    if (role && *role == "activity")
      continue;  // UI-only: never sent back (as the reference client)
    if (!first) out += ',';
    first = false;
    write_json(out, m);
  }
  out += "]}";
}

Step RoundDriver::end_turn(Step step, std::string reason, std::string message, std::string code,
                           const std::vector<std::string>& closed_calls) {
  phase_ = Phase::kIdle;
  clear_round();
  turn_props_ = json::object();
  step.done = Step::Done{reason, message, std::move(code), json()};
  // What the turn's last run answered, when it finished with a result.
  if (reducer_.phase() == RunPhase::kFinished) step.done->result = reducer_.result();
  {
    auto change = changes_.record(ChangeKind::kTurnEnded);
    change.str("reason", reason);
    if (!message.empty()) change.str("message", message);
    if (!closed_calls.empty()) change.value("closedCalls", closed_calls);
  }
  return step;
}

// ---------------------------------------------------------------- the stream

Step RoundDriver::feed_step(std::string_view run_id, std::string_view bytes) {
  if (!streaming(run_id)) return Step::stale_run();
  sse_events_.clear();
  const bool ok = sse_->feed(bytes, sse_events_);
  for (const auto& ev : sse_events_) {
    if (reducer_.stopped()) break;
    if (ev.data.empty()) continue;
    if (ev.invalid_utf8 > 0) {
      reducer_.report(ProblemCode::kInvalidUtf8,
                      "event data is not valid UTF-8: " + std::to_string(ev.invalid_utf8) +
                          (ev.invalid_utf8 == 1 ? " stretch" : " stretches") +
                          " replaced with U+FFFD, as TextDecoder does; applied",
                      false);
    }
    reducer_.apply_data(ev.data);
  }
  if (!ok && !reducer_.stopped()) {
    reducer_.report(ProblemCode::kLimitExceeded,
                    "an SSE event is over the limit of " +
                        std::to_string(options_.sse.max_event_bytes) +
                        " bytes (maxEventBytes); the run is stopped",
                    true);
  }
  reducer_.record_partials();
  if (reducer_.stopped()) return fail_run(reducer_.error_message(), "protocol");
  return Step{};
}

Step RoundDriver::end_of_stream_step(std::string_view run_id, double now) {
  if (!streaming(run_id)) return Step::stale_run();
  now_ = now;
  if (sse_->finish()) {
    reducer_.report(ProblemCode::kTruncatedEvent,
                    "the stream ended in the middle of an event; that event is lost", false);
  }
  return after_run();
}

Step RoundDriver::transport_failed_step(std::string_view run_id, std::string message) {
  if (!streaming(run_id)) return Step::stale_run();
  return fail_run(std::move(message), "transport");
}

Step RoundDriver::fail_run(std::string message, std::string code) {
  close_unanswered_client_calls("the run failed before this call could run: " + message);
  return end_turn(Step{}, "run_error", std::move(message), std::move(code));
}

Step RoundDriver::after_run() {
  switch (reducer_.phase()) {
    case RunPhase::kErrored: return fail_run(reducer_.error_message(), reducer_.error_code());
    case RunPhase::kNotStarted:
    case RunPhase::kRunning: return fail_run("the stream ended before RUN_FINISHED", "transport");
    case RunPhase::kFinished: break;
  }
  const json& outcome = reducer_.outcome();
  const std::string kind = outcome.value("type", "success");
  if (kind == "cancelled") {
    close_unanswered_client_calls("cancelled: the run was cancelled by the agent");
    return end_turn(Step{}, "cancelled", "the agent cancelled the run");
  }
  if (kind == "interrupt") return after_interrupt(outcome["interrupts"]);
  std::vector<std::string> outstanding = outstanding_calls(outcome);
  if (outstanding.empty()) return end_turn(Step{}, "done");
  return dispatch(outstanding);
}

// The run paused for the user: its interrupts wait for resolve_interrupt(), and
// the client calls it made (or that an interrupt names) wait for the resume run.
Step RoundDriver::after_interrupt(const json& interrupts) {
  for (const auto& i : interrupts) interrupts_.push_back(make_interrupt(i, true));
  // Client calls the interrupted run made wait for the answers: the resume run
  // dispatches them; a turn that ends another way closes them.
  for (const auto& id : reducer_.calls_started()) {
    if (!handled_.count(id) && !thread_.find_result(id)) deferred_.push_back(id);
  }
  // And a call an interrupt names (a server's call paused for the user's word).
  for (const auto& i : interrupts) {
    const auto* id = opt_string(i, "toolCallId");
    if (id && thread_.has_tool_call(*id) && !thread_.find_result(*id) &&
        std::find(deferred_.begin(), deferred_.end(), *id) == deferred_.end())
      deferred_.push_back(*id);
  }
  phase_ = Phase::kAwaiting;
  // One that arrived past its expiresAt is cancelled before the page sees it.
  if (cancel_expired_interrupts()) return start_run();
  json live = json::array();
  for (const auto& i : interrupts_) live.push_back(i.interrupt);
  if (!live.empty()) changes_.push(ChangeKind::kInterrupts, "interrupts", live);
  return Step{};
}

RoundDriver::Interrupt RoundDriver::make_interrupt(const json& i, bool report) {
  Interrupt pending{i, nullptr, std::nullopt};
  if (const auto* at = opt_string(i, "expiresAt")) pending.expires_at = parse_iso8601_ms(*at);
  auto schema = i.find("responseSchema");
  if (schema == i.end() || !schema->is_object()) return pending;
  auto compiled = CompiledSchema::compile(*schema);
  if (auto* ok = std::get_if<std::shared_ptr<const CompiledSchema>>(&compiled)) {
    pending.response_schema = *ok;
  } else if (report) {
    const auto& err = std::get<SchemaCompileError>(compiled);
    reducer_.report(ProblemCode::kInvalidResponseSchema,
                    "interrupt '" + i["id"].get<std::string>() +
                        "': responseSchema does not compile (" + err.message + " at " +
                        err.schema_path + "); any payload is accepted",
                    false);
  }
  return pending;
}

// The calls a successful run leaves to this client: the server's
// pendingToolCallIds when it sent some, else every call to one of this
// registry's tools that has no answer yet; once each, never one already
// answered or started.
std::vector<std::string> RoundDriver::outstanding_calls(const json& outcome) {
  std::vector<std::string> outstanding;
  deferred_.clear();  // an interrupted run's calls are found again here, or are not ours
  auto pending = outcome.find("pendingToolCallIds");
  if (pending != outcome.end() && pending->is_array() && !pending->empty()) {
    for (const auto& id : *pending) {
      if (!id.is_string()) continue;
      const auto& s = id.get_ref<const std::string&>();
      if (!thread_.has_tool_call(s)) {
        reducer_.report(
            ProblemCode::kUnknownPendingCall,
            "pendingToolCallIds names '" + s + "', which is not a tool call in the thread; ignored",
            false);
        continue;
      }
      outstanding.push_back(s);
    }
  } else {
    for (std::size_t i = 0; i < thread_.size(); ++i) {
      const json& m = thread_.at(i);
      auto calls = m.find("toolCalls");
      if (calls == m.end() || !calls->is_array()) continue;
      for (const auto& c : *calls) {
        const auto* id = opt_string(c, "id");
        const std::string name = call_name(c);
        if (id && registry_->find(name)) outstanding.push_back(*id);
      }
    }
  }
  // (A pendingToolCallIds list or a snapshot may repeat an id.)
  std::unordered_set<std::string> seen;
  outstanding.erase(std::remove_if(outstanding.begin(), outstanding.end(),
                                   [&](const std::string& id) {
                                     return !seen.insert(id).second || handled_.count(id) ||
                                            thread_.find_result(id) != nullptr;
                                   }),
                    outstanding.end());
  return outstanding;
}

// ---------------------------------------------------------------- dispatch

Step RoundDriver::dispatch(const std::vector<std::string>& outstanding) {
  phase_ = Phase::kAwaiting;
  clear_round();
  const bool at_cap = rounds_ >= options_.max_rounds;
  Step step;
  for (const auto& id : outstanding) {
    const json& call = thread_.find_tool_call(id)->call();
    Call c;
    c.id = id;
    c.name = call_name(call);
    handled_.insert(id);
    Call& cur = add_to_round(std::move(c));
    const Tool* tool = registry_->find(cur.name);
    json args;
    if (auto refused = why_not_run(cur, call, tool, at_cap, args)) {
      answer_with_error(cur, refused->message, std::move(refused->details), refused->state);
      continue;
    }
    cur.args = std::move(args);
    if (tool->needs_approval()) {
      cur.status = CallStatus::kPendingApproval;
      changes_.call_status(cur.id, cur.name, CallState::kPendingApproval);
      if (options_.approval_timeout_ms > 0)
        approval_due_[cur.id] = now_ + options_.approval_timeout_ms;
      changes_.push(ChangeKind::kApprovalRequested, "approval", approval_json(cur));
      continue;
    }
    start_handler(cur, *tool, step);
  }
  if (at_cap) return end_at_round_cap(std::move(step));
  return maybe_complete_round(std::move(step));
}

// Why a call of this round may not run, in the order the checks are made, or
// nothing: it may, and `args` holds its parsed arguments. The runaway guard
// counts the call as made, so it comes last.
std::optional<RoundDriver::Refusal> RoundDriver::why_not_run(const Call& cur, const json& call,
                                                             const Tool* tool, bool at_cap,
                                                             json& args) {
  if (at_cap)
    return Refusal{"round limit reached: the client runs at most " +
                       std::to_string(options_.max_rounds) +
                       " rounds of tool calls per turn, so this call was not run",
                   nullptr, CallState::kCancelled};
  if (round_.size() > options_.max_calls_per_round)
    return Refusal{"too many tool calls in one round: the client runs at most " +
                   std::to_string(options_.max_calls_per_round) +
                   " per round (maxCallsPerRound), so this call was not run"};
  if (tool == nullptr) return Refusal{"tool '" + cur.name + "' is not available in this client"};
  if (!tool->enabled)
    return Refusal{"tool '" + cur.name + "' is disabled in this client; it was not run"};
  if (auto refused = parse_arguments(cur.id, call, args)) return refused;
  if (auto issues = tool->schema->validate(args); !issues.empty())
    return Refusal{"invalid arguments", issue_details(issues)};
  if (options_.repeat_limit > 0) {
    std::string key = cur.name + '\x1f' + dump_json(args);
    repeat_count_ = key == repeat_key_ ? repeat_count_ + 1 : 1;
    repeat_key_ = std::move(key);
    if (repeat_count_ >= options_.repeat_limit)
      return Refusal{"runaway guard: '" + cur.name + "' was called " +
                     std::to_string(repeat_count_) +
                     " times in a row with the same arguments in this turn; not run again"};
  }
  return std::nullopt;
}

// A call's arguments as a JSON object (absent or blank: {}), or why they are not one.
std::optional<RoundDriver::Refusal> RoundDriver::parse_arguments(const std::string& id,
                                                                 const json& call, json& args) {
  const json* args_json = nullptr;  // absent arguments are no arguments
  if (const json* fn = call_function(call); fn && fn->contains("arguments"))
    args_json = &(*fn)["arguments"];
  const std::string args_text = args_json == nullptr || args_json->is_null() ? std::string()
                                : args_json->is_string() ? args_json->get<std::string>()
                                                         : dump_json(*args_json);
  // The stream may have sent more than the thread kept (the reducer skips
  // arguments past the limit): the message gives what the stream sent.
  const std::size_t arg_bytes = reducer_.argument_bytes_over_limit(id).value_or(args_text.size());
  if (arg_bytes > options_.max_argument_bytes)
    return Refusal{"arguments are " + std::to_string(arg_bytes) + " bytes, over the limit of " +
                   std::to_string(options_.max_argument_bytes) +
                   " (maxArgumentBytes); the call was not run"};
  if (json_text_deeper_than(args_text, options_.max_json_depth))
    return Refusal{"arguments nest arrays and objects deeper than " +
                   std::to_string(options_.max_json_depth) +
                   " levels (maxJsonDepth); the call was not run"};
  args = blank(args_text) ? json::object() : parse_json(args_text);
  if (args.is_discarded())
    return Refusal{"arguments are not valid JSON: " + args_text.substr(0, 200)};
  if (!args.is_object())
    return Refusal{std::string("arguments must be a JSON object, got ") + args.type_name()};
  return std::nullopt;
}

// The cap ends the turn: turn_ended says so and names the calls it closed (not
// a stream problem: the stream broke no rule).
Step RoundDriver::end_at_round_cap(Step step) {
  append_tool_messages(round_);
  std::vector<std::string> closed;
  closed.reserve(round_.size());
  for (const auto& c : round_) closed.push_back(c.id);
  const std::string n = std::to_string(closed.size());
  return end_turn(std::move(step), "round_limit",
                  "the turn stopped at the round limit (" + std::to_string(options_.max_rounds) +
                      "): " + n + (closed.size() == 1 ? " call" : " calls") +
                      " closed with an error result",
                  {}, closed);
}

json RoundDriver::approval_json(const Call& call) const {
  json a = {{"toolCallId", call.id},
            {"threadId", thread_.id()},
            {"name", call.name},
            {"args", call.args}};
  if (const Tool* tool = registry_->find(call.name)) {
    a["summary"] = tool->spec.display_summary();
    if (!tool->spec.confirm.empty()) a["confirm"] = tool->spec.confirm;
    a["destructive"] = tool->spec.destructive;
  }
  return a;
}

void RoundDriver::answer(Call& call, std::string content, std::optional<std::string> error,
                         std::optional<CallState> state) {
  call.status = CallStatus::kAnswered;
  call.content = std::move(content);
  call.error = std::move(error);
  const CallState to = state.value_or(call.error ? CallState::kError : CallState::kDone);
  if (changes_.call_status(call.id, call.name, to, call.error ? &*call.error : nullptr)) return;
  // A call whose result a MESSAGES_SNAPSHOT left out: the thread gets this
  // answer (no request goes out with an open call), the state stays final.
  reducer_.report(
      ProblemCode::kCallStateFinal,
      changes_.final_state_of(call.id) + ": the thread takes this answer, the state stays", false);
}

void RoundDriver::answer_with_error(Call& call, const std::string& message, json details,
                                    CallState state) {
  json content = {{"error", message}};
  if (!details.is_null()) content["details"] = std::move(details);
  answer(call, dump_json(content), message, state);
}

void RoundDriver::append_tool_messages(const std::vector<Call>& calls) {
  std::vector<json> messages;
  messages.reserve(calls.size());
  for (const auto& c : calls) {
    if (thread_.find_result(c.id) != nullptr) continue;  // one answer per call
    json& message = messages.emplace_back(json::object());
    message["id"] = next_id("tool");
    message["toolCallId"] = c.id;  // as TOOL_CALL_RESULT builds one
    message["role"] = "tool";
    message["content"] = c.content;
    if (c.error) message["error"] = *c.error;
  }
  for (json* stored : thread_.insert_results(std::move(messages)))
    changes_.push(ChangeKind::kToolResult, "message", *stored);
}

Step RoundDriver::maybe_complete_round(Step step) {
  // Calls are answered once and stay answered: each is passed over once a round.
  while (round_answered_ < round_.size() && round_[round_answered_].status == CallStatus::kAnswered)
    ++round_answered_;
  if (round_answered_ < round_.size()) return step;  // still waiting
  // Every call has its answer: append them in call order, then go round again.
  append_tool_messages(round_);
  clear_round();
  ++rounds_;
  return start_run(std::move(step));
}

// ---------------------------------------------------------------- answers

Step RoundDriver::submit_result_step(std::string_view tool_call_id, std::string content) {
  Call* call = find_call(tool_call_id);
  if (call == nullptr || call->status != CallStatus::kRunning) {
    return refuse(call ? ErrorCode::kAlreadyAnswered : ErrorCode::kUnknownToolCall,
                  "tool call '" + std::string(tool_call_id) + "' " +
                      (call ? "is not running (answered, or waiting for approval)"
                            : "is not running on thread '" + thread_.id() + "'") +
                      "; the result is ignored");
  }
  if (content.size() > options_.max_result_bytes) {
    answer_with_error(*call, "the result is " + std::to_string(content.size()) +
                                 " bytes, over the limit of " +
                                 std::to_string(options_.max_result_bytes) + " (maxResultBytes)");
  } else {
    answer(*call, std::move(content), std::nullopt);
  }
  return maybe_complete_round(Step{});
}

Step RoundDriver::submit_error_step(std::string_view tool_call_id, std::string message) {
  Call* call = find_call(tool_call_id);
  if (call == nullptr || call->status != CallStatus::kRunning) {
    return refuse(
        call ? ErrorCode::kAlreadyAnswered : ErrorCode::kUnknownToolCall,
        "tool call '" + std::string(tool_call_id) + "' is not running; the error is ignored");
  }
  if (message.size() > options_.max_result_bytes) {
    answer_with_error(*call, "the handler failed with an error message of " +
                                 std::to_string(message.size()) + " bytes, over the limit of " +
                                 std::to_string(options_.max_result_bytes) + " (maxResultBytes)");
    return maybe_complete_round(Step{});
  }
  answer_with_error(*call, message);
  return maybe_complete_round(Step{});
}

RoundDriver::Call* RoundDriver::pending_approval(std::string_view thread_id,
                                                 std::string_view tool_call_id, Step& refusal) {
  if (thread_id != thread_.id()) {
    refusal = refuse(ErrorCode::kWrongThread,
                     "tool call '" + std::string(tool_call_id) + "' belongs to thread '" +
                         thread_.id() + "', not to thread '" + std::string(thread_id) + "'");
    return nullptr;
  }
  Call* call = find_call(tool_call_id);
  if (call == nullptr) {
    refusal = refuse(ErrorCode::kUnknownToolCall,
                     "no approval is pending for tool call '" + std::string(tool_call_id) + "'");
    return nullptr;
  }
  if (call->status != CallStatus::kPendingApproval) {
    refusal = refuse(ErrorCode::kAlreadyAnswered,
                     "tool call '" + call->id + "' was already approved or answered");
    return nullptr;
  }
  return call;
}

json RoundDriver::issue_details(const std::vector<SchemaIssue>& issues) {
  json details = json::array();
  for (const auto& issue : issues) {
    details.push_back({{"path", issue.instance_path}, {"message", issue.message}});
  }
  return details;
}

void RoundDriver::start_handler(Call& call, const Tool& tool, Step& step) {
  call.status = CallStatus::kRunning;
  changes_.call_status(call.id, call.name, CallState::kRunning);
  step.execute.push_back(Step::Execute{call.id, call.name, call.args,
                                       tool.spec.timeout_ms.value_or(options_.default_timeout_ms),
                                       thread_.id(), tool.spec.idempotent});
}

Step RoundDriver::approve_step(std::string_view thread_id, std::string_view tool_call_id) {
  Step refusal;
  Call* call = pending_approval(thread_id, tool_call_id, refusal);
  if (call == nullptr) return refusal;
  // The registry may have changed while the user looked at the card (or the
  // call came back from an export): what runs must still be a registered,
  // enabled tool whose schema accepts the arguments.
  const Tool* tool = registry_->find(call->name);
  if (tool == nullptr || !tool->enabled) {
    answer_with_error(*call, "tool '" + call->name + "' " +
                                 (tool ? "was disabled" : "was removed from this client") +
                                 " while waiting for approval; it was not run");
    return maybe_complete_round(Step{});
  }
  if (auto issues = tool->schema->validate(call->args);
      !issues.empty() || !call->args.is_object()) {
    answer_with_error(*call, "invalid arguments", issue_details(issues));
    return maybe_complete_round(Step{});
  }
  Step step;
  start_handler(*call, *tool, step);
  return step;
}

Step RoundDriver::reject_step(std::string_view thread_id, std::string_view tool_call_id,
                              std::string reason) {
  Step refusal;
  Call* call = pending_approval(thread_id, tool_call_id, refusal);
  if (call == nullptr) return refusal;
  reject_call(*call, reason);
  return maybe_complete_round(Step{});
}

// The user's (or the deadline's) no to a pending approval: the tool's
// rejectedResult when it has one (a decision, not a failure), else an error.
void RoundDriver::reject_call(Call& call, const std::string& reason, CallState state) {
  const Tool* tool = registry_->find(call.name);
  if (tool != nullptr && !tool->spec.rejected_result.is_null()) {
    // The rejection is the answer (a decision), not a failure.
    json result = tool->spec.rejected_result;
    if (result.is_object() && !reason.empty()) result["reason"] = reason;
    answer(call, result.is_string() ? result.get<std::string>() : dump_json(result), std::nullopt,
           state);
  } else {
    answer_with_error(
        call, "the user rejected this call" + (reason.empty() ? std::string() : ": " + reason),
        nullptr, state);
  }
}

Step RoundDriver::resolve_interrupt_step(std::string_view interrupt_id, json payload, double now) {
  now_ = now;
  auto it = std::find_if(interrupts_.begin(), interrupts_.end(),
                         [&](const Interrupt& i) { return i.interrupt["id"] == interrupt_id; });
  if (it == interrupts_.end())
    return refuse(ErrorCode::kUnknownInterrupt,
                  "no pending interrupt '" + std::string(interrupt_id) + "'");
  // Past its expiresAt (the host's timer may not have fired yet): cancelled instead.
  if (expired(*it)) return cancel_interrupt_step(interrupt_id, expiry_reason(*it));
  if (json_deeper_than(payload, options_.max_json_depth)) {
    return refuse(ErrorCode::kLimitExceeded,
                  "the answer to interrupt '" + std::string(interrupt_id) +
                      "' nests arrays and objects deeper than " +
                      std::to_string(options_.max_json_depth) + " levels (maxJsonDepth)");
  }
  if (it->response_schema) {
    auto issues = it->response_schema->validate(payload);
    if (!issues.empty()) {
      std::string msg = "the answer to interrupt '" + std::string(interrupt_id) +
                        "' does not match its responseSchema:";
      for (const auto& issue : issues)
        msg += " " + (issue.instance_path.empty() ? "/" : issue.instance_path) + ": " +
               issue.message + ";";
      msg.pop_back();
      return refuse(ErrorCode::kInvalidArgument, msg);
    }
  }
  answer_interrupt(it->interrupt["id"], "resolved", std::move(payload));
  interrupts_.erase(it);
  if (!interrupts_.empty()) return Step{};
  return start_run();  // a resume is not a tool round: it does not count toward the cap
}

Step RoundDriver::cancel_interrupt_step(std::string_view interrupt_id, std::string reason) {
  auto it = std::find_if(interrupts_.begin(), interrupts_.end(),
                         [&](const Interrupt& i) { return i.interrupt["id"] == interrupt_id; });
  if (it == interrupts_.end())
    return refuse(ErrorCode::kUnknownInterrupt,
                  "no pending interrupt '" + std::string(interrupt_id) + "'");
  answer_interrupt(it->interrupt["id"], "cancelled",
                   reason.empty() ? json() : json{{"reason", std::move(reason)}});
  interrupts_.erase(it);
  if (!interrupts_.empty()) return Step{};
  return start_run();
}

void RoundDriver::cancel_pending_interrupts(const std::string& reason) {
  for (const auto& i : interrupts_) {
    answer_interrupt(i.interrupt["id"], "cancelled", json{{"reason", reason}});
  }
  interrupts_.clear();
}

void RoundDriver::answer_interrupt(const json& interrupt_id, std::string_view status,
                                   json payload) {
  json entry = json::object();
  entry["interruptId"] = interrupt_id;
  entry["status"] = status;
  if (!payload.is_null()) entry["payload"] = std::move(payload);
  resume_.push_back(std::move(entry));
  changes_.record(ChangeKind::kInterruptAnswered)
      .value("interruptId", interrupt_id)
      .str("status", status);
}

// ---------------------------------------------------------------- abort

void RoundDriver::close_open_calls(const std::string& why) {
  for (auto& c : round_) {
    if (c.status != CallStatus::kAnswered) cancel(c, why);
  }
  append_tool_messages(round_);
  clear_round();
}

void RoundDriver::close_unanswered_client_calls(const std::string& why) {
  // Calls this run (or the interrupted run it resumed) started to one of our
  // tools, left without an answer: close them so the next request is one a
  // provider accepts.
  std::vector<std::string> ids = std::move(deferred_);
  deferred_.clear();
  ids.insert(ids.end(), reducer_.calls_started().begin(), reducer_.calls_started().end());
  close_calls(ids, why);
}

void RoundDriver::close_deferred_calls(const std::string& why) {
  std::vector<std::string> ids = std::move(deferred_);
  deferred_.clear();
  close_calls(ids, why);
}

void RoundDriver::close_calls(const std::vector<std::string>& ids, const std::string& why) {
  std::vector<Call> closed;
  for (const auto& id : ids) {
    if (handled_.count(id) || thread_.find_result(id)) continue;
    auto ref = thread_.find_tool_call(id);
    if (!ref) continue;
    std::string name = call_name(ref->call());
    if (!registry_->find(name)) continue;
    handled_.insert(id);
    Call& c = closed.emplace_back(Call{id, std::move(name), json(), CallStatus::kRunning, {}, {}});
    cancel(c, why);
  }
  append_tool_messages(closed);
}

std::unordered_set<std::string> RoundDriver::calls_held_open() const {
  std::unordered_set<std::string> keep(deferred_.begin(), deferred_.end());
  for (const auto& c : round_) keep.insert(c.id);
  return keep;
}

void RoundDriver::close_calls_left_open(const std::unordered_set<std::string>& keep) {
  std::vector<Call> closed;
  std::unordered_set<std::string> seen;  // a snapshot may hold one call id twice
  for (std::size_t i = 0; i < thread_.size(); ++i) {
    const json& m = thread_.at(i);
    const auto* role = opt_string(m, "role");
    auto list = m.find("toolCalls");
    if (!role || *role != "assistant" || list == m.end() || !list->is_array()) continue;
    for (const auto& call : *list) {
      const auto* id = opt_string(call, "id");
      if (!id || thread_.find_result(*id) || keep.count(*id) || !seen.insert(*id).second) continue;
      handled_.insert(*id);
      Call& c =
          closed.emplace_back(Call{*id, call_name(call), json(), CallStatus::kRunning, {}, {}});
      answer_with_error(c, "no result was received from the agent for tool '" + c.name +
                               "' (call '" + c.id +
                               "'); the client closed the call with this error before sending "
                               "the thread on");
    }
  }
  append_tool_messages(closed);
}

Step RoundDriver::abort_step(std::string reason) {
  const std::string why =
      "cancelled: " + (reason.empty() ? std::string("the user aborted the turn") : reason);
  if (phase_ == Phase::kIdle) return Step{};
  if (phase_ == Phase::kRunning) close_unanswered_client_calls(why);
  close_deferred_calls(why);  // those an interrupted run left waiting
  close_open_calls(why);
  cancel_pending_interrupts(reason.empty() ? "aborted" : reason);
  return end_turn(Step{}, "aborted", reason.empty() ? "aborted by the user" : reason);
}

// ---------------------------------------------------------------- status, export

json RoundDriver::status() const {
  json approvals = json::array(), running = json::array(), interrupts = json::array();
  for (const auto& c : round_) {
    if (c.status == CallStatus::kPendingApproval) approvals.push_back(approval_json(c));
    if (c.status == CallStatus::kRunning) running.push_back(c.id);
  }
  for (const auto& i : interrupts_) interrupts.push_back(i.interrupt);
  const char* phase = phase_ == Phase::kIdle      ? "idle"
                      : phase_ == Phase::kRunning ? "running"
                                                  : "awaiting";
  json s = {{"phase", phase},
            {"threadId", thread_.id()},
            {"round", rounds_},
            {"pendingApprovals", approvals},
            {"pendingInterrupts", interrupts},
            {"running", running}};
  if (phase_ == Phase::kRunning) s["runId"] = run_id_;
  return s;
}

Step RoundDriver::continue_turn_step(double now) {
  now_ = now;
  if (announce_imported_) {
    announce_imported_ = false;
    // (Those that expired since the import, too.)
    if (cancel_expired_interrupts() || resume_imported_) return start_run();  // the resume
    announce_imported();
  }
  if (phase_ != Phase::kAwaiting || !interrupts_.empty() || round_.empty()) return Step{};
  return maybe_complete_round(Step{});
}

}  // namespace agui
