// The core's limits (README "Limits"): each has a sane default, is configurable
// through DriverOptions::from_json, and when exceeded gives an error that names
// it, keeps what the thread had, and stops or continues the run as documented.
// Deep JSON is tested to 100 000 levels, natively on a 256 KiB stack (the wasm
// module's; native frames are larger than wasm's, so this is the harder test).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "client/round_driver.hpp"
#include "protocol/event_reducer.hpp"
#include "test_support.hpp"

#if !defined(__EMSCRIPTEN__)
#include <pthread.h>
#endif

namespace agui {
namespace {

using test::error_of;
using test::Harness;
using test::tool_messages;

json problems(const json& changes, const std::string& code) {
  json out = json::array();
  for (const auto& c : changes) {
    if (c["kind"] == "problem" && c["code"] == code) out.push_back(c);
  }
  return out;
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

#if !defined(__EMSCRIPTEN__)
#if defined(__SANITIZE_ADDRESS__)
#define AGUI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AGUI_ASAN 1
#endif
#endif
// The wasm module's stack. AddressSanitizer's redzones make every frame several
// times larger (clang at -O0 most), so under it the same recursion gets 2 MiB.
#if defined(AGUI_ASAN)
constexpr std::size_t kSmallStack = 2048 * 1024;
#else
constexpr std::size_t kSmallStack = 256 * 1024;
#endif
#endif

// Runs `fn` on a thread with a kSmallStack stack (natively; the wasm suite runs
// it on its own stack).
void on_small_stack(const std::function<void()>& fn) {
#if defined(__EMSCRIPTEN__)
  fn();
#else
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kSmallStack);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
#endif
}

TEST(Limits, DefaultsAreSaneAndEachIsAnOption) {
  const DriverOptions d;
  EXPECT_EQ(d.sse.max_event_bytes, 8u << 20);
  EXPECT_EQ(d.max_argument_bytes, 1u << 20);
  EXPECT_EQ(d.max_result_bytes, 1u << 20);
  EXPECT_EQ(d.max_message_bytes, 16u << 20);
  EXPECT_EQ(d.max_json_depth, 128u);
  EXPECT_EQ(d.max_calls_per_round, 64u);

  auto parsed = DriverOptions::from_json({{"maxEventBytes", 10},
                                          {"maxArgumentBytes", 20},
                                          {"maxResultBytes", 30},
                                          {"maxMessageBytes", 35},
                                          {"maxJsonDepth", 40},
                                          {"maxCallsPerRound", 5}});
  ASSERT_TRUE(std::holds_alternative<DriverOptions>(parsed));
  const auto& o = std::get<DriverOptions>(parsed);
  EXPECT_EQ(o.sse.max_event_bytes, 10u);
  EXPECT_EQ(o.max_argument_bytes, 20u);
  EXPECT_EQ(o.max_result_bytes, 30u);
  EXPECT_EQ(o.max_message_bytes, 35u);
  EXPECT_EQ(o.max_json_depth, 40u);
  EXPECT_EQ(o.max_calls_per_round, 5u);

  for (const char* key :
       {"maxJsonDepth", "maxCallsPerRound", "maxArgumentBytes", "maxMessageBytes"}) {
    auto bad = DriverOptions::from_json({{key, 0}});
    ASSERT_TRUE(std::holds_alternative<Error>(bad)) << key;
    EXPECT_EQ(std::get<Error>(bad).message,
              std::string("option '") + key + "' must be an integer >= 1");
  }
  EXPECT_TRUE(std::holds_alternative<Error>(DriverOptions::from_json({{"maxJsonDepth", "9"}})));
}

TEST(Limits, MaxEventBytesStopsTheRunAndKeepsTheThread) {
  DriverOptions opts;
  opts.sse.max_event_bytes = 200;
  Harness h(opts);
  h.last_step = h.driver.send("go");
  const std::string id = h.run_id();
  json step = h.driver.feed(id, test::sse({test::run_started("t1", id),
                                           {{"type", "TEXT_MESSAGE_START"}, {"messageId", "m1"}},
                                           test::text("m1", "kept"),
                                           test::tool_start("c1", "get_current_location")}));
  EXPECT_EQ(step, json::object());
  step = h.driver.feed(id, test::sse({test::text("m1", std::string(300, 'x'))}));
  ASSERT_TRUE(step.contains("done"));
  EXPECT_EQ(step["done"]["reason"], "run_error");
  EXPECT_EQ(step["done"]["message"],
            "an SSE event is over the limit of 200 bytes (maxEventBytes); the run is stopped");
  json fatal = problems(h.driver.take_changes(), "limit_exceeded");
  ASSERT_EQ(fatal.size(), 1u);
  EXPECT_TRUE(fatal[0]["fatal"].get<bool>());
  // The thread keeps what it had; the call the run opened is closed.
  EXPECT_EQ(h.driver.thread().find_message("m1")->at("content"), "kept");
  ASSERT_EQ(tool_messages(h.driver).size(), 1u);
  EXPECT_EQ(h.driver.feed(id, "data: {}\n\n")["stale"], true);
  EXPECT_EQ(h.driver.status()["phase"], "idle");
}

TEST(Limits, MaxEventBytesDefaultIsEightMebibytes) {
  Harness h;
  h.last_step = h.driver.send("go");
  const std::string id = h.run_id();
  h.driver.feed(id, test::sse({test::run_started("t1", id),
                               {{"type", "TEXT_MESSAGE_START"}, {"messageId", "m1"}}}));
  EXPECT_EQ(h.driver.feed(id, test::sse({test::text("m1", std::string(4u << 20, 'a'))})),
            json::object());  // 4 MiB: fine
  json step = h.driver.feed(id, test::sse({test::text("m1", std::string(9u << 20, 'b'))}));
  ASSERT_TRUE(step.contains("done"));
  EXPECT_NE(step["done"]["message"].get<std::string>().find("8388608 bytes (maxEventBytes)"),
            std::string::npos);
  EXPECT_EQ(h.driver.thread().find_message("m1")->at("content").get<std::string>().size(),
            4u << 20);
}

TEST(Limits, AMessageStreamedPastMaxMessageBytesStopsTheRunAndKeepsItsText) {
  DriverOptions opts;
  opts.max_message_bytes = 100;
  Harness h(opts);
  h.last_step = h.driver.send("go");
  const std::string id = h.run_id();
  h.driver.feed(id, test::sse({test::run_started("t1", id),
                               {{"type", "TEXT_MESSAGE_START"}, {"messageId", "m1"}}}));
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(h.driver.feed(id, test::sse({test::text("m1", std::string(10, 'a'))})),
              json::object());
  }
  // The 100 bytes fit; one byte more stops the run.
  json step = h.driver.feed(id, test::sse({test::text("m1", "b"), test::text("m1", "c")}));
  ASSERT_TRUE(step.contains("done"));
  EXPECT_EQ(step["done"]["reason"], "run_error");
  json fatal = problems(h.driver.take_changes(), "limit_exceeded");
  ASSERT_EQ(fatal.size(), 1u);
  EXPECT_TRUE(fatal[0]["fatal"].get<bool>());
  EXPECT_EQ(fatal[0]["message"],
            "TEXT_MESSAGE_CONTENT for message 'm1' takes its text past 100 bytes "
            "(maxMessageBytes); the run is stopped");
  EXPECT_NE(step["done"]["message"].get<std::string>().find("maxMessageBytes"), std::string::npos)
      << step["done"].dump();
  EXPECT_EQ(h.driver.thread().find_message("m1")->at("content"), std::string(100, 'a'));
  // The thread keeps the user's message too, and the next turn runs.
  EXPECT_EQ(h.driver.thread().at(0)["content"], "go");
  EXPECT_TRUE(h.driver.send("again").contains("run"));
}

TEST(Limits, ArgumentsStreamedPastTheLimitAreSkippedAndTheCallAnsweredWithTheError) {
  DriverOptions opts;
  opts.max_argument_bytes = 100;
  Harness h(opts);
  h.last_step = h.driver.send("go");
  const std::string piece(80, ' ');
  json step = h.play({test::tool_start("c1", "get_current_location", "a1"),
                      test::tool_args("c1", "{" + piece), test::tool_args("c1", piece),
                      test::tool_args("c1", piece + "}"), test::tool_end("c1"),
                      test::tool_start("c2", "get_current_location", "a1"),
                      test::tool_args("c2", "{}"), test::tool_end("c2")});
  // Reported once, naming the limit; the call keeps the 81 bytes it had.
  json reported = problems(h.driver.take_changes(), "limit_exceeded");
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_FALSE(reported[0]["fatal"].get<bool>());
  EXPECT_EQ(reported[0]["message"],
            "TOOL_CALL_ARGS for tool call 'c1' takes its arguments past 100 bytes "
            "(maxArgumentBytes); the rest of its arguments is skipped and the call is answered "
            "with an error");
  auto ref = const_cast<Thread&>(h.driver.thread()).find_tool_call("c1");
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->call()["function"]["arguments"], "{" + piece);
  // c1 never runs; c2, within the limit, does: the run continues.
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["toolCallId"], "c2");
  step = h.driver.submit_result("c2", "ok");
  ASSERT_TRUE(step.contains("run"));
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0]["toolCallId"], "c1");
  EXPECT_EQ(error_of(tools[0]),
            "arguments are 242 bytes, over the limit of 100 (maxArgumentBytes); the call was not "
            "run");
}

