// The round driver: the client-tool loop, the round cap, approvals, interrupts,
// at-most-once execution, aborts and export/import.
#include "client/round_driver.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace agui {
namespace {

using test::error_of;
using test::every_call_answered_once;
using test::Harness;
using test::tool_messages;

json content_of(const json& tool_message) {
  return json::parse(tool_message["content"].get<std::string>());
}

TEST(RoundDriver, SendBuildsTheRunAgentInput) {
  DriverOptions opts;
  opts.context = json::array({{{"description", "tz"}, {"value", "UTC"}}});
  opts.forwarded_props = {{"x", 1}};
  Harness h(opts);
  h.last_step = h.driver.send("Hello");
  const json run = h.run();
  EXPECT_EQ(run["threadId"], "t1");
  EXPECT_TRUE(run["runId"].is_string());
  ASSERT_EQ(run["messages"].size(), 1u);
  EXPECT_EQ(run["messages"][0]["role"], "user");
  EXPECT_EQ(run["messages"][0]["content"], "Hello");
  EXPECT_TRUE(run["messages"][0]["id"].is_string());
  // Enabled tools only, in registration order: read_clipboard is opt-in.
  ASSERT_EQ(run["tools"].size(), 3u);
  EXPECT_EQ(run["tools"][0]["name"], "get_weather");
  EXPECT_EQ(run["tools"][2]["name"], "delete_file");
  EXPECT_EQ(run["context"], opts.context);
  EXPECT_EQ(run["forwardedProps"], opts.forwarded_props);
  EXPECT_EQ(run["state"], json::object());
  EXPECT_FALSE(run.contains("resume"));
}

TEST(RoundDriver, ATurnsForwardedPropsGoOverTheRuntimesOnEveryRunOfThatTurn) {
  DriverOptions opts;
  opts.forwarded_props = {{"locale", "fr"}, {"theme", "dark"}};
  Harness h(opts);
  h.last_step = h.driver.send("weather?", {{"forwardedProps", {{"theme", "light"}, {"a", 1}}}});
  // Shallow, as {...runtime, ...turn}: the runtime's keys keep their place.
  const json merged = {{"locale", "fr"}, {"theme", "light"}, {"a", 1}};
  EXPECT_EQ(h.run()["forwardedProps"].dump(), merged.dump());
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  h.last_step = h.driver.submit_result("c1", "{}");
  EXPECT_EQ(h.run()["forwardedProps"].dump(), merged.dump());  // the follow-up is the turn's
  h.play({test::text("m2", "ok")});
  h.last_step = h.driver.send("next");  // a new turn without them: the runtime's alone
  EXPECT_EQ(h.run()["forwardedProps"], opts.forwarded_props);
}

TEST(RoundDriver, AnEmptySendWithForwardedPropsRunsWithNoNewMessage) {
  Harness h;
  h.last_step = h.driver.send("hi");
  h.play({test::text("m1", "hello")});
  const std::size_t before = h.driver.thread().size();
  h.last_step = h.driver.send(json::array(), {{"forwardedProps", {{"a2uiAction", {{"n", 1}}}}}});
  ASSERT_TRUE(h.last_step.contains("run"));
  EXPECT_EQ(h.run()["messages"].size(), before);
  EXPECT_EQ(h.run()["forwardedProps"], (json{{"a2uiAction", {{"n", 1}}}}));
  // With nothing to send and nothing forwarded, there is no run.
  h.play({test::text("m2", "ok")});
  EXPECT_EQ(h.driver.send(json::array())["error"]["code"], "invalid_argument");
}

TEST(RoundDriver, BadSendOptionsAreRefusedNamingTheOption) {
  Harness h;
  const json bad_props = h.driver.send("x", {{"forwardedProps", json::array()}});
  EXPECT_EQ(bad_props["error"]["message"], "send(): options.forwardedProps must be an object");
  const json unknown = h.driver.send("x", {{"forwarded", json::object()}});
  EXPECT_EQ(unknown["error"]["message"], "send(): options: unknown option 'forwarded'");
  EXPECT_EQ(h.driver.thread().size(), 0u);  // nothing changed
}

TEST(RoundDriver, ATurnsForwardedPropsSurviveAnExportMidTurn) {
  Harness h;
  h.last_step = h.driver.send("weather?", {{"forwardedProps", {{"k", "v"}}}});
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  auto restored =
      RoundDriver::from_export(h.registry, json::parse(h.driver.export_thread().dump()));
  auto& driver = *std::get<std::unique_ptr<RoundDriver>>(restored);
  // The started call is closed as one that may have completed, and the turn goes on.
  ASSERT_TRUE(driver.continue_turn().contains("run"));
  EXPECT_EQ(json::parse(driver.run_input())["forwardedProps"], (json{{"k", "v"}}));
}

TEST(RoundDriver, TheTurnsDoneCarriesItsLastRunsResult) {
  Harness h;
  h.last_step = h.driver.send("hi");
  json finished = test::run_finished("t1", h.run_id());
  finished["result"] = {{"answer", 42}};
  json step = h.play_raw({test::run_started("t1", h.run_id()), test::text("m1", "x"), finished});
  EXPECT_EQ(step["done"]["result"], (json{{"answer", 42}}));
  h.last_step = h.driver.send("again");  // a run with no result: none on its done
  EXPECT_FALSE(h.play({test::text("m2", "y")})["done"].contains("result"));
}

TEST(RoundDriver, ASideRequestAnswersWithTheResultAndTouchesNothing) {
  Harness h;
  h.last_step = h.driver.send("weather?");
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");  // a handler is running
  const json status = h.driver.status();
  const std::string turn_input = h.driver.run_input();
  const json opened = h.driver.request({{"forwardedProps", {{"__proxiedMCPRequest", 1}}}});
  const std::string id = opened["runId"];
  const json body = json::parse(h.driver.request_input());
  EXPECT_EQ(body["runId"], id);
  EXPECT_EQ(body["messages"], json::array());  // (the turn's call has no answer yet)
  EXPECT_EQ(body["forwardedProps"], (json{{"__proxiedMCPRequest", 1}}));
  // Only RUN_FINISHED counts: the text is not folded into the thread.
  json finished = {{"type", "RUN_FINISHED"}, {"threadId", id}, {"runId", id}};
  finished["result"] = {{"contents", json::array()}};
  const std::string bytes = test::sse({{{"type", "RUN_STARTED"}, {"threadId", id}, {"runId", id}},
                                       test::text("m9", "z"),
                                       finished});
  EXPECT_EQ(h.driver.request_feed(id, bytes.substr(0, 10), false), json::object());
  EXPECT_EQ(h.driver.request_feed(id, bytes.substr(10), false),
            (json{{"result", {{"contents", json::array()}}}}));
  EXPECT_EQ(h.driver.request_feed(id, "", true)["stale"], true);  // settled: gone
  EXPECT_EQ(h.driver.status(), status);
  EXPECT_EQ(h.driver.run_input(), turn_input);
  EXPECT_EQ(h.driver.thread().find_message("m9"), nullptr);
  ASSERT_TRUE(h.driver.submit_result("c1", "{}").contains("run"));  // the turn goes on
}

TEST(RoundDriver, ASideRequestWithoutRunFinishedOrWithRunErrorIsRefused) {
  Harness h;
  std::string id = h.driver.request(json::object())["runId"];
  const json ended = h.driver.request_feed(id, test::sse({test::run_started(id, id)}), true);
  EXPECT_EQ(ended["error"]["message"], "request(): the stream ended before RUN_FINISHED");
  id = h.driver.request(json::object())["runId"];
  const json errored = h.driver.request_feed(
      id, test::sse({{{"type", "RUN_ERROR"}, {"message", "no such server"}}}), false);
  EXPECT_EQ(errored["error"]["code"], "protocol");
  EXPECT_EQ(errored["error"]["message"], "request(): the agent answered RUN_ERROR: no such server");
  EXPECT_EQ(h.driver.request({{"forwardedProps", 1}})["error"]["message"],
            "request(): options.forwardedProps must be an object");
}

TEST(RoundDriver, ContentPartsGoOutAsTheToolMessagesContent) {
  Harness h;
  h.last_step = h.driver.send("weather?");
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  const json parts = json::parse(
      R"([{"type":"text","text":"sunny"},{"type":"image","source":{"type":"url","value":"u"}}])");
  h.last_step = h.driver.submit_parts("c1", parts.dump());
  ASSERT_TRUE(h.last_step.contains("run"));
  const json msgs = h.run()["messages"];
  EXPECT_EQ(msgs[2]["content"], parts);
  EXPECT_FALSE(msgs[2].contains("error"));
}

TEST(RoundDriver, PartsThatAreNotContentPartsGiveTheCallAnErrorResult) {
  Harness h;
  h.last_step = h.driver.send("weather?");
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  h.last_step = h.driver.submit_parts("c1", R"([{"type":"text","text":"ok"},{"type":"image"}])");
  const json tool = h.run()["messages"][2];
  EXPECT_EQ(error_of(tool), "the handler's content parts are not AG-UI ContentParts");
  EXPECT_EQ(content_of(tool)["details"][0]["path"], "/1");
}

TEST(RoundDriver, EachRunGetsAFreshRunId) {
  Harness h;
  h.last_step = h.driver.send("a");
  const std::string first = h.run_id();
  h.play_call("c1", "get_current_location", "");
  ASSERT_TRUE(h.last_step.contains("execute"));
  h.last_step = h.driver.submit_result("c1", "{\"lat\":1}");
  EXPECT_NE(h.run_id(), first);
}

TEST(RoundDriver, AnIdempotentToolsCallSaysSoInItsExecuteEntry) {
  auto registry = test::sample_registry();
  ToolSpec ping;
  ping.name = "ping";
  ping.description = "Pings.";
  ping.idempotent = true;  // (the shim may start it though its start is not durable)
  ASSERT_FALSE(registry->add(std::move(ping)).has_value());
  test::Harness h(registry, {});
  h.last_step = h.driver.send("ping");
  const json step = h.play_call("c1", "ping", "");
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["idempotent"], true);
}

