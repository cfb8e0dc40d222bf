// The event reducer: folds one run's AG-UI 1.0 events into the thread, checks
// the protocol's ordering rules, and records what changed. O(1) amortised work
// per event: lookups go through the thread's indices and nothing is copied per
// event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/json.hpp"
#include "common/json_text.hpp"
#include "protocol/partial_json.hpp"
#include "protocol/thread.hpp"

namespace agui {

// A rule the stream broke. `fatal` problems stop the run (see docs/ordering.md);
// the others are reported and the event is skipped or applied as said.
struct Problem {
  std::size_t index = 0;   // the event's position in the run, from 0
  std::string event_type;  // "TEXT_MESSAGE_CONTENT", or "" when not decodable
  std::string code;        // e.g. "unknown_message"
  std::string message;
  bool fatal = false;
};

enum class RunPhase { kNotStarted, kRunning, kFinished, kErrored };

// What one stream may make the reducer hold. Exceeding one is reported as a
// "limit_exceeded" problem that names the limit; the thread keeps what it had.
struct ReducerLimits {
  // Bytes of one tool call's arguments. Streaming past it skips the rest of
  // that call's arguments; the driver then answers the call with an error.
  std::size_t max_argument_bytes = 1 << 20;
  // Nesting of arrays and objects in an event (the event object is level 1),
  // and in the state or an activity after a patch. nlohmann's parser is
  // iterative, but copying, comparing and dumping a value recurse once per
  // level: the limit keeps that recursion far inside a 256 KiB wasm stack.
  std::size_t max_json_depth = 128;
  // Bytes of one text or reasoning message's content, as it streams. A stream
  // taking a message past it is runaway or hostile: the run is stopped, the
  // text received so far stays.
  std::size_t max_message_bytes = 16u << 20;
};

// Whether JSON text nests arrays and objects deeper than `limit` levels. A
// linear scan with no allocation, so that nothing deep is ever built; strings
// are skipped (brackets in them do not count). Text that is not JSON is scanned
// the same way: the parser reports it afterwards.
bool json_text_deeper_than(std::string_view text, std::size_t limit);
// The same for a value (iterative: safe on any depth).
bool json_deeper_than(const json& value, std::size_t limit);

class EventReducer {
 public:
  EventReducer(Thread& thread, ChangeLog& changes, ReducerLimits limits = {});
  void set_limits(const ReducerLimits& limits) { limits_ = limits; }
  const ReducerLimits& limits() const { return limits_; }

  // Starts a new run. `thread_id`/`run_id` are what the input said; a
  // RUN_STARTED that disagrees is reported.
  void begin_run(std::string run_id);

  // Folds one SSE `data` payload (a JSON event).
  void apply_data(std::string_view data);
  // Folds one decoded event.
  void apply(const json& event);

  // Tool calls whose streamed arguments went past max_argument_bytes, with the
  // bytes the stream sent for them in all (kept for the thread's life, not
  // per run: the call is answered when its run ends).
  std::optional<std::size_t> argument_bytes_over_limit(std::string_view tool_call_id) const;
  const std::unordered_map<std::string, std::size_t>& calls_over_argument_limit() const {
    return over_limit_;
  }
  void note_argument_bytes_over_limit(const std::string& tool_call_id, std::size_t bytes) {
    over_limit_[tool_call_id] = bytes;
  }

  // Records a problem that is not tied to a decoded event (bad SSE, a stream
  // cut mid-event, a limit).
  void report(ProblemCode code, std::string message, bool fatal);

  RunPhase phase() const { return phase_; }
  bool stopped() const { return stopped_; }  // a fatal problem ended the run
  std::size_t events_seen() const { return index_; }
  // Of those, the deltas the fast path applied (see apply_delta_fast).
  std::size_t fast_path_events() const { return fast_events_; }
  const std::string& run_id() const { return run_id_; }

  // After RUN_FINISHED: the outcome object ({type:"success"} when absent).
  const json& outcome() const { return outcome_; }
  // After RUN_FINISHED: its `result` (null when it sent none).
  const json& result() const { return result_; }
  // After RUN_ERROR (or a fatal problem): what failed.
  const std::string& error_message() const { return error_message_; }
  const std::string& error_code() const { return error_code_; }

  // The tool calls started during this run, in order.
  const std::vector<std::string>& calls_started() const { return calls_started_; }

  const std::vector<Problem>& problems() const { return problems_; }

  // Records, once per call, how the arguments of each call that streamed
  // since the last time grew (tool_call_partial): a step hands out one record
  // per call, however many deltas it held, and each byte crosses once.
  void record_partials();

 private:
  // The AG-UI event types this reducer knows (event_types() maps the wire names).
  enum class Ev {
    kTextStart,
    kTextContent,
    kTextEnd,
    kTextChunk,
    kToolStart,
    kToolArgs,
    kToolEnd,
    kToolChunk,
    kToolResult,
    kStateSnapshot,
    kStateDelta,
    kMessagesSnapshot,
    kActivitySnapshot,
    kActivityDelta,
    kRaw,
    kCustom,
    kRunStarted,
    kRunFinished,
    kRunError,
    kStepStarted,
    kStepFinished,
    kReasoningStart,
    kReasoningMessageStart,
    kReasoningMessageContent,
    kReasoningMessageEnd,
    kReasoningMessageChunk,
    kReasoningEnd,
    kReasoningEncryptedValue,
    kSubagentStarted,
    kSubagentFinished,
    kSubagentError,
  };
  static const std::unordered_map<std::string, Ev>& event_types();
  enum class Lane { kText, kTool, kReasoning };
  struct OpenChunk {
    Lane lane;
    std::string id;  // messageId or toolCallId
  };