TEST(Limits, ArgumentLimitSurvivesAnExport) {
  DriverOptions opts;
  opts.max_argument_bytes = 10;
  Harness h(opts);
  h.last_step = h.driver.send("go");
  // An interrupt keeps the call waiting, across the reload.
  h.play({test::tool_start("c1", "get_current_location"), test::tool_args("c1", ""),
          test::tool_args("c1", std::string(20, ' ')), test::tool_end("c1")},
         {{"type", "interrupt"}, {"interrupts", {{{"id", "i1"}}}}});
  auto restored =
      RoundDriver::from_export(h.registry, json::parse(h.driver.export_thread().dump()), opts);
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  json step = d.resolve_interrupt("i1", nullptr);
  const std::string resume = step["run"]["runId"];
  d.feed(resume, test::sse({test::run_started("t1", resume), test::run_finished("t1", resume)}));
  step = d.end_of_stream(resume);
  EXPECT_FALSE(step.contains("execute"));
  json tools = tool_messages(d);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_NE(error_of(tools[0]).find("20 bytes, over the limit of 10 (maxArgumentBytes)"),
            std::string::npos);
}

TEST(Limits, ArgumentsOverTheLimitFromASnapshotAreRefusedAtDispatch) {
  DriverOptions opts;
  opts.max_argument_bytes = 50;
  Harness h(opts);
  h.last_step = h.driver.send("go");
  const std::string big = R"({"city":")" + std::string(60, 'P') + R"("})";
  json step = h.play({{{"type", "MESSAGES_SNAPSHOT"},
                       {"messages",
                        {{{"id", "a1"},
                          {"role", "assistant"},
                          {"toolCalls",
                           {{{"id", "c1"},
                             {"type", "function"},
                             {"function", {{"name", "get_weather"}, {"arguments", big}}}}}}}}}}});
  EXPECT_FALSE(step.contains("execute"));
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(error_of(tools[0]), "arguments are " + std::to_string(big.size()) +
                                    " bytes, over the limit of 50 (maxArgumentBytes); the call "
                                    "was not run");
}