TEST(RoundDriver, TextOnlyTurnEndsDone) {
  Harness h;
  h.last_step = h.driver.send("hi");
  json step = h.play({{{"type", "TEXT_MESSAGE_START"}, {"messageId", "m1"}},
                      test::text("m1", "Hello!"),
                      {{"type", "TEXT_MESSAGE_END"}, {"messageId", "m1"}}});
  EXPECT_EQ(step["done"]["reason"], "done");
  EXPECT_EQ(h.driver.status()["phase"], "idle");
  EXPECT_EQ(h.driver.thread().size(), 2u);
}

TEST(RoundDriver, OneToolRoundTrip) {
  Harness h;
  h.last_step = h.driver.send("weather?");
  json step = h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["toolCallId"], "c1");
  EXPECT_EQ(step["execute"][0]["name"], "get_weather");
  EXPECT_EQ(step["execute"][0]["args"], (json{{"city", "Paris"}}));
  EXPECT_EQ(step["execute"][0]["timeoutMs"], 30000);
  EXPECT_FALSE(step["execute"][0].contains("idempotent"));  // (only a tool marked so says it)
  EXPECT_FALSE(step.contains("run"));
  EXPECT_EQ(h.driver.status()["running"], json::array({"c1"}));

  h.last_step = h.driver.submit_result("c1", R"({"temp":21})");
  ASSERT_TRUE(h.last_step.contains("run"));
  const json msgs = h.run()["messages"];
  ASSERT_EQ(msgs.size(), 3u);  // user, assistant with the call, tool result
  EXPECT_EQ(msgs[2]["role"], "tool");
  EXPECT_EQ(msgs[2]["toolCallId"], "c1");
  EXPECT_EQ(msgs[2]["content"], R"({"temp":21})");
  EXPECT_FALSE(msgs[2].contains("error"));
  EXPECT_EQ(h.run()["tools"].size(), 3u);  // re-advertised

  step = h.play({test::text("m2", "x")});
  EXPECT_EQ(step["done"]["reason"], "done");
}

