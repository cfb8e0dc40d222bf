// Helpers shared by the core's suites: SSE encoding of events, fixture files,
// and a driver harness that plays a scripted agent.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "client/round_driver.hpp"
#include "client/tool_registry.hpp"
#include "common/json.hpp"

namespace agui::test {

using json = agui::json;

// `data: <event>\n\n` for each event, as @ag-ui/encoder writes them.
std::string sse(const std::vector<json>& events);
std::string read_file(const std::string& path);
std::string fixture_path(const std::string& name);  // under tests/fixtures

// Event builders, so a test reads like the stream it plays.
json run_started(const std::string& thread_id, const std::string& run_id);
json run_finished(const std::string& thread_id, const std::string& run_id, json outcome = nullptr);
json text(const std::string& message_id, const std::string& delta);  // TEXT_MESSAGE_CONTENT
json tool_start(const std::string& call_id, const std::string& name,
                const std::string& parent = "");
json tool_args(const std::string& call_id, const std::string& delta);
json tool_end(const std::string& call_id);
json tool_result(const std::string& message_id, const std::string& call_id,
                 const std::string& content);

// The problem codes among `changes`, in order; whether `code` is one of them.
std::vector<std::string> problem_codes(const json& changes);
bool has_problem(const json& changes, const std::string& code);

// The thread's tool messages, in order.
json tool_messages(const RoundDriver& d);
// A tool message's error ("" when it carries a result).
std::string error_of(const json& tool_message);
// Every tool call in `messages` has exactly one tool message, after the
// message that holds it; those named in `open` may have none.
::testing::AssertionResult every_call_answered_once(const json& messages,
                                                    const std::vector<std::string>& open = {});

// A registry with the tools most tests use: get_weather {city: string} (enabled),
// get_current_location (enabled, no parameters), delete_file {path} (requires
// approval), read_clipboard (opt-in: disabled by default).
std::shared_ptr<ToolRegistry> sample_registry();

// Plays one run of a scripted agent against the driver: the events of the run,
// wrapped in RUN_STARTED/RUN_FINISHED for the run the step asked for.
struct Harness {
  std::shared_ptr<ToolRegistry> registry = sample_registry();
  RoundDriver driver;
  json last_step;
  double now = 0;  // the clock end_of_stream() is told (ms since the epoch)

  explicit Harness(DriverOptions options = {}, std::string thread_id = "t1");
  Harness(std::shared_ptr<ToolRegistry> reg, DriverOptions options, std::string thread_id = "t1");

  // The RunAgentInput the last step asked to POST (that step must have had one: `at()` fails
  // otherwise).
  json run() const;
  std::string run_id() const { return last_step.at("run").at("runId").get<std::string>(); }
  // Feeds the events (already complete, with RUN_STARTED..RUN_FINISHED) and ends the stream.
  json play_raw(const std::vector<json>& events);
  // Wraps `events` in RUN_STARTED / RUN_FINISHED(outcome) for the current run.
  json play(const std::vector<json>& events, json outcome = nullptr);
  // A run in which the agent calls one tool.
  json play_call(const std::string& call_id, const std::string& name, const std::string& args);
};

}  // namespace agui::test
