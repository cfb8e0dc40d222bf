// Native equivalent of bench path (a), for callgrind (tests/bench/profile.mjs native): one
// RoundDriver turn over a generated SSE body, fed in 1-4 KB chunks, each step (with the request
// body it starts) and the drained changes taken as text, as the bindings hand them to the shim.
//   stream_native BODY.sse [repeats=1] [tool-round-calls=0]
// With tool-round-calls > 0 it instead runs that many rounds of one no-op tool call (the
// round-overhead path).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "client/round_driver.hpp"
#include "client/tool_registry.hpp"

using agui::json;

namespace {

// What the bindings hand the shim for a step: its text, and the request body when it starts a run.
std::size_t step_size(const agui::RoundDriver& driver, const json& step) {
  const std::size_t text = step.dump(-1, ' ', false, json::error_handler_t::replace).size();
  return step.contains("run") ? text + driver.run_input().size() : text;
}

std::string sse(const json& event) { return "data: " + event.dump() + "\n\n"; }

std::size_t sink = 0;

// One turn over `body` (the events between RUN_STARTED and RUN_FINISHED).
void stream_turn(const std::shared_ptr<agui::ToolRegistry>& registry, const std::string& body) {
  agui::RoundDriver driver(registry, "bench-thread");
  json step = driver.send(json("Summarise the permits."));
  sink += step_size(driver, step);
  sink += driver.take_changes_text().size();
  const std::string run_id = step["run"]["runId"].get<std::string>();
  const std::string head =
      sse({{"type", "RUN_STARTED"}, {"threadId", "bench-thread"}, {"runId", run_id}});
  const std::string tail = sse({{"type", "RUN_FINISHED"},
                                {"threadId", "bench-thread"},
                                {"runId", run_id},
                                {"outcome", {{"type", "success"}}}});
  auto feed = [&](std::string_view bytes) {
    sink += step_size(driver, driver.feed(run_id, bytes));
    sink += driver.take_changes_text().size();
  };
  feed(head);
  std::uint32_t seed = 107;
  for (std::size_t i = 0; i < body.size();) {
    seed = seed * 1664525u + 1013904223u;
    const std::size_t n = std::min<std::size_t>(body.size() - i, 1024 + (seed >> 8) % 3073);
    feed(std::string_view(body).substr(i, n));
    i += n;
  }
  feed(tail);
  json done = driver.end_of_stream(run_id);
  sink += step_size(driver, done);
  sink += driver.take_changes_text().size();
  if (!done.contains("done")) std::cerr << "turn did not end: " << done.dump() << "\n";
}

// `rounds` turns of: run with one tool call -> execute -> submit_result -> follow-up run -> text ->
// done.
void tool_rounds(int rounds) {
  auto registry = std::make_shared<agui::ToolRegistry>();
  auto spec = agui::ToolSpec::from_json(
      json{{"name", "noop"},
           {"description", "does nothing"},
           {"parameters", {{"type", "object"}, {"properties", {{"i", {{"type", "integer"}}}}}}}});
  registry->add(std::get<agui::ToolSpec>(std::move(spec)));
  for (int r = 0; r < rounds; ++r) {
    agui::RoundDriver driver(registry, "bench-thread");
    json step = driver.send(json("go"));
    sink += step_size(driver, step) + driver.take_changes_text().size();
    std::string run_id = step["run"]["runId"].get<std::string>();
    std::string bytes =
        sse({{"type", "RUN_STARTED"}, {"threadId", "bench-thread"}, {"runId", run_id}});
    bytes += sse({{"type", "TEXT_MESSAGE_START"}, {"messageId", "m1"}, {"role", "assistant"}});
    bytes +=
        sse({{"type", "TEXT_MESSAGE_CONTENT"}, {"messageId", "m1"}, {"delta", "Let me check."}});
    bytes += sse({{"type", "TEXT_MESSAGE_END"}, {"messageId", "m1"}});
    bytes += sse({{"type", "TOOL_CALL_START"},
                  {"toolCallId", "c1"},
                  {"toolCallName", "noop"},
                  {"parentMessageId", "m1"}});
    bytes += sse({{"type", "TOOL_CALL_ARGS"}, {"toolCallId", "c1"}, {"delta", "{\"i\":"}});
    bytes +=
        sse({{"type", "TOOL_CALL_ARGS"}, {"toolCallId", "c1"}, {"delta", std::to_string(r) + "}"}});
    bytes += sse({{"type", "TOOL_CALL_END"}, {"toolCallId", "c1"}});
    bytes += sse({{"type", "RUN_FINISHED"},
                  {"threadId", "bench-thread"},
                  {"runId", run_id},
                  {"outcome", {{"type", "success"}}}});
    sink += step_size(driver, driver.feed(run_id, bytes)) + driver.take_changes_text().size();
    // The round: from the end of the stream to the follow-up run (what bench section 3 times in the
    // browser path).
    step = driver.end_of_stream(run_id);
    sink += step_size(driver, step) + driver.take_changes_text().size();
    const std::string call_id = step["execute"][0]["toolCallId"].get<std::string>();
    step = driver.submit_result(call_id, "\"ok\"");
    sink += step_size(driver, step) + driver.take_changes_text().size();
    run_id = step["run"]["runId"].get<std::string>();
    std::string reply =
        sse({{"type", "RUN_STARTED"}, {"threadId", "bench-thread"}, {"runId", run_id}});
    reply += sse({{"type", "RUN_FINISHED"},
                  {"threadId", "bench-thread"},
                  {"runId", run_id},
                  {"outcome", {{"type", "success"}}}});
    sink += step_size(driver, driver.feed(run_id, reply)) + driver.take_changes_text().size();
    step = driver.end_of_stream(run_id);
    sink += step_size(driver, step) + driver.take_changes_text().size();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: stream_native BODY.sse [repeats] [tool-round-calls]\n";
    return 2;
  }
  const int repeats = argc > 2 ? std::stoi(argv[2]) : 1;
  const int rounds = argc > 3 ? std::stoi(argv[3]) : 0;
  const auto t0 = std::chrono::steady_clock::now();
  if (rounds > 0) {
    tool_rounds(rounds);
  } else {
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string body = text.str();
    auto registry = std::make_shared<agui::ToolRegistry>();
    for (int r = 0; r < repeats; ++r) stream_turn(registry, body);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"ms\":%.3f,\"repeats\":%d,\"rounds\":%d,\"sink\":%zu}\n", ms, repeats, rounds,
              sink);
  return 0;
}
