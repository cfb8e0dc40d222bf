// The round driver: one thread's client-tool loop, as a state machine that never
// does I/O. The host (the JS shim) feeds it the bytes of each run and the
// results of the handlers it was asked to run; every call answers with a Step
// (step.hpp), as JSON: run this request, execute these handlers, the turn is
// done, stale bytes, or a refusal.
// What changed in the thread is drained separately with take_changes().
// The RunAgentInput of a run is written as JSON text once, straight from the
// thread (no copy of the messages is built): run_input() holds it, and it is
// the request body as it goes out, never parsed and re-written on the way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "client/driver_options.hpp"
#include "client/step.hpp"
#include "client/tool_registry.hpp"
#include "common/error.hpp"
#include "common/json.hpp"
#include "protocol/event_reducer.hpp"
#include "protocol/sse_parser.hpp"
#include "protocol/thread.hpp"

namespace agui {

class RoundDriver {
 public:
  RoundDriver(std::shared_ptr<const ToolRegistry> registry, std::string thread_id,
              DriverOptions options = {});
  // Restores a thread exported by export_thread(). Calls whose handler had
  // started are closed with an error result (they may have completed); pending
  // approvals come back pending. Call continue_turn() next.
  // Interrupts past their expiresAt at `now` are cancelled at once: the page
  // never sees them pending, and continue_turn() resumes with them cancelled.
  static std::variant<std::unique_ptr<RoundDriver>, Error> from_export(
      std::shared_ptr<const ToolRegistry> registry, const json& exported,
      DriverOptions options = {}, double now = 0);

  // Starts a turn with a user message (a string) or messages (an array of AG-UI
  // messages; ids are added where missing). A turn in progress is superseded:
  // its run is abandoned and its open calls are closed as cancelled. Bad input
  // is refused before anything changes.
  // `run_options` ({forwardedProps?}): the turn's own forwardedProps, laid key by
  // key over the runtime's for every run of this turn (follow-ups and resumes
  // too). With them, an empty array starts a turn with no new message.
  json send(const json& text_or_messages, const json& run_options = json::object()) {
    return as_json(send_step(text_or_messages, run_options));
  }
  // The bytes of the run `run_id`'s response body, in any chunking.
  json feed(std::string_view run_id, std::string_view bytes) {
    return as_json(feed_step(run_id, bytes));
  }
  // `now`: the host's wall clock, in ms since the epoch (JavaScript's
  // Date.now()). The core reads no clock: the calls that judge or set a
  // deadline (an interrupt's expiresAt, approvalTimeoutMs) are told the time.
  // Tests that involve no deadline may leave it at 0.
  json end_of_stream(std::string_view run_id, double now = 0) {
    return as_json(end_of_stream_step(run_id, now));
  }
  // The run could not be read (HTTP error, wrong content type, network).
  json transport_failed(std::string_view run_id, std::string message) {
    return as_json(transport_failed_step(run_id, std::move(message)));
  }

  // A handler's result: `content` is the tool message content as the host
  // serialised it (a string as is, anything else as JSON text).
  json submit_result(std::string_view tool_call_id, std::string content) {
    return as_json(submit_result_step(tool_call_id, std::move(content)));
  }
  json submit_error(std::string_view tool_call_id, std::string message) {
    return as_json(submit_error_step(tool_call_id, std::move(message)));
  }

  json approve(std::string_view thread_id, std::string_view tool_call_id) {
    return as_json(approve_step(thread_id, tool_call_id));
  }
  json reject(std::string_view thread_id, std::string_view tool_call_id, std::string reason) {
    return as_json(reject_step(thread_id, tool_call_id, std::move(reason)));
  }
  // Past its expiresAt, the interrupt is cancelled instead (a step that says so).
  json resolve_interrupt(std::string_view interrupt_id, json payload, double now = 0) {
    return as_json(resolve_interrupt_step(interrupt_id, std::move(payload), now));
  }
  json cancel_interrupt(std::string_view interrupt_id, std::string reason) {
    return as_json(cancel_interrupt_step(interrupt_id, std::move(reason)));
  }

  json abort(std::string reason) { return as_json(abort_step(std::move(reason))); }
  // After from_export(): the step that carries the turn on (may be empty).
  // After an import, it first cancels the interrupts that expired meanwhile and
  // announces what came back pending (approval_requested, interrupts).
  json continue_turn(double now = 0) { return as_json(continue_turn_step(now)); }
  // A deadline the last step named is due: approvals past approvalTimeoutMs are
  // rejected, interrupts past their expiresAt cancelled, each with the reason.
  json expire(double now) { return as_json(expire_step(now)); }

  // The RunAgentInput of the run last started, as JSON text: the request body.
  const std::string& run_input() const { return run_input_; }

