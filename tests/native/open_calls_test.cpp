// No request goes out with an open call: every tool call the thread holds without
// a tool message gets an error result before a RunAgentInput is written, whoever
// owns the tool (issue 18 §2); and where the tool messages a host sends go.
#include <gtest/gtest.h>

#include "client/round_driver.hpp"
#include "test_support.hpp"

namespace agui {
namespace {

using test::error_of;
using test::every_call_answered_once;
using test::Harness;
using test::tool_messages;

std::size_t index_of(const json& msgs, const std::string& key, const std::string& value) {
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i].value(key, "") == value) return i;
  }
  return msgs.size();
}

const json* change_of(const json& changes, const std::string& kind, const std::string& call_id) {
  for (const auto& c : changes) {
    if (c["kind"] != kind) continue;
    const json& id = kind == "tool_result" ? c["message"]["toolCallId"] : c["toolCallId"];
    if (id == call_id) return &c;
  }
  return nullptr;
}

// A run in which the agent calls its own tool (execute_query) and never answers it.
json play_unanswered_server_call(Harness& h) {
  return h.play({test::tool_start("s1", "execute_query", "a1"),
                 test::tool_end("s1"),
                 {{"type", "TEXT_MESSAGE_START"}, {"messageId", "m2"}, {"role", "assistant"}},
                 test::text("m2", "Here you go."),
                 {{"type", "TEXT_MESSAGE_END"}, {"messageId", "m2"}}});
}

TEST(OpenCalls, ACallNoOneAnsweredGetsAnErrorResultRightAfterItsMessageBeforeTheNextRequest) {
  Harness h;
  h.last_step = h.driver.send("how many permits?");
  EXPECT_EQ(play_unanswered_server_call(h)["done"]["reason"], "done");
  h.driver.take_changes();

  h.last_step = h.driver.send("and now?");
  ASSERT_TRUE(h.last_step.contains("run"));
  const json input = h.run();
  EXPECT_TRUE(every_call_answered_once(input["messages"]));
  const json& msgs = input["messages"];
  const std::size_t result = index_of(msgs, "toolCallId", "s1");
  ASSERT_LT(result, msgs.size());
  EXPECT_EQ(result, index_of(msgs, "id", "a1") + 1) << "right after the assistant message";
  EXPECT_LT(result, index_of(msgs, "id", "m2"));
  const std::string error = msgs[result]["error"];
  EXPECT_NE(error.find("no result was received from the agent for tool 'execute_query' (call "
                       "'s1')"),
            std::string::npos)
      << error;
  EXPECT_EQ(json::parse(msgs[result]["content"].get<std::string>())["error"], error);

  const json changes = h.driver.take_changes();
  const json* status = change_of(changes, "tool_call_status", "s1");
  ASSERT_NE(status, nullptr) << changes.dump();
  EXPECT_EQ((*status)["status"], "error");
  EXPECT_EQ((*status)["name"], "execute_query");
  EXPECT_NE(change_of(changes, "tool_result", "s1"), nullptr) << changes.dump();
}

TEST(OpenCalls, AServerCallLeftOpenBesideAClientCallIsClosedBeforeTheFollowUp) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play({test::tool_start("s1", "execute_query", "a1"), test::tool_end("s1"),
                      test::tool_start("c1", "get_current_location", "a1"), test::tool_end("c1")});
  ASSERT_EQ(step["execute"].size(), 1u);
  h.last_step = h.driver.submit_result("c1", "here");
  ASSERT_TRUE(h.last_step.contains("run"));
  EXPECT_TRUE(every_call_answered_once(h.run()["messages"]));
}

TEST(OpenCalls, AClientCallThePendingListLeftToTheServerIsClosedIfTheServerNeverAnswers) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play({test::tool_start("c1", "get_weather", "a1"),
                      test::tool_args("c1", R"({"city":"x"})"), test::tool_end("c1"),
                      test::tool_start("c3", "get_current_location", "a1"), test::tool_end("c3")},
                     {{"type", "success"}, {"pendingToolCallIds", {"c3"}}});
  ASSERT_EQ(step["execute"].size(), 1u);
  h.last_step = h.driver.submit_result("c3", "here");
  ASSERT_TRUE(h.last_step.contains("run"));
  EXPECT_TRUE(every_call_answered_once(h.run()["messages"]));
}