TEST(RoundDriver, ParallelResultsInAnyOrderAreAppendedInCallOrder) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step =
      h.play({test::tool_start("c1", "get_weather", "a1"), test::tool_args("c1", R"({"city":"A"})"),
              test::tool_end("c1"), test::tool_start("c2", "get_weather", "a1"),
              test::tool_args("c2", R"({"city":"B"})"), test::tool_end("c2"),
              test::tool_start("c3", "get_current_location", "a1"), test::tool_end("c3")});
  ASSERT_EQ(step["execute"].size(), 3u);
  EXPECT_EQ(h.driver.submit_result("c3", "three"), json::object());  // waits for the others
  EXPECT_EQ(h.driver.submit_result("c1", "one"), json::object());
  EXPECT_TRUE(tool_messages(h.driver).empty());
  h.last_step = h.driver.submit_result("c2", "two");
  ASSERT_TRUE(h.last_step.contains("run"));
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 3u);
  EXPECT_EQ(tools[0]["toolCallId"], "c1");
  EXPECT_EQ(tools[1]["toolCallId"], "c2");
  EXPECT_EQ(tools[2]["toolCallId"], "c3");
  EXPECT_EQ(tools[2]["content"], "three");
}

TEST(RoundDriver, HandlerErrorBecomesAnErrorResult) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play_call("c1", "get_current_location", "");
  h.last_step = h.driver.submit_error("c1", "User denied Geolocation");
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0]["error"], "User denied Geolocation");
  EXPECT_EQ(content_of(tools[0]), (json{{"error", "User denied Geolocation"}}));
  EXPECT_TRUE(h.last_step.contains("run"));
}

TEST(RoundDriver, LateAndDuplicateAnswersAreRefused) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play_call("c1", "get_current_location", "");
  h.driver.submit_error("c1", "timed out after 30000 ms");
  json late = h.driver.submit_result("c1", "late");
  EXPECT_EQ(late["error"]["code"], "unknown_tool_call");  // the round moved on
  EXPECT_EQ(h.driver.submit_result("nope", "x")["error"]["code"], "unknown_tool_call");
  EXPECT_EQ(tool_messages(h.driver).size(), 1u);
}

TEST(RoundDriver, EmptyArgumentsMeanAnEmptyObject) {
  Harness h;
  h.last_step = h.driver.send("where am I");
  json step = h.play_call("c1", "get_current_location", "  ");
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["args"], json::object());
}