  // A side request (side_request.cpp): a run beside the turn that touches
  // neither the thread nor the loop nor the round count, and answers with its
  // RUN_FINISHED.result (MCP Apps proxies resources/read and tools/call so).
  // request() answers {runId} and leaves the body in request_input(); the
  // body's bytes go to request_feed(), its end too (`end`), which answers {}
  // (more to read), {"result": value|null} or {"error"}. Only RUN_FINISHED and
  // RUN_ERROR count; every other event is skipped (not folded into the thread).
  json request(const json& run_options);
  const std::string& request_input() const { return request_input_; }
  json request_feed(const std::string& run_id, std::string_view bytes, bool end);
  // The host gave up on it (transport failure, abort, dispose).
  void request_cancel(const std::string& run_id) { side_runs_.erase(run_id); }

  json take_changes() { return changes_.take(); }
  std::string take_changes_text() { return changes_.take_text(); }  // the same, as JSON text
  bool changes_empty() const { return changes_.empty(); }
  // {phase, round, runId?, pendingApprovals:[...], pendingInterrupts:[...], running:[ids]}
  json status() const;
  json export_thread() const;
  // For a journal that appends what changed: the export when `whole` or when
  // most messages changed, else the change since the last call, {"format":
  // "agui-client-tools/thread-change", "version": 1, "messages": {from, count, edited: [[index,
  // message]...], tail: [...]}, "state"?: ..., and the export's other fields}. Either way the next
  // change starts from here. docs/persistence.md, "The record format".
  json export_journal(bool whole);

  const Thread& thread() const { return thread_; }
  const std::string& thread_id() const { return thread_.id(); }
  const DriverOptions& options() const { return options_; }
  // Tool calls whose handlers this driver started or answered, ever.
  bool answered_or_started(std::string_view tool_call_id) const {
    return handled_.count(std::string(tool_call_id)) != 0;
  }
  // The calls an interrupt deferred to its resume: the only calls a request may
  // carry without a tool message.
  const std::vector<std::string>& deferred_calls() const { return deferred_; }

 private:
  // The public calls above, each answering with its Step, written as JSON once.
  // Also says when the next deadline is due, when that changed (step.hpp).
  json as_json(Step step);
  json export_with(json messages, json state) const;
  Step send_step(const json& text_or_messages, const json& run_options);
  // The run options of `method` checked ({forwardedProps?: object}): the error
  // that names the method and the option, or none and `props` set.
  std::optional<Step> read_run_options(const char* method, const json& run_options,
                                       json& props) const;
  Step feed_step(std::string_view run_id, std::string_view bytes);
  Step end_of_stream_step(std::string_view run_id, double now);
  Step transport_failed_step(std::string_view run_id, std::string message);
  Step submit_result_step(std::string_view tool_call_id, std::string content);
  Step submit_error_step(std::string_view tool_call_id, std::string message);
  Step approve_step(std::string_view thread_id, std::string_view tool_call_id);
  Step reject_step(std::string_view thread_id, std::string_view tool_call_id, std::string reason);
  Step resolve_interrupt_step(std::string_view interrupt_id, json payload, double now);
  Step cancel_interrupt_step(std::string_view interrupt_id, std::string reason);
  Step abort_step(std::string reason);
  Step continue_turn_step(double now);
  Step expire_step(double now);

  enum class Phase { kIdle, kRunning, kAwaiting };
  enum class CallStatus { kPendingApproval, kRunning, kAnswered };
  struct Call {
    std::string id;
    std::string name;
    json args;
    CallStatus status = CallStatus::kRunning;
    std::string content;  // when answered
    std::optional<std::string> error;
  };
  struct Interrupt {
    json interrupt;
    std::shared_ptr<const CompiledSchema> response_schema;
    std::optional<double> expires_at;  // expiresAt, in ms since the epoch
  };
  // An interrupt as the run or an import brought it: its responseSchema compiled
  // (a bad one reported when `report` says so) and its expiresAt read.
  Interrupt make_interrupt(const json& interrupt, bool report);
  // Deadlines (deadlines.cpp).
  std::optional<double> next_deadline() const;
  std::string expiry_reason(const Interrupt& i) const;  // "" while it is live
  bool expired(const Interrupt& i) const { return i.expires_at && *i.expires_at <= now_; }
  // True when it cancelled the last one pending: the resume run is due.
  bool cancel_expired_interrupts();
  void announce_imported();
  // kDenied when the user said no; kCancelled when the approval deadline passed.
  void reject_call(Call& call, const std::string& reason, CallState state = CallState::kDenied);