TEST(OpenCalls, CallsAnInterruptDeferredStayOpenInItsResumeAndAreClosedAfter) {
  Harness h;
  h.last_step = h.driver.send("go");
  json interrupt = {
      {"type", "interrupt"},
      {"interrupts", {{{"id", "int-1"}, {"reason", "confirm"}, {"toolCallId", "s1"}}}}};
  h.play({test::tool_start("s1", "execute_query", "a1"), test::tool_end("s1"),
          test::tool_start("c1", "get_current_location", "a1"), test::tool_end("c1")},
         interrupt);
  h.last_step = h.driver.resolve_interrupt("int-1", {{"ok", true}});
  ASSERT_TRUE(h.last_step.contains("run"));
  // The resume carries the calls the interrupt held back, still open.
  EXPECT_TRUE(every_call_answered_once(h.run()["messages"], {"s1", "c1"}));
  EXPECT_EQ(index_of(h.run()["messages"], "role", "tool"), h.run()["messages"].size());
  // The resumed run answers s1 itself; c1 then runs.
  json step = h.play({test::tool_result("r1", "s1", "42 rows")});
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["toolCallId"], "c1");
  h.last_step = h.driver.submit_result("c1", "here");
  const json input = h.run();
  EXPECT_TRUE(every_call_answered_once(input["messages"]));
  EXPECT_EQ(input["messages"][index_of(input["messages"], "toolCallId", "s1")]["content"],
            "42 rows");
}

TEST(OpenCalls, ANewMessageWhileAServerCallIsOpenClosesIt) {
  Harness h;
  h.last_step = h.driver.send("go");
  const std::string first = h.run_id();
  h.driver.feed(first, test::sse({test::run_started("t1", first),
                                  test::tool_start("s1", "execute_query", "a1")}));
  h.last_step = h.driver.send("never mind");
  ASSERT_TRUE(h.last_step.contains("run"));
  EXPECT_TRUE(every_call_answered_once(h.run()["messages"]));
}

TEST(OpenCalls, AnImportedExportWithAnOpenCallClosesIt) {
  Harness h;
  h.last_step = h.driver.send("how many permits?");
  play_unanswered_server_call(h);
  const json exported = json::parse(h.driver.export_thread().dump());
  auto restored = RoundDriver::from_export(h.registry, exported);
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<RoundDriver>>(restored));
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  const json* result = d.thread().find_result("s1");
  ASSERT_NE(result, nullptr) << "the import closed the open call";
  EXPECT_NE((*result)["error"].get<std::string>().find("no result was received"),
            std::string::npos);
  EXPECT_EQ(d.thread().at(2)["toolCallId"], "s1") << "right after its assistant message";
  EXPECT_NE(change_of(d.take_changes(), "tool_result", "s1"), nullptr);
}

TEST(OpenCalls, AToolMessageSentForAnExistingCallGoesRightAfterItsAssistantMessage) {
  Harness h;
  h.last_step = h.driver.send("how many permits?");
  play_unanswered_server_call(h);
  h.last_step = h.driver.send(
      json::array({{{"role", "tool"}, {"toolCallId", "s1"}, {"content", "42"}, {"id", "tm"}},
                   {{"role", "user"}, {"content", "so?"}}}));
  ASSERT_TRUE(h.last_step.contains("run"));
  const json input = h.run();
  const json& msgs = input["messages"];
  EXPECT_EQ(index_of(msgs, "id", "tm"), index_of(msgs, "id", "a1") + 1);
  EXPECT_EQ(msgs.back()["content"], "so?");
  EXPECT_EQ(msgs[index_of(msgs, "id", "tm")]["content"], "42") << "the host's answer is kept";
  EXPECT_TRUE(every_call_answered_once(input["messages"]));
}

}  // namespace
}  // namespace agui