TEST(RoundDriver, InvalidArgumentsNeverReachAHandler) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play({test::tool_start("c1", "get_weather"),
                      test::tool_args("c1", R"({"city":42})"), test::tool_end("c1"),
                      test::tool_start("c2", "get_weather"), test::tool_args("c2", R"({"city":)"),
                      test::tool_end("c2"), test::tool_start("c3", "get_weather"),
                      test::tool_args("c3", "[1]"), test::tool_end("c3")});
  EXPECT_FALSE(step.contains("execute"));
  ASSERT_TRUE(step.contains("run"));  // the model gets the errors and may try again
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 3u);
  json c1 = content_of(tools[0]);
  EXPECT_EQ(c1["error"], "invalid arguments");
  ASSERT_FALSE(c1["details"].empty());
  EXPECT_EQ(c1["details"][0]["path"], "/city");
  EXPECT_NE(tools[1]["error"].get<std::string>().find("not valid JSON"), std::string::npos);
  EXPECT_NE(tools[2]["error"].get<std::string>().find("must be a JSON object"), std::string::npos);
}

TEST(RoundDriver, DisabledToolNamedByTheModelNeverRuns) {
  Harness h;
  h.last_step = h.driver.send("read my clipboard");
  json step = h.play_call("c1", "read_clipboard", "{}");
  EXPECT_FALSE(step.contains("execute"));
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_NE(tools[0]["error"].get<std::string>().find("disabled"), std::string::npos);
  EXPECT_TRUE(step.contains("run"));
}

TEST(RoundDriver, ToolsDisabledAfterAdvertisingStillNeverRun) {
  Harness h;
  h.last_step = h.driver.send("go");
  ASSERT_FALSE(h.registry->set_enabled("get_weather", false));
  json step = h.play_call("c1", "get_weather", R"({"city":"x"})");
  EXPECT_FALSE(step.contains("execute"));
  EXPECT_EQ(h.run()["tools"].size(), 2u);  // the follow-up no longer advertises it
}

TEST(RoundDriver, CallsToServerToolsAreNotOurs) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play_call("s1", "execute_query", R"({"query":"select 1"})");
  EXPECT_EQ(step["done"]["reason"], "done");
  EXPECT_TRUE(tool_messages(h.driver).empty());
}

TEST(RoundDriver, PendingToolCallIdsAreAuthoritative) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step =
      h.play({test::tool_start("c1", "get_weather"), test::tool_args("c1", R"({"city":"x"})"),
              test::tool_end("c1"), test::tool_start("c2", "execute_query"), test::tool_end("c2"),
              test::tool_start("c3", "get_current_location"), test::tool_end("c3")},
             {{"type", "success"}, {"pendingToolCallIds", {"c2", "c3", "ghost"}}});
  // c1 is not named as pending: the server will answer it; c2 names a tool this
  // client does not have; "ghost" is not in the thread at all.
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["toolCallId"], "c3");
  json changes = h.driver.take_changes();
  bool ghost_reported = false;
  for (const auto& c : changes) {
    if (c["kind"] == "problem" && c["code"] == "unknown_pending_call") {
      ghost_reported = c["message"].get<std::string>().find("ghost") != std::string::npos;
    }
  }
  EXPECT_TRUE(ghost_reported);
  h.last_step = h.driver.submit_result("c3", "here");
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 3u);  // each right after its call's message: c1, c2, c3
  // c1 was left to the server, which never answered it: closed before the follow-up.
  EXPECT_EQ(tools[0]["toolCallId"], "c1");
  EXPECT_NE(tools[0]["error"].get<std::string>().find("no result was received from the agent"),
            std::string::npos);
  EXPECT_EQ(tools[1]["toolCallId"], "c2");
  EXPECT_NE(tools[1]["error"].get<std::string>().find("not available in this client"),
            std::string::npos);
  EXPECT_EQ(tools[2]["content"], "here");
}

TEST(RoundDriver, RoundCapClosesDanglingCalls) {
  Harness h;  // max_rounds = 5
  h.last_step = h.driver.send("loop");
  int executed = 0;
  for (int run = 0;; ++run) {
    ASSERT_LT(run, 10) << "the cap never stopped the loop";
    const std::string id = "c" + std::to_string(run);
    json step = h.play_call(id, "get_weather", R"({"city":"city)" + std::to_string(run) + "\"}");
    if (step.contains("done")) {
      EXPECT_EQ(step["done"]["reason"], "round_limit");
      EXPECT_EQ(run, 5);  // the initial run and five follow-ups
      break;
    }
    ASSERT_EQ(step["execute"].size(), 1u);
    ++executed;
    h.last_step = h.driver.submit_result(id, "ok");
  }
  EXPECT_EQ(executed, 5);
  EXPECT_TRUE(every_call_answered_once(h.driver.thread().messages()));
  json last = tool_messages(h.driver).back();
  EXPECT_EQ(last["toolCallId"], "c5");
  EXPECT_NE(last["error"].get<std::string>().find("round limit"), std::string::npos);
  EXPECT_EQ(h.driver.status()["phase"], "idle");
}

TEST(RoundDriver, RoundCapIsConfigurable) {
  DriverOptions opts;
  opts.max_rounds = 1;
  Harness h(opts);
  h.last_step = h.driver.send("loop");
  h.play_call("c0", "get_current_location", "{}");
  h.last_step = h.driver.submit_result("c0", "ok");
  json step = h.play_call("c1", "get_current_location", R"({"again":1})");
  EXPECT_EQ(step["done"]["reason"], "round_limit");
}