  std::optional<Step> second_answer(const json& messages, std::size_t i) const;
  Step start_run(Step step = {});
  void write_run_input();
  // The RunAgentInput into `out`: the thread's messages (or none), forwardedProps
  // the runtime's with `props` laid over them.
  void write_input(std::string& out, const std::string& run_id, const json& props,
                   bool with_messages) const;
  Step after_run();
  Step after_interrupt(const json& interrupts);
  std::vector<std::string> outstanding_calls(const json& outcome);
  Step fail_run(std::string message, std::string code);
  // Starts (or asks approval for) each call it may run; answers the others
  // with an error result saying why not (why_not_run).
  Step dispatch(const std::vector<std::string>& outstanding);
  struct Refusal {
    std::string message;
    json details = nullptr;
    CallState state = CallState::kError;  // kCancelled: not the call's fault (the round cap)
  };
  std::optional<Refusal> why_not_run(const Call& call, const json& tool_call, const Tool* tool,
                                     bool at_cap, json& args);
  std::optional<Refusal> parse_arguments(const std::string& id, const json& tool_call, json& args);
  Step end_at_round_cap(Step step);
  // Import (thread_export.cpp), part by part.
  void restore_thread(const json& e);
  void restore_interrupts(const json& e);
  void restore_calls(const json& e);
  void close_streamed_calls(const json& e);
  Step maybe_complete_round(Step step);
  Step end_turn(Step step, std::string reason, std::string message = {}, std::string code = {},
                const std::vector<std::string>& closed_calls = {});
  void close_open_calls(const std::string& why);
  void close_unanswered_client_calls(const std::string& why);
  void close_deferred_calls(const std::string& why);
  void close_calls(const std::vector<std::string>& ids, const std::string& why);
  // Gives every tool call in the thread without a tool message an error result
  // saying no result came, whoever owns the tool, but those in `keep` (calls an
  // interrupt deferred to its resume, calls of the round still awaited).
  void close_calls_left_open(const std::unordered_set<std::string>& keep);
  std::unordered_set<std::string> calls_held_open() const;
  // Ends the call in `state` (by default done, or error when there is one).
  void answer(Call& call, std::string content, std::optional<std::string> error,
              std::optional<CallState> state = std::nullopt);
  // The call's tool_call_status record: {toolCallId, name, status, error?}.
  void answer_with_error(Call& call, const std::string& message, json details = nullptr,
                         CallState state = CallState::kError);
  // The same error, for calls ended by what stopped the turn, not by themselves.
  void cancel(Call& call, const std::string& why) {
    answer_with_error(call, why, nullptr, CallState::kCancelled);
  }
  // The answered calls' tool messages, each right after the assistant message
  // holding its call, in one pass over the thread; a call that has a tool
  // message already gets no second one.
  void append_tool_messages(const std::vector<Call>& calls);
  Call* find_call(std::string_view id);
  void clear_round();
  Call& add_to_round(Call call);
  std::string next_id(const char* kind);
  json approval_json(const Call& call) const;
  // The call waiting for the user's decision on thread `thread_id`, or null with
  // `refusal` saying why there is none (another thread, unknown, answered).
  Call* pending_approval(std::string_view thread_id, std::string_view tool_call_id, Step& refusal);
  // Marks the call running and adds it to the step's "execute".
  void start_handler(Call& call, const Tool& tool, Step& step);
  static json issue_details(const std::vector<SchemaIssue>& issues);
  Step refuse(ErrorCode code, std::string message) const;
  void cancel_pending_interrupts(const std::string& reason);
  // A resume entry for the next run ({interruptId, status, payload?}) and its
  // interrupt_answered record; the caller takes the interrupt off the list.
  void answer_interrupt(const json& interrupt_id, std::string_view status, json payload);
  bool streaming(std::string_view run_id) const;

  std::shared_ptr<const ToolRegistry> registry_;
  DriverOptions options_;
  Thread thread_;
  double now_ = 0;  // the host's clock at its last call that gave it
  std::unordered_map<std::string, double> approval_due_;  // toolCallId -> deadline
  std::optional<double> reported_deadline_;               // what the host was last told
  bool announce_imported_ = false;                        // from_export: continue_turn() announces
  bool resume_imported_ = false;  // from_export cancelled every interrupt: continue_turn() resumes
  ChangeLog changes_;
  EventReducer reducer_;
  std::unique_ptr<SseParser> sse_;
  std::vector<SseEvent> sse_events_;

  Phase phase_ = Phase::kIdle;
  std::string run_id_;
  std::string run_input_;                             // the RunAgentInput of run_id_, as JSON text
  std::string tools_text_;                            // the registry's advertise(), as JSON text...
  std::uint64_t tools_revision_ = ~std::uint64_t{0};  // ...at this revision (none yet)
  int rounds_ = 0;                                    // follow-up runs sent in this turn
  json turn_props_ = json::object();  // send()'s forwardedProps, for every run of the turn
  std::uint64_t id_counter_ = 0;
  std::vector<Call> round_;  // this round's client calls, in call order
  std::unordered_map<std::string, std::size_t> round_index_;  // toolCallId -> place in round_
  std::size_t round_answered_ = 0;           // round_[0, this) are answered: the round's progress
  std::unordered_set<std::string> handled_;  // at most once, keyed by toolCallId
  std::vector<Interrupt> interrupts_;        // pending
  json resume_ = json::array();              // answers to send on the next run
  std::vector<std::string> deferred_;        // client calls an interrupted run left for its resume
  std::string repeat_key_;
  int repeat_count_ = 0;
  std::string request_input_;  // the body of the side request last opened
  struct SideRun {
    std::unique_ptr<SseParser> sse;
  };
  std::unordered_map<std::string, SideRun> side_runs_;  // runId -> an open side request
};

}  // namespace agui