TEST(Limits, MaxResultBytesAppliesToResultsAndErrorMessages) {
  DriverOptions opts;
  opts.max_result_bytes = 64;
  opts.repeat_limit = 0;  // three identical calls: not a runaway here
  Harness h(opts);
  h.last_step = h.driver.send("go");
  h.play({test::tool_start("c1", "get_current_location", "a1"), test::tool_end("c1"),
          test::tool_start("c2", "get_current_location", "a1"), test::tool_end("c2"),
          test::tool_start("c3", "get_current_location", "a1"), test::tool_end("c3")});
  EXPECT_EQ(h.driver.submit_result("c1", std::string(64, 'x')), json::object());  // at the limit
  EXPECT_EQ(h.driver.submit_result("c2", std::string(65, 'x')), json::object());
  json step = h.driver.submit_error("c3", std::string(100, 'e'));
  ASSERT_TRUE(step.contains("run"));  // the turn goes on: the model reads the errors
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 3u);
  EXPECT_EQ(tools[0]["content"], std::string(64, 'x'));
  EXPECT_EQ(error_of(tools[1]), "the result is 65 bytes, over the limit of 64 (maxResultBytes)");
  EXPECT_EQ(error_of(tools[2]),
            "the handler failed with an error message of 100 bytes, over the limit of 64 "
            "(maxResultBytes)");
}