TEST(RoundDriver, RunawayGuardRefusesTheSameCallRepeated) {
  Harness h;  // repeat_limit = 3
  h.last_step = h.driver.send("loop");
  std::vector<bool> ran;
  for (int run = 0; run < 3; ++run) {
    const std::string id = "c" + std::to_string(run);
    json step = h.play_call(id, "get_weather", R"({"city":"Paris"})");
    ran.push_back(step.contains("execute"));
    if (step.contains("execute")) h.last_step = h.driver.submit_result(id, "ok");
  }
  EXPECT_EQ(ran, (std::vector<bool>{true, true, false}));
  json last = tool_messages(h.driver).back();
  EXPECT_NE(last["error"].get<std::string>().find("runaway guard"), std::string::npos);
  EXPECT_NE(last["error"].get<std::string>().find("3 times in a row"), std::string::npos);
}

TEST(RoundDriver, RunawayGuardResetsWhenArgumentsChange) {
  Harness h;
  h.last_step = h.driver.send("loop");
  const char* cities[] = {"A", "A", "B", "A", "A"};
  for (int run = 0; run < 5; ++run) {
    const std::string id = "c" + std::to_string(run);
    json step = h.play_call(id, "get_weather", std::string(R"({"city":")") + cities[run] + "\"}");
    ASSERT_TRUE(step.contains("execute")) << "run " << run;
    h.last_step = h.driver.submit_result(id, "ok");
  }
}

TEST(RoundDriver, ApprovalApprovedRunsTheCall) {
  Harness h;
  h.last_step = h.driver.send("delete it");
  json step = h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  EXPECT_FALSE(step.contains("execute"));
  EXPECT_FALSE(step.contains("run"));
  json status = h.driver.status();
  ASSERT_EQ(status["pendingApprovals"].size(), 1u);
  EXPECT_EQ(status["pendingApprovals"][0]["toolCallId"], "c1");
  EXPECT_EQ(status["pendingApprovals"][0]["threadId"], "t1");
  EXPECT_EQ(status["pendingApprovals"][0]["confirm"], "Delete this file?");

  step = h.driver.approve("t1", "c1");
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["args"], (json{{"path", "/tmp/x"}}));
  EXPECT_EQ(h.driver.approve("t1", "c1")["error"]["code"], "already_answered");  // no replay
  h.last_step = h.driver.submit_result("c1", "deleted");
  EXPECT_TRUE(h.last_step.contains("run"));
}

TEST(RoundDriver, ApprovalRejectedBecomesAnErrorResult) {
  Harness h;
  h.last_step = h.driver.send("delete it");
  h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  h.last_step = h.driver.reject("t1", "c1", "not today");
  ASSERT_TRUE(h.last_step.contains("run"));
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0]["error"], "the user rejected this call: not today");
  EXPECT_EQ(h.driver.approve("t1", "c1")["error"]["code"], "unknown_tool_call");
}

TEST(RoundDriver, ARejectionCanBeTheToolsAnswer) {
  auto reg = test::sample_registry();
  ToolSpec s;
  s.name = "request_user_approval";
  s.description = "Ask the user to approve an action.";
  s.requires_approval = true;
  s.rejected_result = {{"decision", "rejected"}};
  ASSERT_FALSE(reg->add(s));
  Harness h(reg, {});
  h.last_step = h.driver.send("ask");
  h.play_call("c1", "request_user_approval", R"({"action":"deploy"})");
  h.last_step = h.driver.reject("t1", "c1", "not now");
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_FALSE(tools[0].contains("error"));  // a decision, not a failure
  EXPECT_EQ(content_of(tools[0]), (json{{"decision", "rejected"}, {"reason", "not now"}}));
  EXPECT_EQ(h.driver.status()["pendingApprovals"].size(), 0u);
}

TEST(RoundDriver, ApprovalAnsweredFromAnotherThreadIsRefused) {
  Harness h;
  h.last_step = h.driver.send("delete it");
  h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  json refused = h.driver.approve("t2", "c1");
  EXPECT_EQ(refused["error"]["code"], "wrong_thread");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("belongs to thread 't1'"),
            std::string::npos);
  EXPECT_EQ(h.driver.reject("t2", "c1", "")["error"]["code"], "wrong_thread");
  EXPECT_EQ(h.driver.status()["pendingApprovals"].size(), 1u);  // still pending
}

TEST(RoundDriver, DestructiveToolsNeedApprovalToo) {
  auto reg = test::sample_registry();
  ToolSpec s;
  s.name = "drop_table";
  s.description = "Drops a table.";
  s.destructive = true;
  ASSERT_FALSE(reg->add(s));
  Harness h(reg, {});
  h.last_step = h.driver.send("drop");
  json step = h.play_call("c1", "drop_table", "{}");
  EXPECT_FALSE(step.contains("execute"));
  EXPECT_EQ(h.driver.status()["pendingApprovals"][0]["destructive"], true);
}