  // TEXT_MESSAGE_CONTENT, REASONING_MESSAGE_CONTENT and TOOL_CALL_ARGS (most of
  // a stream) read without building the event, when it holds nothing but its
  // type, id and delta and breaks no rule: the same effect as apply_event().
  // False, having done nothing, for anything else; the full path then decides.
  bool apply_delta_fast(const FlatMember* members, std::size_t count);
  static constexpr std::size_t kFlatMembers = 12;  // more, and the parser reads the event
  // merge_metadata() into a message or call already in the thread, recorded as
  // metadata_merged under `id_key` when something changed.
  void merge_metadata_of(json& target, const json& e, std::string_view id_key, std::string_view id);
  // The one place a content or arguments delta lands, and its change record;
  // `join`: through join_halves() (not for the U+FFFD of a flushed half).
  void append_text(json& message, std::string_view id, std::string_view delta, bool join = true);
  void append_args(json& function, std::string_view call_id, std::string_view delta,
                   bool join = true);
  // A pair split across two deltas of one message or call (lane 'm' or 'c'):
  // a high half that ends a delta is held back and joins the low half the next
  // delta starts with, as JS strings join them; a half with no partner becomes
  // U+FFFD. O(1) but for deltas that end in U+FFFD or follow a held half: only
  // those read the event's raw text (data_).
  std::string_view join_halves(char lane, std::string_view id, std::string_view delta);
  // The held half of one message or call (or of all) becomes U+FFFD: its stream ended.
  void flush_half(char lane, const std::string& id);
  void flush_halves();

  void problem(const std::string& type, ProblemCode code, std::string message, bool fatal = false);
  void stop(std::string message);
  const std::string* need_string(const json& e, const std::string& type, const char* key);
  static std::string lane_key(const json& e);

  // One event: its kind (or a problem), admission by the run's phase, the chunk
  // streams it closes, then one function per kind.
  std::optional<Ev> event_kind(const json& e);
  bool admitted(Ev ev, const std::string& type);
  void close_streams_before(Ev ev, const json& e);
  void dispatch(Ev ev, const json& e, const std::string& type);
  void on_text_start(const json& e, const std::string& type);
  void on_text_content(const json& e, const std::string& type);
  void on_text_end(const json& e, const std::string& type);
  void on_tool_start(const json& e, const std::string& type);
  void on_tool_args(const json& e, const std::string& type);
  void on_tool_end(const json& e, const std::string& type);
  void on_state_snapshot(const json& e, const std::string& type);
  void on_run_error(const json& e);
  // What those events and the chunk transform share.
  void start_message(const json& e, const std::string& type, const std::string& id);
  void add_message_content(const json& e, const std::string& type, const std::string& id,
                           const std::string& delta);
  void start_tool_call(const json& e, const std::string& type, const std::string& call_id,
                       const std::string& name);
  void add_tool_call_args(const json& e, const std::string& type, const std::string& call_id,
                          const std::string& delta);
  void on_text_chunk(const json& e, const std::string& type, Lane lane);
  void on_tool_chunk(const json& e, const std::string& type);
  void on_tool_result(const json& e, const std::string& type);
  void on_state_delta(const json& e, const std::string& type);
  void on_messages_snapshot(const json& e, const std::string& type);
  void on_activity_snapshot(const json& e, const std::string& type);
  void on_activity_delta(const json& e, const std::string& type);
  void on_encrypted_value(const json& e, const std::string& type);
  void on_run_started(const json& e, const std::string& type);
  void on_run_finished(const json& e, const std::string& type);
  void close_open_streams(const std::string& lane);
  void close_all_open_streams();
  void pass_through(const json& e);
  void apply_event(const json& e);
  bool state_too_deep(const json& value, const std::string& type, const std::string& what);

  Thread& thread_;
  ChangeLog& changes_;
  ReducerLimits limits_;
  std::unordered_map<std::string, std::size_t> over_limit_;  // toolCallId -> bytes streamed
  RunPhase phase_ = RunPhase::kNotStarted;
  bool stopped_ = false;
  std::size_t index_ = 0;
  std::size_t fast_events_ = 0;
  std::string run_id_;
  json outcome_;
  json result_;
  std::string error_message_;
  std::string error_code_;
  std::vector<Problem> problems_;
  std::vector<std::string> calls_started_;
  // Each streaming call's arguments parsed so far (this run's), and the calls
  // whose arguments grew since record_partials() last ran.
  struct Partial {
    explicit Partial(std::size_t max_depth) : args(max_depth) {}
    PartialJson args;
    bool invalid_told = false;
  };
  std::unordered_map<std::string, Partial> partials_;
  std::vector<std::string> partials_touched_;
  void record_partial(const std::string& call_id);
  void end_tool_call(const std::string& call_id, const json& call);
  std::unordered_set<std::string> open_messages_;  // text/reasoning messages between START and END
  std::unordered_set<std::string> ended_messages_;
  std::unordered_set<std::string> open_calls_;  // between TOOL_CALL_START and TOOL_CALL_END
  std::unordered_set<std::string> ended_calls_;
  std::map<std::string, OpenChunk> open_chunks_;  // per subagent lane ("" = the agent itself)
  std::string scratch_id_, scratch_delta_;        // the fast path's decoded escapes
  std::string_view data_;                         // the event's text while apply_data() folds it
  // lane + id -> a held high half (a double: the map then shares its code with the driver's
  // approval deadlines)
  std::unordered_map<std::string, double> held_high_;
  std::string joined_;  // join_halves()'s delta, when it mends
};

}  // namespace agui
