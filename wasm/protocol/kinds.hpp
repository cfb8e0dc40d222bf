// The change kinds and the problem codes: the two vocabularies the core speaks
// to the page besides its error codes (common/error.hpp). Each is defined here
// once; the bindings hand the lists to JS, and tests/node/mirror.test.mjs keeps
// the package's JS and .d.ts mirrors equal to them.
#pragma once

#include <string_view>

namespace agui {

// What changed, one record per change (the page's subscribe()); docs/changes.md
// says what each carries. X(enumerator, "wire name")
#define AGUI_CHANGE_KINDS(X)                  \
  X(kMessageAdded, "message_added")           \
  X(kTextAppended, "text_appended")           \
  X(kMessageEnded, "message_ended")           \
  X(kMessageUpdated, "message_updated")       \
  X(kMetadataMerged, "metadata_merged")       \
  X(kMessagesReplaced, "messages_replaced")   \
  X(kToolCallAdded, "tool_call_added")        \
  X(kToolCallArgs, "tool_call_args")          \
  X(kToolCallPartial, "tool_call_partial")    \
  X(kToolCallEnded, "tool_call_ended")        \
  X(kToolCallStatus, "tool_call_status")      \
  X(kToolResult, "tool_result")               \
  X(kApprovalRequested, "approval_requested") \
  X(kInterrupts, "interrupts")                \
  X(kInterruptAnswered, "interrupt_answered") \
  X(kStateReplaced, "state_replaced")         \
  X(kStatePatched, "state_patched")           \
  X(kRunStarted, "run_started")               \
  X(kRunFinished, "run_finished")             \
  X(kRunError, "run_error")                   \
  X(kEvent, "event")                          \
  X(kProblem, "problem")                      \
  X(kTurnStarted, "turn_started")             \
  X(kRoundStarted, "round_started")           \
  X(kTurnEnded, "turn_ended")

// A rule the stream broke (a `problem` change's code); docs/ordering.md says
// what happens in each case.
#define AGUI_PROBLEM_CODES(X)                          \
  X(kInvalidEvent, "invalid_event")                    \
  X(kInvalidJson, "invalid_json")                      \
  X(kInvalidUtf8, "invalid_utf8")                      \
  X(kTruncatedEvent, "truncated_event")                \
  X(kUnknownEvent, "unknown_event")                    \
  X(kLimitExceeded, "limit_exceeded")                  \
  X(kMissingField, "missing_field")                    \
  X(kBeforeRunStarted, "before_run_started")           \
  X(kAfterRunEnd, "after_run_end")                     \
  X(kSecondRunStarted, "second_run_started")           \
  X(kRunIdMismatch, "run_id_mismatch")                 \
  X(kWrongThread, "wrong_thread")                      \
  X(kInvalidOutcome, "invalid_outcome")                \
  X(kUnknownOutcome, "unknown_outcome")                \
  X(kUnknownMessage, "unknown_message")                \
  X(kDuplicateMessage, "duplicate_message")            \
  X(kInvalidMessage, "invalid_message")                \
  X(kActivityMessage, "activity_message")              \
  X(kNotActivity, "not_activity")                      \
  X(kAlreadyStarted, "already_started")                \
  X(kAlreadyEnded, "already_ended")                    \
  X(kUnclosedMessage, "unclosed_message")              \
  X(kUnknownToolCall, "unknown_tool_call")             \
  X(kDuplicateToolCall, "duplicate_tool_call")         \
  X(kParentNotAssistant, "parent_not_assistant")       \
  X(kNotOpen, "not_open")                              \
  X(kAfterEnd, "after_end")                            \
  X(kUnclosedToolCall, "unclosed_tool_call")           \
  X(kDuplicateResult, "duplicate_result")              \
  X(kPatchFailed, "patch_failed")                      \
  X(kUnknownPendingCall, "unknown_pending_call")       \
  X(kInvalidResponseSchema, "invalid_response_schema") \
  X(kCallStateFinal, "call_state_final")

// The states of a tool call, as tool_call_status announces them, in the order
// a call moves through them (a state never moves back; from done on, each is
// final); docs/changes.md has the table of what moves each. A client call goes streaming -> ready
// -> (pending_approval) -> running -> done | error | cancelled | denied (it may end from ready,
// refused or closed, without running); a server call goes streaming -> ready -> done when its
// result arrives.
#define AGUI_CALL_STATES(X)               \
  X(kStreaming, "streaming")              \
  X(kReady, "ready")                      \
  X(kPendingApproval, "pending_approval") \
  X(kRunning, "running")                  \
  X(kDone, "done")                        \
  X(kError, "error")                      \
  X(kCancelled, "cancelled")              \
  X(kDenied, "denied")

enum class ChangeKind {
#define AGUI_X(id, wire) id,
  AGUI_CHANGE_KINDS(AGUI_X)
#undef AGUI_X
};

enum class ProblemCode {
#define AGUI_X(id, wire) id,
  AGUI_PROBLEM_CODES(AGUI_X)
#undef AGUI_X
};

enum class CallState {
#define AGUI_X(id, wire) id,
  AGUI_CALL_STATES(AGUI_X)
#undef AGUI_X
};

constexpr std::string_view to_string(CallState state) {
  switch (state) {
#define AGUI_X(id, wire) \
  case CallState::id: return wire;
    AGUI_CALL_STATES(AGUI_X)
#undef AGUI_X
  }
  return {};
}

constexpr std::string_view to_string(ChangeKind kind) {
  switch (kind) {
#define AGUI_X(id, wire) \
  case ChangeKind::id: return wire;
    AGUI_CHANGE_KINDS(AGUI_X)
#undef AGUI_X
  }
  return {};
}

constexpr std::string_view to_string(ProblemCode code) {
  switch (code) {
#define AGUI_X(id, wire) \
  case ProblemCode::id: return wire;
    AGUI_PROBLEM_CODES(AGUI_X)
#undef AGUI_X
  }
  return {};
}

}  // namespace agui