TEST(RoundDriver, SnapshotRepeatingAnAnsweredCallDoesNotRunItAgain) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play_call("c1", "get_current_location", "{}");
  h.last_step = h.driver.submit_result("c1", "here");
  // The next run's snapshot repeats the call but drops our answer, and a
  // replayed TOOL_CALL_START names it again.
  json snapshot = {
      {"type", "MESSAGES_SNAPSHOT"},
      {"messages",
       {{{"id", "a1"},
         {"role", "assistant"},
         {"toolCalls",
          {{{"id", "c1"},
            {"type", "function"},
            {"function", {{"name", "get_current_location"}, {"arguments", "{}"}}}}}}}}}};
  json step =
      h.play({snapshot, test::tool_start("c1", "get_current_location"), test::tool_end("c1")});
  EXPECT_FALSE(step.contains("execute"));
  EXPECT_EQ(step["done"]["reason"], "done");
  EXPECT_TRUE(h.driver.answered_or_started("c1"));
}

TEST(RoundDriver, ReplayedStreamDoesNotRunACallTwice) {
  Harness h;
  h.last_step = h.driver.send("go");
  std::vector<json> events = {test::run_started("t1", h.run_id()),
                              test::tool_start("c1", "get_current_location"), test::tool_end("c1"),
                              test::run_finished("t1", h.run_id())};
  json step = h.play_raw(events);
  ASSERT_EQ(step["execute"].size(), 1u);
  h.last_step = h.driver.submit_result("c1", "here");
  events[0]["runId"] = h.run_id();
  events[3]["runId"] = h.run_id();
  step = h.play_raw(events);  // the same stream again
  EXPECT_FALSE(step.contains("execute"));
  EXPECT_EQ(step["done"]["reason"], "done");
}

TEST(RoundDriver, RunErrorStopsTheTurnAndKeepsTheThread) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play_raw(
      {test::run_started("t1", h.run_id()),
       {{"type", "TEXT_MESSAGE_START"}, {"messageId", "m1"}},
       test::text("m1", "partial"),
       test::tool_start("c1", "get_current_location", "m1"),
       {{"type", "RUN_ERROR"}, {"message", "model overloaded"}, {"code", "overloaded"}}});
  EXPECT_EQ(step["done"]["reason"], "run_error");
  EXPECT_EQ(step["done"]["message"], "model overloaded");
  EXPECT_EQ(step["done"]["code"], "overloaded");
  EXPECT_FALSE(step.contains("run"));
  EXPECT_FALSE(step.contains("execute"));
  EXPECT_EQ(h.driver.thread().find_message("m1")->at("content"), "partial");
  EXPECT_TRUE(every_call_answered_once(
      h.driver.thread().messages()));  // the call the failed run left is closed
}

TEST(RoundDriver, StreamEndingBeforeRunFinishedIsARunError) {
  Harness h;
  h.last_step = h.driver.send("go");
  const std::string id = h.run_id();
  h.driver.feed(id, test::sse({test::run_started("t1", id), test::text("m1", "x")}) +
                        "data: {\"type\":\"TEXT_MES");
  json step = h.driver.end_of_stream(id);
  EXPECT_EQ(step["done"]["reason"], "run_error");
  EXPECT_EQ(step["done"]["message"], "the stream ended before RUN_FINISHED");
  EXPECT_TRUE(test::has_problem(h.driver.take_changes(), "truncated_event"));
}

TEST(RoundDriver, TransportFailureIsARunError) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.driver.transport_failed(h.run_id(), "HTTP 500 from http://x/agent: boom");
  EXPECT_EQ(step["done"]["reason"], "run_error");
  EXPECT_EQ(step["done"]["code"], "transport");
  EXPECT_EQ(h.driver.thread().size(), 1u);  // the user message stays
}

TEST(RoundDriver, FatalProtocolViolationStopsTheRunMidStream) {
  Harness h;
  h.last_step = h.driver.send("go");
  const std::string id = h.run_id();
  json step =
      h.driver.feed(id, test::sse({test::run_started("t1", id), test::run_started("t1", id)}));
  EXPECT_EQ(step["done"]["reason"], "run_error");
  EXPECT_EQ(h.driver.feed(id, "data: {}\n\n")["stale"], true);
}

TEST(RoundDriver, StaleRunIdsAreIgnored) {
  Harness h;
  h.last_step = h.driver.send("go");
  EXPECT_EQ(h.driver.feed("run-other", "data: {}\n\n")["stale"], true);
  EXPECT_EQ(h.driver.end_of_stream("run-other")["stale"], true);
  EXPECT_EQ(h.driver.status()["phase"], "running");
}

TEST(RoundDriver, AbortMidStreamClosesCallsAsCancelled) {
  Harness h;
  h.last_step = h.driver.send("go");
  const std::string id = h.run_id();
  h.driver.feed(
      id, test::sse({test::run_started("t1", id), test::tool_start("c1", "get_current_location")}));
  json step = h.driver.abort("");
  EXPECT_EQ(step["done"]["reason"], "aborted");
  EXPECT_TRUE(every_call_answered_once(h.driver.thread().messages()));
  EXPECT_NE(tool_messages(h.driver)[0]["error"].get<std::string>().find("cancelled"),
            std::string::npos);
  EXPECT_EQ(h.driver.feed(id, "data: {}\n\n")["stale"], true);
}