TEST(Limits, EventsNestedPastMaxJsonDepthAreSkippedAndTheRunGoesOn) {
  Harness h;
  h.last_step = h.driver.send("go");
  // The event object is level 1: a snapshot of 127 levels is the deepest allowed.
  const std::string ok = R"({"type":"STATE_SNAPSHOT","snapshot":)" + nested(127) + "}";
  const std::string deep = R"({"type":"STATE_SNAPSHOT","snapshot":)" + nested(128) + "}";
  const std::string id = h.run_id();
  std::string body = "data: " + test::run_started("t1", id).dump() + "\n\n";
  body += "data: " + ok + "\n\n" + "data: " + deep + "\n\n";
  body += "data: " + test::run_finished("t1", id).dump() + "\n\n";
  EXPECT_EQ(h.driver.feed(id, body), json::object());
  json skipped = problems(h.driver.take_changes(), "limit_exceeded");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0]["index"], 2);
  EXPECT_FALSE(skipped[0]["fatal"].get<bool>());
  EXPECT_NE(skipped[0]["message"].get<std::string>().find("deeper than 128 levels (maxJsonDepth"),
            std::string::npos);
  EXPECT_EQ(h.driver.end_of_stream(id)["done"]["reason"], "done");
  EXPECT_EQ(h.driver.thread().state(), json::parse(nested(127)));  // the state it had
}

TEST(Limits, AHundredThousandLevelsOnASmallStack) {
  on_small_stack([] {
    const std::string deep = nested(100000);
    // The reducer, from text: scanned, never built.
    Thread thread("t1");
    ChangeLog changes;
    EventReducer reducer(thread, changes);
    reducer.begin_run("r1");
    const std::string event = R"({"type":"STATE_SNAPSHOT","snapshot":)" + deep + "}";
    reducer.apply_data(event);
    ASSERT_EQ(reducer.problems().size(), 1u);
    EXPECT_EQ(reducer.problems()[0].code, "limit_exceeded");
    // A value already built that deep (nlohmann's parser and destructor are
    // iterative; copying it would not be): checked without recursing.
    reducer.apply(json::parse(event));
    ASSERT_EQ(reducer.problems().size(), 2u);
    EXPECT_EQ(reducer.problems()[1].code, "limit_exceeded");
    EXPECT_EQ(thread.state(), json::object());

    Harness h;
    json refused = h.driver.send(json::parse(R"([{"role":"user","content":)" + deep + "}]"));
    EXPECT_EQ(refused["error"]["code"], "limit_exceeded");
    EXPECT_EQ(refused["error"]["message"],
              "send(): message 0 nests arrays and objects deeper than 128 levels (maxJsonDepth)");
    EXPECT_EQ(h.driver.thread().size(), 0u);

    // Through the driver's SSE path, whole.
    h.last_step = h.driver.send("go");
    const std::string id = h.run_id();
    json step = h.driver.feed(id, "data: " + test::run_started("t1", id).dump() + "\n\ndata: " +
                                      R"({"type":"STATE_SNAPSHOT","snapshot":)" + deep + "}\n\n");
    EXPECT_EQ(step, json::object());
    h.driver.feed(id, test::sse({test::run_finished("t1", id)}));
    EXPECT_EQ(h.driver.end_of_stream(id)["done"]["reason"], "done");
  });
}

