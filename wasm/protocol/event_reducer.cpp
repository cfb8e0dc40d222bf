// Folds AG-UI 1.0 events into the thread. The semantics follow @ag-ui/client's
// defaultApplyEvents (and its chunk transform) where a conforming stream is
// concerned; where a stream breaks a rule, the table in docs/ordering.md says
// what happens, and every case is reported as a Problem.
#include "protocol/event_reducer.hpp"

#include <unordered_map>

#include "common/utf8.hpp"
#include "protocol/fields.hpp"
#include "protocol/json_patch.hpp"

namespace agui {

namespace {

using detail::call_name;
using detail::opt_string;

// Bytes of the string `holder[key]` (0 when it is absent or not a string).
std::size_t held_text(const json& holder, const char* key) {
  const auto* s = opt_string(holder, key);
  return s == nullptr ? 0 : s->size();
}

// Appends a delta to a streamed string (a message's content, a call's
// arguments); a field that is not a string yet becomes the delta.
void append_to(json& field, std::string_view delta) {
  if (field.is_string()) {
    field.get_ref<std::string&>() += delta;
  } else {
    field = std::string(delta);
  }
}

bool is_role(const json* message, std::string_view role) {
  if (message == nullptr) return false;
  const auto* r = opt_string(*message, "role");
  return r != nullptr && *r == role;
}

}  // namespace

const std::unordered_map<std::string, EventReducer::Ev>& EventReducer::event_types() {
  // A table of C strings, read into the map once: as data, not as the code
  // that would construct each pair's std::string in place.
  static constexpr struct {
    const char* wire;
    Ev ev;
  } kTypes[] = {
      {"TEXT_MESSAGE_START", Ev::kTextStart},
      {"TEXT_MESSAGE_CONTENT", Ev::kTextContent},
      {"TEXT_MESSAGE_END", Ev::kTextEnd},
      {"TEXT_MESSAGE_CHUNK", Ev::kTextChunk},
      {"TOOL_CALL_START", Ev::kToolStart},
      {"TOOL_CALL_ARGS", Ev::kToolArgs},
      {"TOOL_CALL_END", Ev::kToolEnd},
      {"TOOL_CALL_CHUNK", Ev::kToolChunk},
      {"TOOL_CALL_RESULT", Ev::kToolResult},
      {"STATE_SNAPSHOT", Ev::kStateSnapshot},
      {"STATE_DELTA", Ev::kStateDelta},
      {"MESSAGES_SNAPSHOT", Ev::kMessagesSnapshot},
      {"ACTIVITY_SNAPSHOT", Ev::kActivitySnapshot},
      {"ACTIVITY_DELTA", Ev::kActivityDelta},
      {"RAW", Ev::kRaw},
      {"CUSTOM", Ev::kCustom},
      {"RUN_STARTED", Ev::kRunStarted},
      {"RUN_FINISHED", Ev::kRunFinished},
      {"RUN_ERROR", Ev::kRunError},
      {"STEP_STARTED", Ev::kStepStarted},
      {"STEP_FINISHED", Ev::kStepFinished},
      {"REASONING_START", Ev::kReasoningStart},
      {"REASONING_MESSAGE_START", Ev::kReasoningMessageStart},
      {"REASONING_MESSAGE_CONTENT", Ev::kReasoningMessageContent},
      {"REASONING_MESSAGE_END", Ev::kReasoningMessageEnd},
      {"REASONING_MESSAGE_CHUNK", Ev::kReasoningMessageChunk},
      {"REASONING_END", Ev::kReasoningEnd},
      {"REASONING_ENCRYPTED_VALUE", Ev::kReasoningEncryptedValue},
      {"SUBAGENT_STARTED", Ev::kSubagentStarted},
      {"SUBAGENT_FINISHED", Ev::kSubagentFinished},
      {"SUBAGENT_ERROR", Ev::kSubagentError},
  };
  static const std::unordered_map<std::string, Ev> types = [] {
    std::unordered_map<std::string, Ev> map;
    for (const auto& t : kTypes) map.emplace(t.wire, t.ev);
    return map;
  }();
  return types;
}

bool json_text_deeper_than(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

bool json_deeper_than(const json& value, std::size_t limit) {
  std::vector<std::pair<const json*, std::size_t>> stack{{&value, 0}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    if (depth + 1 > limit) return true;
    for (const auto& child : *v) stack.emplace_back(&child, depth + 1);
  }
  return false;
}

EventReducer::EventReducer(Thread& thread, ChangeLog& changes, ReducerLimits limits)
    : thread_(thread), changes_(changes), limits_(limits) {}

std::optional<std::size_t> EventReducer::argument_bytes_over_limit(
    std::string_view tool_call_id) const {
  auto it = over_limit_.find(std::string(tool_call_id));
  if (it == over_limit_.end()) return std::nullopt;
  return it->second;
}

void EventReducer::begin_run(std::string run_id) {
  flush_halves();  // the last run's, when its stream broke off mid-pair
  phase_ = RunPhase::kNotStarted;
  result_ = json();
  stopped_ = false;
  index_ = 0;
  fast_events_ = 0;
  run_id_ = std::move(run_id);
  outcome_ = json();
  error_message_.clear();
  error_code_.clear();
  problems_.clear();
  calls_started_.clear();
  partials_.clear();
  partials_touched_.clear();
  open_messages_.clear();
  ended_messages_.clear();
  open_calls_.clear();
  ended_calls_.clear();
  open_chunks_.clear();
}

void EventReducer::problem(const std::string& type, ProblemCode code, std::string message,
                           bool fatal) {
  Problem p{index_, type, std::string(to_string(code)), std::move(message), fatal};
  changes_.record(ChangeKind::kProblem)
      .num("index", static_cast<long long>(p.index))
      .str("eventType", p.event_type)
      .str("code", p.code)
      .str("message", p.message)
      .flag("fatal", p.fatal);
  problems_.push_back(std::move(p));
  if (fatal) stop(problems_.back().message);
}

void EventReducer::stop(std::string message) {
  if (stopped_) return;
  stopped_ = true;
  if (phase_ != RunPhase::kErrored) {
    phase_ = RunPhase::kErrored;
    error_message_ = std::move(message);
    error_code_ = "protocol";
  }
}

void EventReducer::report(ProblemCode code, std::string message, bool fatal) {
  problem("", code, std::move(message), fatal);
}

const std::string* EventReducer::need_string(const json& e, const std::string& type,
                                             const char* key) {
  const auto* s = opt_string(e, key);
  if (s == nullptr) {
    problem(type, ProblemCode::kMissingField,
            type + ": field '" + key + "' is missing or not a string; event skipped");
  }
  return s;
}

std::string EventReducer::lane_key(const json& e) {
  const auto* s = opt_string(e, "subagentRunId");
  return s == nullptr ? std::string() : *s;
}

void EventReducer::apply_data(std::string_view data) {
  struct Folding {
    std::string_view& data;
    ~Folding() { data = {}; }
  } folding{data_ = data};
  // Most events are flat objects of strings: read those without the parser.
  FlatMember members[kFlatMembers];
  if (const std::size_t n = read_flat_string_object(data, members, kFlatMembers)) {
    if (apply_delta_fast(members, n)) return;
    if (auto event = flat_object_json(members, n)) {
      apply_event(*event);
      return;
    }
    // An escape that is not JSON: the parser below reports it.
  }
  if (json_text_deeper_than(data, limits_.max_json_depth)) {
    // Checked on the text, so that nothing that deep is ever built.
    problem("", ProblemCode::kLimitExceeded,
            "event data nests arrays and objects deeper than " +
                std::to_string(limits_.max_json_depth) + " levels (maxJsonDepth, " +
                std::to_string(data.size()) + " bytes); event skipped");
    ++index_;
    return;
  }
  json event = parse_json(data);
  if (event.is_discarded()) {
    std::string head(data.substr(0, 60));
    problem("", ProblemCode::kInvalidJson,
            "event data is not valid JSON (" + std::to_string(data.size()) +
                " bytes, starting: " + head + "); event skipped");
    ++index_;
    return;
  }
  apply_event(event);
}

bool EventReducer::apply_delta_fast(const FlatMember* members, std::size_t count) {
  if (count != 3 || stopped_ || phase_ != RunPhase::kRunning || !open_chunks_.empty()) return false;
  const FlatMember* type = nullptr;
  const FlatMember* id = nullptr;
  const FlatMember* delta = nullptr;
  for (const FlatMember* m = members; m != members + count; ++m) {
    if (m->key == "type")
      type = m;
    else if (m->key == "delta")
      delta = m;
    else
      id = m;
  }
  if (type == nullptr || delta == nullptr || type->escaped) return false;
  const bool text = type->raw == "TEXT_MESSAGE_CONTENT" || type->raw == "REASONING_MESSAGE_CONTENT";
  if (!text && type->raw != "TOOL_CALL_ARGS") return false;
  if (id->key != (text ? "messageId" : "toolCallId")) return false;

  auto decoded = [](const FlatMember& m, std::string& scratch) -> std::optional<std::string_view> {
    if (!m.escaped) return m.raw;
    if (!unescape_json_string(m.raw, scratch)) return std::nullopt;
    return std::string_view(scratch);
  };
  const auto id_text = decoded(*id, scratch_id_);
  const auto delta_text = id_text ? decoded(*delta, scratch_delta_) : std::nullopt;
  if (!delta_text) return false;
  const std::string id_key(*id_text);

  if (text) {
    json* m = thread_.find_message(id_key);
    if (m == nullptr || is_role(m, "activity") || !open_messages_.count(id_key) ||
        held_text(*m, "content") + delta_text->size() > limits_.max_message_bytes)
      return false;
    append_text(*m, id_key, *delta_text);
  } else {
    auto ref = thread_.find_tool_call(id_key);
    if (!ref || !open_calls_.count(id_key) || over_limit_.count(id_key)) return false;
    json& function = ref->call()["function"];
    if (held_text(function, "arguments") + delta_text->size() > limits_.max_argument_bytes)
      return false;
    append_args(function, id_key, *delta_text);
  }
  ++index_;
  ++fast_events_;
  return true;
}

void EventReducer::merge_metadata_of(json& target, const json& e, std::string_view id_key,
                                     std::string_view id) {
  if (merge_metadata(target, e))
    changes_.record(ChangeKind::kMetadataMerged)
        .str(id_key, id)
        .value("metadata", target["metadata"]);
}

void EventReducer::append_text(json& message, std::string_view id, std::string_view delta,
                               bool join) {
  if (join) delta = join_halves('m', id, delta);
  append_to(message["content"], delta);
  changes_.record(ChangeKind::kTextAppended).str("messageId", id).str("delta", delta);
}

void EventReducer::append_args(json& function, std::string_view call_id, std::string_view delta,
                               bool join) {
  if (join) delta = join_halves('c', call_id, delta);
  append_to(function["arguments"], delta);
  changes_.record(ChangeKind::kToolCallArgs).str("toolCallId", call_id).str("delta", delta);
  auto it = partials_.try_emplace(std::string(call_id), limits_.max_json_depth).first;
  if (it->second.args.failed()) return;
  it->second.args.feed(delta);
  if (partials_touched_.empty() || partials_touched_.back() != it->first)
    partials_touched_.push_back(it->first);
}

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD, as a lone half decodes
bool starts_odd(std::string_view s) { return s.substr(0, 3) == kReplacement; }
bool ends_odd(std::string_view s) {
  return s.size() >= 3 && s.substr(s.size() - 3) == kReplacement;
}
}  // namespace

std::string_view EventReducer::join_halves(char lane, std::string_view id, std::string_view delta) {
  if (held_high_.empty() && !ends_odd(delta)) return delta;  // the usual case
  std::string key(1, lane);
  key += id;
  auto held = held_high_.find(key);
  if (held == held_high_.end() && !ends_odd(delta)) return delta;
  SurrogateEdges edges;
  if (!data_.empty() && (starts_odd(delta) || ends_odd(delta))) {
    if (auto raw = raw_string_member(data_, "delta")) edges = lone_surrogate_edges(*raw);
  }
  joined_.clear();
  if (held != held_high_.end()) {
    if (edges.leading_low != 0) {
      const auto high = static_cast<std::uint32_t>(held->second);
      append_utf8(joined_, 0x10000 + ((high - 0xD800) << 10) + (edges.leading_low - 0xDC00));
      delta.remove_prefix(kReplacement.size());
    } else {
      joined_ += kReplacement;
    }
    held_high_.erase(key);
  }
  if (edges.trailing_high != 0 && ends_odd(delta)) {
    delta.remove_suffix(kReplacement.size());
    held_high_[key] = edges.trailing_high;
  }
  joined_ += delta;
  return joined_;
}

void EventReducer::flush_half(char lane, const std::string& id) {
  if (held_high_.empty()) return;
  std::string key(1, lane);
  key += id;
  if (held_high_.find(key) == held_high_.end()) return;
  held_high_.erase(key);
  if (lane == 'm') {
    if (json* m = thread_.find_message(id)) append_text(*m, id, kReplacement, false);
  } else if (auto ref = thread_.find_tool_call(id)) {
    append_args(ref->call()["function"], id, kReplacement, false);
  }
}

void EventReducer::flush_halves() {
  while (!held_high_.empty()) {
    const std::string key = held_high_.begin()->first;
    flush_half(key[0], key.substr(1));
  }
}

void EventReducer::record_partials() {
  for (const auto& id : partials_touched_) record_partial(id);
  partials_touched_.clear();
}

// One tool_call_partial for the call, with how its value grew since the last
// one (see partial_json.hpp), when it did; and once, when its arguments stop
// being JSON, why.
void EventReducer::record_partial(const std::string& call_id) {
  auto it = partials_.find(call_id);
  if (it == partials_.end()) return;
  Partial& p = it->second;
  const bool tell_invalid = p.args.failed() && !p.invalid_told;
  if (!p.args.has_ops() && !tell_invalid) return;
  auto change = changes_.record(ChangeKind::kToolCallPartial);
  change.str("toolCallId", call_id).raw("ops", p.args.take_ops());
  if (tell_invalid) {
    p.invalid_told = true;
    change.str("invalid", p.args.error());
  }
}

void EventReducer::apply(const json& e) {
  if (json_deeper_than(e, limits_.max_json_depth)) {
    problem("", ProblemCode::kLimitExceeded,
            "event nests arrays and objects deeper than " + std::to_string(limits_.max_json_depth) +
                " levels (maxJsonDepth); event skipped");
    ++index_;
    return;
  }
  apply_event(e);
}

// One event, whole: checked (a JSON object of a known type), admitted by the run's
// phase, closing the chunk streams it ends, then handed to its kind's function.
void EventReducer::apply_event(const json& e) {
  struct Advance {
    std::size_t& i;
    ~Advance() { ++i; }
  } advance{index_};

  if (stopped_) return;
  const std::optional<Ev> ev = event_kind(e);
  if (!ev) return;
  const std::string& type = e["type"].get_ref<const std::string&>();
  if (!admitted(*ev, type)) return;
  close_streams_before(*ev, e);
  dispatch(*ev, e, type);
}

std::optional<EventReducer::Ev> EventReducer::event_kind(const json& e) {
  if (!e.is_object()) {
    problem("", ProblemCode::kInvalidEvent, "event is not a JSON object; event skipped");
    return std::nullopt;
  }
  const auto* type = opt_string(e, "type");
  if (type == nullptr) {
    problem("", ProblemCode::kInvalidEvent, "event has no string 'type'; event skipped");
    return std::nullopt;
  }
  auto found = event_types().find(*type);
  if (found == event_types().end()) {
    problem(*type, ProblemCode::kUnknownEvent, "unknown event type '" + *type + "'; event skipped");
    return std::nullopt;
  }
  return found->second;
}

// The run's phase decides: nothing after the run ended but a new RUN_STARTED,
// and anything before RUN_STARTED is applied with a problem.
bool EventReducer::admitted(Ev ev, const std::string& type) {
  if (phase_ == RunPhase::kFinished || phase_ == RunPhase::kErrored) {
    if (ev != Ev::kRunStarted) {
      problem(type, ProblemCode::kAfterRunEnd,
              type + " after the run ended (" +
                  (phase_ == RunPhase::kFinished ? "RUN_FINISHED" : "RUN_ERROR") +
                  "); event skipped");
      return false;
    }
    // A stream may carry several runs in a row (as the reference client
    // accepts): the next one starts where the last ended. The last outcome counts.
    phase_ = RunPhase::kNotStarted;
    outcome_ = json();
    result_ = json();
    error_message_.clear();
    error_code_.clear();
  }
  if (phase_ == RunPhase::kNotStarted && ev != Ev::kRunStarted) {
    problem(type, ProblemCode::kBeforeRunStarted, type + " before RUN_STARTED; applied");
    phase_ = RunPhase::kRunning;
  }
  return true;
}

// Which events close a lane's open chunk stream (as the reference transform does).
void EventReducer::close_streams_before(Ev ev, const json& e) {
  switch (ev) {
    case Ev::kRunStarted:
    case Ev::kRunFinished:
    case Ev::kRunError:
    case Ev::kMessagesSnapshot: close_all_open_streams(); break;
    case Ev::kTextChunk:
    case Ev::kToolChunk:
    case Ev::kReasoningMessageChunk:
    case Ev::kRaw:
    case Ev::kActivitySnapshot:
    case Ev::kActivityDelta:
    case Ev::kReasoningEncryptedValue:
    case Ev::kSubagentStarted: break;
    default:  // SUBAGENT_FINISHED and SUBAGENT_ERROR among them
      close_open_streams(lane_key(e));
  }
}

void EventReducer::dispatch(Ev ev, const json& e, const std::string& type) {
  switch (ev) {
    case Ev::kTextStart:
    case Ev::kReasoningMessageStart: return on_text_start(e, type);
    case Ev::kTextContent:
    case Ev::kReasoningMessageContent: return on_text_content(e, type);
    case Ev::kTextEnd:
    case Ev::kReasoningMessageEnd: return on_text_end(e, type);
    case Ev::kTextChunk: return on_text_chunk(e, type, Lane::kText);
    case Ev::kReasoningMessageChunk: return on_text_chunk(e, type, Lane::kReasoning);
    case Ev::kToolStart: return on_tool_start(e, type);
    case Ev::kToolArgs: return on_tool_args(e, type);
    case Ev::kToolEnd: return on_tool_end(e, type);
    case Ev::kToolChunk: return on_tool_chunk(e, type);
    case Ev::kToolResult: return on_tool_result(e, type);
    case Ev::kStateSnapshot: return on_state_snapshot(e, type);
    case Ev::kStateDelta: return on_state_delta(e, type);
    case Ev::kMessagesSnapshot: return on_messages_snapshot(e, type);
    case Ev::kActivitySnapshot: return on_activity_snapshot(e, type);
    case Ev::kActivityDelta: return on_activity_delta(e, type);
    case Ev::kReasoningEncryptedValue: return on_encrypted_value(e, type);
    case Ev::kRunStarted: return on_run_started(e, type);
    case Ev::kRunFinished: return on_run_finished(e, type);
    case Ev::kRunError: return on_run_error(e);
    case Ev::kRaw:
    case Ev::kCustom:
    case Ev::kStepStarted:
    case Ev::kStepFinished:
    case Ev::kReasoningStart:
    case Ev::kReasoningEnd:
    case Ev::kSubagentStarted:
    case Ev::kSubagentFinished:
    case Ev::kSubagentError: return pass_through(e);
  }
}

void EventReducer::on_text_start(const json& e, const std::string& type) {
  if (const auto* id = need_string(e, type, "messageId")) start_message(e, type, *id);
}

void EventReducer::on_text_content(const json& e, const std::string& type) {
  const auto* id = need_string(e, type, "messageId");
  const auto* delta = id ? need_string(e, type, "delta") : nullptr;
  if (delta) add_message_content(e, type, *id, *delta);
}

void EventReducer::on_text_end(const json& e, const std::string& type) {
  const auto* id = need_string(e, type, "messageId");
  if (!id) return;
  json* m = thread_.find_message(*id);
  if (m == nullptr) {
    problem(type, ProblemCode::kUnknownMessage,
            type + " for message '" + *id + "' that was never started; event skipped");
    return;
  }
  if (is_role(m, "activity")) {
    problem(type, ProblemCode::kActivityMessage,
            type + ": '" + *id + "' is an activity message; event skipped");
    return;
  }
  if (open_messages_.erase(*id) == 0 && ended_messages_.count(*id)) {
    problem(type, ProblemCode::kAlreadyEnded,
            type + " for message '" + *id + "' that already ended; ignored");
  }
  ended_messages_.insert(*id);
  flush_half('m', *id);
  merge_metadata_of(*m, e, "messageId", *id);
  changes_.push(ChangeKind::kMessageEnded, "messageId", *id);
}

void EventReducer::on_tool_start(const json& e, const std::string& type) {
  const auto* id = need_string(e, type, "toolCallId");
  const auto* name = id ? need_string(e, type, "toolCallName") : nullptr;
  if (name) start_tool_call(e, type, *id, *name);
}

void EventReducer::on_tool_args(const json& e, const std::string& type) {
  const auto* id = need_string(e, type, "toolCallId");
  const auto* delta = id ? need_string(e, type, "delta") : nullptr;
  if (delta) add_tool_call_args(e, type, *id, *delta);
}

void EventReducer::on_tool_end(const json& e, const std::string& type) {
  const auto* id = need_string(e, type, "toolCallId");
  if (!id) return;
  auto ref = thread_.find_tool_call(*id);
  if (!ref) {
    problem(type, ProblemCode::kUnknownToolCall,
            type + " for tool call '" + *id + "' that was never started; event skipped");
    return;
  }
  if (open_calls_.erase(*id) == 0) {
    // Ended twice, or replayed in a later run: its arguments are complete, and
    // its state (ready, or final by now) stays.
    problem(type, ProblemCode::kAlreadyEnded,
            type + " for tool call '" + *id + "' that already ended; ignored");
    return;
  }
  ended_calls_.insert(*id);
  merge_metadata_of(ref->call(), e, "toolCallId", *id);
  end_tool_call(*id, ref->call());
}

// A call's arguments are complete: their last growth, the end, and the state.
void EventReducer::end_tool_call(const std::string& call_id, const json& call) {
  flush_half('c', call_id);
  record_partial(call_id);
  changes_.push(ChangeKind::kToolCallEnded, "toolCallId", call_id);
  changes_.call_status(call_id, call_name(call), CallState::kReady);
}

void EventReducer::on_state_snapshot(const json& e, const std::string& type) {
  auto it = e.find("snapshot");
  if (it == e.end()) {
    problem(type, ProblemCode::kMissingField,
            type + ": field 'snapshot' is missing; event skipped");
    return;
  }
  thread_.set_state(*it);
  changes_.push(ChangeKind::kStateReplaced, "state", *it);
}

void EventReducer::on_run_error(const json& e) {
  flush_halves();
  const auto* message = opt_string(e, "message");
  const auto* code = opt_string(e, "code");
  phase_ = RunPhase::kErrored;
  error_message_ = message ? *message : std::string("the run failed (RUN_ERROR without a message)");
  error_code_ = code ? *code : std::string();
  auto change = changes_.record(ChangeKind::kRunError);
  change.str("message", error_message_);
  if (code) change.str("code", *code);
}

// Patches build values deeper than any one event may be (a value added at a
// deep path): the result is held to the same limit.
bool EventReducer::state_too_deep(const json& value, const std::string& type,
                                  const std::string& what) {
  if (!json_deeper_than(value, limits_.max_json_depth)) return false;
  problem(type, ProblemCode::kLimitExceeded,
          type + ": the patch would make " + what + " nest deeper than " +
              std::to_string(limits_.max_json_depth) + " levels (maxJsonDepth); " + what +
              " left as it was");
  return true;
}

void EventReducer::pass_through(const json& e) { changes_.push(ChangeKind::kEvent, "event", e); }

void EventReducer::start_message(const json& e, const std::string& type, const std::string& id) {
  const bool reasoning = type == "REASONING_MESSAGE_START";
  json* existing = thread_.find_message(id);
  if (is_role(existing, "activity")) {
    problem(type, ProblemCode::kActivityMessage,
            type + ": '" + id + "' is an activity message; event skipped");
    return;
  }
  if (open_messages_.count(id)) {
    problem(type, ProblemCode::kAlreadyStarted,
            type + " for message '" + id + "' that is already open; ignored");
  }
  open_messages_.insert(id);
  ended_messages_.erase(id);
  if (existing != nullptr) {
    merge_metadata_of(*existing, e, "messageId", id);
    return;
  }
  // Messages are built member by member: an initializer list copies each value twice.
  // Members in @ag-ui/client's order: id, role, content, name.
  json message = json::object();
  message["id"] = id;
  const auto* role = reasoning ? nullptr : opt_string(e, "role");
  message["role"] = reasoning ? std::string("reasoning") : role ? *role : std::string("assistant");
  message["content"] = "";
  if (!reasoning) {
    if (const auto* name = opt_string(e, "name")) message["name"] = *name;
  }
  if (const auto* sub = opt_string(e, "subagentRunId")) message["subagentRunId"] = *sub;
  merge_metadata(message, e);
  json& stored = thread_.append(std::move(message));
  changes_.push(ChangeKind::kMessageAdded, "message", stored);
}

void EventReducer::add_message_content(const json& e, const std::string& type,
                                       const std::string& id, const std::string& delta) {
  json* m = thread_.find_message(id);
  if (m == nullptr) {
    problem(type, ProblemCode::kUnknownMessage,
            type + " for message '" + id + "' that was never started; event skipped");
    return;
  }
  if (is_role(m, "activity")) {
    problem(type, ProblemCode::kActivityMessage,
            type + ": '" + id + "' is an activity message; event skipped");
    return;
  }
  if (!open_messages_.count(id) && ended_messages_.count(id)) {
    problem(type, ProblemCode::kAfterEnd,
            type + " for message '" + id + "' after its END; applied");
  }
  if (held_text(*m, "content") + delta.size() > limits_.max_message_bytes) {
    problem(type, ProblemCode::kLimitExceeded,
            type + " for message '" + id + "' takes its text past " +
                std::to_string(limits_.max_message_bytes) +
                " bytes (maxMessageBytes); the run is stopped",
            true);
    return;
  }
  merge_metadata_of(*m, e, "messageId", id);
  append_text(*m, id, delta);
}

void EventReducer::start_tool_call(const json& e, const std::string& type,
                                   const std::string& call_id, const std::string& name) {
  if (auto ref = thread_.find_tool_call(call_id)) {
    problem(type, ProblemCode::kDuplicateToolCall,
            type + " for tool call '" + call_id + "' that already exists; the first call is kept");
    return;
  }
  const auto* parent_id = opt_string(e, "parentMessageId");
  json* parent = parent_id ? thread_.find_message(*parent_id) : nullptr;
  if (parent != nullptr && !is_role(parent, "assistant")) {
    // A snapshot may have brought the parent without a role.
    const auto* role = opt_string(*parent, "role");
    problem(type, ProblemCode::kParentNotAssistant,
            type + ": parentMessageId '" + *parent_id + "' is " +
                (role ? "a " + *role + " message" : std::string("a message without a role")) +
                "; the call gets its own assistant message");
    parent = nullptr;
  }
  if (parent == nullptr) {
    std::string new_id = (parent_id && !thread_.find_message(*parent_id)) ? *parent_id : call_id;
    json assistant = json::object();
    assistant["id"] = std::move(new_id);
    assistant["role"] = "assistant";
    assistant["toolCalls"] = json::array();
    if (const auto* sub = opt_string(e, "subagentRunId")) assistant["subagentRunId"] = *sub;
    parent = &thread_.append(std::move(assistant));
    changes_.push(ChangeKind::kMessageAdded, "message", *parent);
  }
  json call = json::object();
  call["id"] = call_id;
  call["type"] = "function";
  json& function = call["function"];
  function["name"] = name;
  function["arguments"] = "";
  merge_metadata(call, e);
  json& stored = thread_.add_tool_call(*parent, std::move(call));
  open_calls_.insert(call_id);
  calls_started_.push_back(call_id);
  changes_.record(ChangeKind::kToolCallAdded)
      .value("messageId", (*parent)["id"])
      .value("toolCall", stored);
  changes_.call_status(call_id, name, CallState::kStreaming);
}

void EventReducer::add_tool_call_args(const json& e, const std::string& type,
                                      const std::string& call_id, const std::string& delta) {
  auto ref = thread_.find_tool_call(call_id);
  if (!ref) {
    problem(type, ProblemCode::kUnknownToolCall,
            type + " for tool call '" + call_id + "' that was never started; event skipped");
    return;
  }
  if (!open_calls_.count(call_id)) {
    problem(type, ended_calls_.count(call_id) ? ProblemCode::kAfterEnd : ProblemCode::kNotOpen,
            type + " for tool call '" + call_id +
                "' that is not open (its arguments are complete); event skipped");
    return;
  }
  if (auto over = over_limit_.find(call_id); over != over_limit_.end()) {
    over->second += delta.size();  // past the limit already: counted, skipped
    return;
  }
  json& call = ref->call();
  const std::size_t held = held_text(call["function"], "arguments");
  if (held + delta.size() > limits_.max_argument_bytes) {
    over_limit_[call_id] = held + delta.size();
    problem(type, ProblemCode::kLimitExceeded,
            type + " for tool call '" + call_id + "' takes its arguments past " +
                std::to_string(limits_.max_argument_bytes) +
                " bytes (maxArgumentBytes); the rest of its arguments is skipped and the call "
                "is answered with an error");
    return;
  }
  merge_metadata_of(call, e, "toolCallId", call_id);
  append_args(call["function"], call_id, delta);
}

void EventReducer::close_open_streams(const std::string& lane) {
  auto it = open_chunks_.find(lane);
  if (it == open_chunks_.end()) return;
  OpenChunk chunk = it->second;
  open_chunks_.erase(it);
  if (chunk.lane == Lane::kTool) {
    if (open_calls_.erase(chunk.id)) {
      ended_calls_.insert(chunk.id);
      if (auto ref = thread_.find_tool_call(chunk.id)) end_tool_call(chunk.id, ref->call());
    }
  } else if (open_messages_.erase(chunk.id)) {
    ended_messages_.insert(chunk.id);
    flush_half('m', chunk.id);
    changes_.push(ChangeKind::kMessageEnded, "messageId", chunk.id);
  }
}

void EventReducer::close_all_open_streams() {
  while (!open_chunks_.empty()) close_open_streams(open_chunks_.begin()->first);
}

void EventReducer::on_text_chunk(const json& e, const std::string& type, Lane lane) {
  const std::string key = lane_key(e);
  const auto* id = opt_string(e, "messageId");
  auto open = open_chunks_.find(key);
  const bool continues = open != open_chunks_.end() && open->second.lane == lane &&
                         (id == nullptr || *id == open->second.id);
  std::string message_id;
  if (continues) {
    message_id = open->second.id;
  } else {
    close_open_streams(key);
    if (id == nullptr) {
      problem(type, ProblemCode::kMissingField,
              type + " opens a new message but has no messageId; event skipped");
      return;
    }
    message_id = *id;
    json start = {{"type", lane == Lane::kText ? "TEXT_MESSAGE_START" : "REASONING_MESSAGE_START"},
                  {"messageId", message_id}};
    for (const char* k : {"role", "name", "subagentRunId", "metadata"}) {
      if (lane == Lane::kReasoning &&
          (std::string_view(k) == "role" || std::string_view(k) == "name"))
        continue;
      if (auto it = e.find(k); it != e.end()) start[k] = *it;
    }
    start_message(start, start["type"].get<std::string>(), message_id);
    open_chunks_[key] = OpenChunk{lane, message_id};
    if (!e.contains("delta")) return;
  }
  const auto* delta = opt_string(e, "delta");
  json content = {{"messageId", message_id}};
  if (continues) {
    if (auto it = e.find("metadata"); it != e.end()) content["metadata"] = *it;
  }
  add_message_content(content,
                      lane == Lane::kText ? "TEXT_MESSAGE_CONTENT" : "REASONING_MESSAGE_CONTENT",
                      message_id, delta ? *delta : std::string());
}

void EventReducer::on_tool_chunk(const json& e, const std::string& type) {
  const std::string key = lane_key(e);
  const auto* id = opt_string(e, "toolCallId");
  auto open = open_chunks_.find(key);
  const bool continues = open != open_chunks_.end() && open->second.lane == Lane::kTool &&
                         (id == nullptr || *id == open->second.id);
  std::string call_id;
  if (continues) {
    call_id = open->second.id;
  } else {
    close_open_streams(key);
    const auto* name = opt_string(e, "toolCallName");
    if (id == nullptr || name == nullptr) {
      problem(type, ProblemCode::kMissingField,
              type + " opens a new tool call but has no " +
                  (id == nullptr ? "toolCallId" : "toolCallName") + "; event skipped");
      return;
    }
    call_id = *id;
    start_tool_call(e, "TOOL_CALL_START", call_id, *name);
    open_chunks_[key] = OpenChunk{Lane::kTool, call_id};
    if (!e.contains("delta")) return;
  }
  const auto* delta = opt_string(e, "delta");
  json args = json::object();
  if (continues) {
    if (auto it = e.find("metadata"); it != e.end()) args["metadata"] = *it;
  }
  add_tool_call_args(args, "TOOL_CALL_ARGS", call_id, delta ? *delta : std::string());
}

void EventReducer::on_tool_result(const json& e, const std::string& type) {
  const auto* message_id = need_string(e, type, "messageId");
  const auto* call_id = message_id ? need_string(e, type, "toolCallId") : nullptr;
  if (!call_id) return;
  auto content = e.find("content");
  if (content == e.end() || !(content->is_string() || content->is_array())) {
    problem(type, ProblemCode::kMissingField,
            type + ": field 'content' must be a string or an array of parts; event skipped");
    return;
  }
  if (thread_.find_result(*call_id) != nullptr) {
    problem(type, ProblemCode::kDuplicateResult,
            type + " for tool call '" + *call_id +
                "' that already has a result; the first result is kept");
    return;
  }
  if (thread_.find_message(*message_id) != nullptr) {
    problem(type, ProblemCode::kDuplicateMessage,
            type + ": message id '" + *message_id + "' is already in the thread; event skipped");
    return;
  }
  if (!thread_.has_tool_call(*call_id)) {
    problem(type, ProblemCode::kUnknownToolCall,
            type + " for tool call '" + *call_id + "' not in the thread; applied");
  }
  const auto* role = opt_string(e, "role");
  json message = json::object();
  message["id"] = *message_id;
  message["toolCallId"] = *call_id;  // @ag-ui/client's order: id, toolCallId, role, content
  message["role"] = role ? *role : std::string("tool");
  message["content"] = *content;
  if (const auto* sub = opt_string(e, "subagentRunId")) message["subagentRunId"] = *sub;
  merge_metadata(message, e);
  json& stored = thread_.insert_result(std::move(message));
  changes_.push(ChangeKind::kToolResult, "message", stored);
  auto ref = thread_.find_tool_call(*call_id);
  if (ref && !changes_.call_status(*call_id, call_name(ref->call()), CallState::kDone)) {
    problem(type, ProblemCode::kCallStateFinal,
            type + ": " + changes_.final_state_of(*call_id) + "; applied, the state stays");
  }
}

void EventReducer::on_state_delta(const json& e, const std::string& type) {
  auto delta = e.find("delta");
  if (delta == e.end()) {
    problem(type, ProblemCode::kMissingField, type + ": field 'delta' is missing; event skipped");
    return;
  }
  json state = thread_.state();
  if (auto err = apply_json_patch(state, *delta)) {
    problem(type, ProblemCode::kPatchFailed,
            type + ": the patch does not apply (" + *err + "); state left as it was");
    return;
  }
  if (state_too_deep(state, type, "the state")) return;
  thread_.set_state(std::move(state));
  changes_.push(ChangeKind::kStatePatched, "delta", *delta);
}

void EventReducer::on_messages_snapshot(const json& e, const std::string& type) {
  auto list = e.find("messages");
  if (list == e.end() || !list->is_array()) {
    problem(type, ProblemCode::kMissingField,
            type + ": field 'messages' must be an array; event skipped");
    return;
  }
  std::unordered_map<std::string, const json*> incoming;
  bool has_activity = false, has_reasoning = false;
  for (const auto& m : *list) {
    const auto* id = m.is_object() ? opt_string(m, "id") : nullptr;
    if (id == nullptr) {
      problem(type, ProblemCode::kInvalidMessage,
              type + ": a message without a string id; snapshot skipped");
      return;
    }
    incoming.emplace(*id, &m);
    has_activity = has_activity || is_role(&m, "activity");
    has_reasoning = has_reasoning || is_role(&m, "reasoning");
  }
  // The snapshot is authoritative for what the producer owns; messages only
  // this client holds (activity, reasoning) survive when the snapshot has none
  // of their kind, as the reference client does.
  std::vector<json> next;
  std::unordered_set<std::string> placed;
  for (std::size_t i = 0; i < thread_.size(); ++i) {
    const json& m = thread_.at(i);
    const auto* id = opt_string(m, "id");
    if (id == nullptr) continue;
    auto hit = incoming.find(*id);
    if (hit != incoming.end()) {
      if (placed.insert(*id).second) next.push_back(*hit->second);
    } else if ((is_role(&m, "activity") && !has_activity) ||
               (is_role(&m, "reasoning") && !has_reasoning)) {
      next.push_back(m);
    }
  }
  for (const auto& m : *list) {
    const auto& id = m["id"].get_ref<const std::string&>();
    if (placed.insert(id).second) next.push_back(m);
  }
  thread_.replace_all(std::move(next));
  changes_.push(ChangeKind::kMessagesReplaced, "messages", thread_.messages());
}

void EventReducer::on_activity_snapshot(const json& e, const std::string& type) {
  const auto* id = need_string(e, type, "messageId");
  const auto* activity_type = id ? need_string(e, type, "activityType") : nullptr;
  if (!activity_type) return;
  auto content = e.find("content");
  if (content == e.end() || !content->is_object()) {
    problem(type, ProblemCode::kMissingField,
            type + ": field 'content' must be an object; event skipped");
    return;
  }
  auto replace_it = e.find("replace");
  const bool replace =
      replace_it == e.end() || !replace_it->is_boolean() || replace_it->get<bool>();
  json* existing = thread_.find_message(*id);
  const auto* sub = opt_string(e, "subagentRunId");
  if (existing == nullptr) {
    json message = {
        {"id", *id}, {"role", "activity"}, {"activityType", *activity_type}, {"content", *content}};
    if (sub) message["subagentRunId"] = *sub;
    merge_metadata(message, e);
    json& stored = thread_.append(std::move(message));
    changes_.push(ChangeKind::kMessageAdded, "message", stored);
    return;
  }
  if (replace) {
    if (is_role(existing, "activity")) {
      (*existing)["activityType"] = *activity_type;
      (*existing)["content"] = *content;
      if (sub)
        (*existing)["subagentRunId"] = *sub;
      else
        existing->erase("subagentRunId");
    } else {
      json message = {{"id", *id},
                      {"role", "activity"},
                      {"activityType", *activity_type},
                      {"content", *content}};
      if (sub) message["subagentRunId"] = *sub;
      // Another kind of message becomes an activity: its tool calls and its
      // place as a call's result leave the thread's indices.
      existing = &thread_.replace(*existing, std::move(message));
    }
  }
  merge_metadata(*existing, e);
  changes_.push(ChangeKind::kMessageUpdated, "message", *existing);
}

void EventReducer::on_activity_delta(const json& e, const std::string& type) {
  const auto* id = need_string(e, type, "messageId");
  if (!id) return;
  json* m = thread_.find_message(*id);
  if (m == nullptr || !is_role(m, "activity")) {
    problem(type, m == nullptr ? ProblemCode::kUnknownMessage : ProblemCode::kNotActivity,
            type + " for '" + *id + "', which is " +
                (m == nullptr ? "not in the thread" : "not an activity message") +
                "; event skipped");
    return;
  }
  auto patch = e.find("patch");
  json content = m->contains("content") ? (*m)["content"] : json::object();
  if (auto err = apply_json_patch(content, patch == e.end() ? json::array() : *patch)) {
    problem(type, ProblemCode::kPatchFailed,
            type + ": the patch does not apply to '" + *id + "' (" + *err +
                "); activity left as it was");
    return;
  }
  if (state_too_deep(content, type, "activity '" + *id + "'")) return;
  (*m)["content"] = std::move(content);
  if (const auto* activity_type = opt_string(e, "activityType"))
    (*m)["activityType"] = *activity_type;
  merge_metadata(*m, e);
  changes_.push(ChangeKind::kMessageUpdated, "message", *m);
}

void EventReducer::on_encrypted_value(const json& e, const std::string& type) {
  const auto* subtype = need_string(e, type, "subtype");
  const auto* entity = subtype ? need_string(e, type, "entityId") : nullptr;
  const auto* value = entity ? need_string(e, type, "encryptedValue") : nullptr;
  if (!value) return;
  if (*subtype == "tool-call") {
    auto ref = thread_.find_tool_call(*entity);
    if (!ref) {
      problem(type, ProblemCode::kUnknownToolCall,
              type + " for tool call '" + *entity + "' not in the thread; event skipped");
      return;
    }
    ref->call()["encryptedValue"] = *value;
    changes_.push(ChangeKind::kMessageUpdated, "message", *ref->message);
    return;
  }
  json* m = thread_.find_message(*entity);
  if (m == nullptr || is_role(m, "activity")) {
    problem(
        type, ProblemCode::kUnknownMessage,
        type + " for message '" + *entity + "' not in the thread (or an activity); event skipped");
    return;
  }
  (*m)["encryptedValue"] = *value;
  changes_.push(ChangeKind::kMessageUpdated, "message", *m);
}

void EventReducer::on_run_started(const json& e, const std::string& type) {
  if (phase_ == RunPhase::kRunning) {
    problem(type, ProblemCode::kSecondRunStarted,
            "RUN_STARTED while the run is already running; the run is stopped", true);
    return;
  }
  phase_ = RunPhase::kRunning;
  const auto* thread_id = opt_string(e, "threadId");
  if (thread_id != nullptr && *thread_id != thread_.id()) {
    problem(type, ProblemCode::kWrongThread,
            "RUN_STARTED for thread '" + *thread_id + "' on thread '" + thread_.id() +
                "'; the run is stopped",
            true);
    return;
  }
  const auto* run_id = opt_string(e, "runId");
  if (run_id != nullptr && !run_id_.empty() && *run_id != run_id_) {
    problem(
        type, ProblemCode::kRunIdMismatch,
        "RUN_STARTED carries runId '" + *run_id + "', the request sent '" + run_id_ + "'; applied");
  }
  auto input = e.find("input");
  if (input != e.end() && input->is_object()) {
    auto msgs = input->find("messages");
    if (msgs != input->end() && msgs->is_array()) {
      for (const auto& m : *msgs) {
        const auto* id = m.is_object() ? opt_string(m, "id") : nullptr;
        if (id != nullptr && thread_.find_message(*id) == nullptr) {
          json& stored = thread_.append(m);
          changes_.push(ChangeKind::kMessageAdded, "message", stored);
        }
      }
    }
  }
  changes_.push(ChangeKind::kRunStarted, "runId", run_id ? *run_id : run_id_);
}

void EventReducer::on_run_finished(const json& e, const std::string& type) {
  flush_halves();
  for (const auto& id : open_messages_) {
    problem(type, ProblemCode::kUnclosedMessage,
            "RUN_FINISHED while message '" + id + "' is still open; closed");
  }
  for (const auto& id : open_calls_) {
    problem(type, ProblemCode::kUnclosedToolCall,
            "RUN_FINISHED while tool call '" + id + "' is still open; closed");
  }
  for (const auto& id : open_messages_) ended_messages_.insert(id);
  for (const auto& id : calls_started_) {  // (in the order they started)
    if (!open_calls_.count(id)) continue;
    if (auto ref = thread_.find_tool_call(id)) end_tool_call(id, ref->call());
  }
  for (const auto& id : open_calls_) ended_calls_.insert(id);
  open_messages_.clear();
  open_calls_.clear();
  auto outcome = e.find("outcome");
  if (outcome != e.end() && outcome->is_object() && outcome->contains("type")) {
    outcome_ = *outcome;
    const auto& kind = (*outcome)["type"];
    const bool known =
        kind.is_string() && (kind == "success" || kind == "interrupt" || kind == "cancelled");
    if (!known) {
      problem(type, ProblemCode::kUnknownOutcome,
              "RUN_FINISHED with an unknown outcome type; read as success");
      outcome_ = json{{"type", "success"}};
    } else if (kind == "interrupt") {
      auto list = outcome->find("interrupts");
      bool ok = list != outcome->end() && list->is_array() && !list->empty();
      for (const auto& i : ok ? *list : json::array())
        ok = ok && i.is_object() && opt_string(i, "id");
      if (!ok) {
        problem(type, ProblemCode::kInvalidOutcome,
                "RUN_FINISHED interrupt outcome needs a non-empty 'interrupts' array of objects "
                "with an id; the run is stopped",
                true);
        return;
      }
    }
  } else {
    outcome_ = json{{"type", "success"}};
  }
  phase_ = RunPhase::kFinished;
  if (auto result = e.find("result"); result != e.end()) result_ = *result;
  changes_.push(ChangeKind::kRunFinished, "outcome", outcome_);
}

}  // namespace agui