TEST(RoundDriver, AbortMidHandlerCancelsAndIgnoresTheLateResult) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play_call("c1", "get_current_location", "{}");
  json step = h.driver.abort("user pressed stop");
  EXPECT_EQ(step["done"]["reason"], "aborted");
  EXPECT_EQ(h.driver.submit_result("c1", "late")["error"]["code"], "unknown_tool_call");
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0]["error"], "cancelled: user pressed stop");
}

TEST(RoundDriver, NewMessageWhileCallsAreOutstandingClosesThemFirst) {
  Harness h;
  h.last_step = h.driver.send("delete it");
  h.play_call("c1", "delete_file", R"({"path":"/x"})");
  h.last_step = h.driver.send("never mind");
  ASSERT_TRUE(h.last_step.contains("run"));
  const json msgs = h.run()["messages"];
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_EQ(msgs[2]["role"], "tool");
  EXPECT_NE(msgs[2]["error"].get<std::string>().find("cancelled"), std::string::npos);
  EXPECT_EQ(msgs[3]["content"], "never mind");
}

TEST(RoundDriver, SendWhileARunIsInFlightSupersedesIt) {
  Harness h;
  h.last_step = h.driver.send("a");
  const std::string first = h.run_id();
  h.driver.feed(first, test::sse({test::run_started("t1", first),
                                  test::tool_start("c1", "get_current_location")}));
  EXPECT_EQ(h.driver.send(42)["error"]["code"], "invalid_argument");  // refused: nothing changed
  EXPECT_EQ(h.driver.status()["phase"], "running");
  h.last_step = h.driver.send("b");
  ASSERT_TRUE(h.last_step.contains("run"));
  EXPECT_NE(h.run_id(), first);
  EXPECT_EQ(h.driver.feed(first, "data: {}\n\n")["stale"], true);
  EXPECT_TRUE(
      every_call_answered_once(h.driver.thread().messages()));  // c1 was closed as cancelled
  EXPECT_EQ(h.run()["messages"].back()["content"], "b");
}

TEST(RoundDriver, BadSendInputNamesTheProblem) {
  Harness h;
  EXPECT_EQ(h.driver.send(42)["error"]["code"], "invalid_argument");
  json bad = h.driver.send(json::array({{{"role", "user"}}}));
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("message 0"), std::string::npos);
  EXPECT_EQ(h.driver.thread().size(), 0u);
}

json interrupt_outcome() {
  return {{"type", "interrupt"},
          {"interrupts",
           {{{"id", "int-1"},
             {"reason", "confirmation"},
             {"message", "Proceed?"},
             {"responseSchema",
              {{"type", "object"},
               {"properties", {{"confirm", {{"type", "boolean"}}}}},
               {"required", {"confirm"}}}}}}}};
}

TEST(RoundDriver, InterruptsAreAnsweredWithResumeOnTheNextRun) {
  Harness h;
  h.last_step = h.driver.send("export");
  json step = h.play({}, interrupt_outcome());
  EXPECT_FALSE(step.contains("run"));
  EXPECT_FALSE(step.contains("done"));
  ASSERT_EQ(h.driver.status()["pendingInterrupts"].size(), 1u);

  json bad = h.driver.resolve_interrupt("int-1", {{"confirm", "yes"}});
  EXPECT_EQ(bad["error"]["code"], "invalid_argument");
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("/confirm"), std::string::npos);
  EXPECT_EQ(h.driver.resolve_interrupt("int-9", {})["error"]["code"], "unknown_interrupt");

  h.last_step = h.driver.resolve_interrupt("int-1", {{"confirm", true}});
  ASSERT_TRUE(h.last_step.contains("run"));
  EXPECT_EQ(
      h.run()["resume"],
      json::array(
          {{{"interruptId", "int-1"}, {"status", "resolved"}, {"payload", {{"confirm", true}}}}}));
  step = h.play({test::text("m1", "done")});
  EXPECT_EQ(step["done"]["reason"], "done");
}

TEST(RoundDriver, CancelledInterruptGoesOutAsCancelled) {
  Harness h;
  h.last_step = h.driver.send("export");
  h.play({}, interrupt_outcome());
  h.last_step = h.driver.cancel_interrupt("int-1", "expired at 2026-01-01T00:00:00Z");
  EXPECT_EQ(h.run()["resume"][0]["status"], "cancelled");
  EXPECT_EQ(h.run()["resume"][0]["payload"]["reason"], "expired at 2026-01-01T00:00:00Z");
}

