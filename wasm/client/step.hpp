// The Step: what the host must do next. Every call the round driver takes
// answers with one (round_driver.hpp says which call answers what); the host
// reads it as JSON, written by to_json() alone:
//
//   {"run": {"runId"}}                 POST run_input() and feed the body back
//   {"execute": [{toolCallId, name, args, timeoutMs, threadId}, ...]}
//                                      start these handlers now (each at most once)
//   {"done": {"reason", "message"?, "code"?, "result"?}}
//                                      the turn is over; reason is one of kDoneReasons
//   {"stale": true}                    bytes or an end for a run no longer current: ignored
//   {"error": {"code", "message"}}     the call was refused; nothing changed
//   {"deadline": ms | null}            when the next deadline is due (ms since the
//                                      epoch), or none is left: call expire() then
//
// A step may carry several of these ("execute" and "run" never together); an
// empty step ({}) means: wait (for handlers, approvals or interrupts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/json.hpp"

namespace agui {

struct Step {
  struct Run {
    std::string run_id;
  };
  struct Execute {
    std::string tool_call_id;
    std::string name;
    json args;
    std::int64_t timeout_ms = 0;
    std::string thread_id;
    bool idempotent = false;  // the tool's flag: the shim may start it without a durable record
  };
  struct Done {
    std::string reason;   // "done" | "round_limit" | "aborted" | "run_error" | "cancelled"
    std::string message;  // empty: absent
    std::string code;     // empty: absent (a RUN_ERROR's code, or "transport" / "protocol")
    json result;          // the last run's RUN_FINISHED.result; null: absent
  };

  std::optional<Run> run;
  std::vector<Execute> execute;
  std::optional<Done> done;
  std::optional<Error> error;
  bool stale = false;
  bool deadline_changed = false;  // written only when it changed
  std::optional<double> deadline;

  static Step refused(ErrorCode code, std::string message) {
    Step s;
    s.error = make_error(code, std::move(message));
    return s;
  }
  static Step stale_run() {
    Step s;
    s.stale = true;
    return s;
  }
  // The step as JSON, its handlers' arguments moved into it (a step is written once).
  json to_json() &&;
};

}  // namespace agui