TEST(Limits, ValuesAtTheDepthLimitAreSafeToCopyCompareAndDumpOnASmallStack) {
  // What the limit buys: the deepest state a stream can leave (128 levels) and
  // the RunAgentInput carrying it are copied, compared and serialised, all
  // recursive in nlohmann, within 256 KiB.
  on_small_stack([] {
    Harness h;
    h.last_step = h.driver.send("go");
    const std::string id = h.run_id();
    h.driver.feed(id, "data: " + test::run_started("t1", id).dump() + "\n\ndata: " +
                          R"({"type":"STATE_SNAPSHOT","snapshot":)" + nested(127) + "}\n\n");
    h.driver.feed(id, test::sse({test::run_finished("t1", id)}));
    h.driver.end_of_stream(id);
    h.last_step = h.driver.send("again");
    EXPECT_EQ(h.run()["state"], json::parse(nested(127)));
    EXPECT_FALSE(h.driver.run_input().empty());
    EXPECT_FALSE(h.driver.export_thread().dump().empty());
    EXPECT_FALSE(h.driver.take_changes().dump().empty());
  });
}

TEST(Limits, PatchesCannotBuildStatePastTheDepthLimit) {
  Harness h;
  h.last_step = h.driver.send("go");
  std::string path;
  for (int i = 0; i < 100; ++i) path += "/0";
  json step = h.play(
      {{{"type", "STATE_SNAPSHOT"}, {"snapshot", json::parse(nested(101))}},
       {{"type", "STATE_DELTA"}, {"delta", {{{"op", "add"}, {"path", path + "/0"}, {"value", 1}}}}},
       {{"type", "STATE_DELTA"},
        {"delta", {{{"op", "add"}, {"path", path + "/0"}, {"value", json::parse(nested(60))}}}}}});
  EXPECT_EQ(step["done"]["reason"], "done");
  json skipped = problems(h.driver.take_changes(), "limit_exceeded");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0]["eventType"], "STATE_DELTA");
  EXPECT_NE(skipped[0]["message"].get<std::string>().find(
                "the patch would make the state nest deeper than 128 levels (maxJsonDepth)"),
            std::string::npos);
  EXPECT_FALSE(json_deeper_than(h.driver.thread().state(), 101));  // the first patch applied
  EXPECT_TRUE(json_deeper_than(h.driver.thread().state(), 100));
}

TEST(Limits, ArgumentsNestedPastTheDepthLimitAreRefused) {
  Harness h;
  h.last_step = h.driver.send("go");
  std::vector<json> events = {test::tool_start("c1", "get_current_location")};
  for (int i = 0; i < 200; ++i)
    events.push_back(test::tool_args("c1", "["));  // each event is shallow
  events.push_back(test::tool_end("c1"));
  json step = h.play(events);
  EXPECT_FALSE(step.contains("execute"));
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(error_of(tools[0]),
            "arguments nest arrays and objects deeper than 128 levels (maxJsonDepth); the call was "
            "not run");
}

TEST(Limits, InterruptAnswersPastTheDepthLimitAreRefused) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play({}, {{"type", "interrupt"}, {"interrupts", {{{"id", "i1"}}}}});
  json refused = h.driver.resolve_interrupt("i1", json::parse(nested(129)));
  EXPECT_EQ(refused["error"]["code"], "limit_exceeded");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("(maxJsonDepth)"),
            std::string::npos);
  EXPECT_EQ(h.driver.status()["pendingInterrupts"].size(), 1u);  // still waiting
  EXPECT_TRUE(h.driver.resolve_interrupt("i1", json::parse(nested(128))).contains("run"));
}