TEST(RoundDriver, ExportAndImportNeverRunAStartedCallAgain) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play({test::tool_start("c1", "get_current_location", "a1"), test::tool_end("c1"),
                      test::tool_start("c2", "delete_file", "a1"),
                      test::tool_args("c2", R"({"path":"/x"})"), test::tool_end("c2")});
  ASSERT_EQ(step["execute"].size(), 1u);  // c1 runs, c2 waits for approval
  const json exported = h.driver.export_thread();
  // Exported state survives a JSON round trip (as it would through storage).
  const json reloaded = json::parse(exported.dump());

  auto restored = RoundDriver::from_export(h.registry, reloaded);
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<RoundDriver>>(restored));
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  EXPECT_EQ(d.thread_id(), "t1");
  json status = d.status();
  EXPECT_EQ(status["phase"], "awaiting");
  ASSERT_EQ(status["pendingApprovals"].size(), 1u);  // approvals come back pending
  EXPECT_EQ(status["pendingApprovals"][0]["toolCallId"], "c2");
  EXPECT_TRUE(status["running"].empty());        // c1 is not run again
  EXPECT_EQ(d.continue_turn(), json::object());  // still waiting on the approval
  step = d.approve("t1", "c2");
  ASSERT_EQ(step["execute"].size(), 1u);
  step = d.submit_result("c2", "deleted");
  ASSERT_TRUE(step.contains("run"));
  json tools = tool_messages(d);
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0]["toolCallId"], "c1");
  EXPECT_NE(tools[0]["error"].get<std::string>().find("may have completed"), std::string::npos);
  EXPECT_EQ(tools[1]["content"], "deleted");
}

TEST(RoundDriver, ImportRejectsWhatIsNotAnExport) {
  auto reg = test::sample_registry();
  auto bad = RoundDriver::from_export(reg, {{"messages", json::array()}});
  ASSERT_TRUE(std::holds_alternative<Error>(bad));
  EXPECT_NE(std::get<Error>(bad).message.find("format"), std::string::npos);
  auto bad_msg = RoundDriver::from_export(reg, {{"format", "agui-client-tools/thread"},
                                                {"version", 1},
                                                {"threadId", "t"},
                                                {"messages", {{{"role", "user"}}}}});
  ASSERT_TRUE(std::holds_alternative<Error>(bad_msg));
  EXPECT_NE(std::get<Error>(bad_msg).message.find("message 0"), std::string::npos);
}

TEST(RoundDriver, OptionsFromJsonNameTheBadKey) {
  auto ok =
      DriverOptions::from_json({{"maxRounds", 2}, {"repeatLimit", 0}, {"defaultTimeoutMs", 500}});
  ASSERT_TRUE(std::holds_alternative<DriverOptions>(ok));
  EXPECT_EQ(std::get<DriverOptions>(ok).max_rounds, 2);
  auto bad = DriverOptions::from_json({{"maxRound", 2}});
  ASSERT_TRUE(std::holds_alternative<Error>(bad));
  EXPECT_NE(std::get<Error>(bad).message.find("maxRound"), std::string::npos);
  auto neg = DriverOptions::from_json({{"maxRounds", -1}});
  ASSERT_TRUE(std::holds_alternative<Error>(neg));
}

TEST(RoundDriver, ArgumentsWithATrailingNulOrALeadingBomAreNotJson) {
  constexpr char kNul[] = "{\"city\":\"Paris\"}\0{\"city\":\"Rome\"}";
  for (const std::string& args :
       {std::string(kNul, sizeof kNul - 1), std::string("\xEF\xBB\xBF{\"city\":\"Paris\"}")}) {
    Harness h;
    h.last_step = h.driver.send("weather?");
    json step = h.play_call("c1", "get_weather", args);
    EXPECT_FALSE(step.contains("execute"));
    const json results = test::tool_messages(h.driver);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(test::error_of(results[0]).rfind("arguments are not valid JSON", 0), 0u)
        << test::error_of(results[0]);
  }
}

TEST(RoundDriver, ASecondAnswerToACallIsRefusedAndNothingChanges) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play_call("c1", "get_current_location", "{}");
  h.last_step = h.driver.submit_result("c1", "here");
  h.play({});
  const std::size_t before = h.driver.thread().size();
  h.driver.take_changes();
  json refused = h.driver.send(
      json::array({{{"role", "tool"}, {"toolCallId", "c1"}, {"content", "elsewhere"}}}));
  EXPECT_EQ(refused["error"]["code"], "already_answered");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("'c1'"), std::string::npos);
  EXPECT_EQ(h.driver.thread().size(), before);
  EXPECT_TRUE(h.driver.changes_empty());
  // Two answers in one send() to a call that has none yet (the agent's own).
  h.last_step = h.driver.send("search");
  h.play({test::tool_start("s1", "web_search"), test::tool_end("s1")});
  const std::size_t open = h.driver.thread().size();
  refused =
      h.driver.send(json::array({{{"role", "tool"}, {"toolCallId", "s1"}, {"content", "a"}},
                                 {{"role", "tool"}, {"toolCallId", "s1"}, {"content", "b"}}}));
  EXPECT_EQ(refused["error"]["code"], "already_answered");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("message 1"), std::string::npos);
  EXPECT_EQ(h.driver.thread().size(), open);
  EXPECT_GT(open, before);
}

}  // namespace
}  // namespace agui