TEST(Limits, CallsPastMaxCallsPerRoundGetAnErrorResult) {
  DriverOptions opts;
  opts.max_calls_per_round = 3;
  opts.repeat_limit = 0;
  Harness h(opts);
  h.last_step = h.driver.send("go");
  std::vector<json> events;
  for (int i = 1; i <= 5; ++i) {
    const std::string id = "c" + std::to_string(i);
    events.push_back(test::tool_start(id, "get_current_location", "a1"));
    events.push_back(test::tool_end(id));
  }
  json step = h.play(events);
  ASSERT_EQ(step["execute"].size(), 3u);
  EXPECT_EQ(step["execute"][2]["toolCallId"], "c3");
  for (const char* id : {"c1", "c2"}) EXPECT_EQ(h.driver.submit_result(id, "ok"), json::object());
  step = h.driver.submit_result("c3", "ok");
  ASSERT_TRUE(step.contains("run"));  // the turn goes on
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 5u);  // in call order
  for (int i = 0; i < 5; ++i) EXPECT_EQ(tools[i]["toolCallId"], "c" + std::to_string(i + 1));
  EXPECT_EQ(error_of(tools[3]),
            "too many tool calls in one round: the client runs at most 3 per round "
            "(maxCallsPerRound), so this call was not run");
  EXPECT_EQ(error_of(tools[4]), error_of(tools[3]));
}

TEST(Limits, MaxCallsPerRoundDefaultIsSixtyFour) {
  Harness h;
  h.last_step = h.driver.send("go");
  std::vector<json> events;
  for (int i = 0; i < 65; ++i) {
    const std::string id = "c" + std::to_string(i);
    events.push_back(test::tool_start(id, "get_weather", "a1"));
    events.push_back(test::tool_args(id, R"({"city":"C)" + std::to_string(i) + R"("})"));
    events.push_back(test::tool_end(id));
  }
  json step = h.play(events);
  EXPECT_EQ(step["execute"].size(), 64u);
  EXPECT_EQ(h.driver.status()["running"].size(), 64u);
}

TEST(Limits, MaxJsonDepthHasAnUpperBound) {
  auto bad = DriverOptions::from_json({{"maxJsonDepth", kMaxJsonDepthBound + 1}});
  ASSERT_TRUE(std::holds_alternative<Error>(bad));
  EXPECT_EQ(std::get<Error>(bad).code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(std::get<Error>(bad).message,
            "option 'maxJsonDepth' must be at most 1000: deeper values would overflow the "
            "module's stack");
  auto most = DriverOptions::from_json({{"maxJsonDepth", kMaxJsonDepthBound}});
  ASSERT_TRUE(std::holds_alternative<DriverOptions>(most));
  // And that depth folds: an event nested to the bound goes into the state whole.
  Harness h(std::get<DriverOptions>(most));
  h.last_step = h.driver.send("deep");
  std::string deep =
      std::string(kMaxJsonDepthBound - 2, '[') + "0" + std::string(kMaxJsonDepthBound - 2, ']');
  std::string body = test::sse({test::run_started("t1", h.run_id())}) +
                     "data: {\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"v\":" + deep + "}}\n\n" +
                     test::sse({test::run_finished("t1", h.run_id())});
  h.driver.feed(h.run_id(), body);
  EXPECT_EQ(h.driver.end_of_stream(h.run_id())["done"]["reason"], "done");
  EXPECT_TRUE(json_deeper_than(h.driver.thread().state(), kMaxJsonDepthBound - 2));
  EXPECT_FALSE(json_deeper_than(h.driver.thread().state(), kMaxJsonDepthBound - 1));
}

}  // namespace
}  // namespace agui
