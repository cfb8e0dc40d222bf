// A tool call that outlives the run that started it (issue 33): the client's
// own closure of a call nobody answered is provisional, and the answer that
// comes after all (a resume run's TOOL_CALL_RESULT, a snapshot's tool message,
// the client's handler after a server's placeholder) takes its place. One
// answer per call, right after the call; an interrupt's call closed with what
// the user said; the snapshot rules of AG-UI 1.0.
#include <gtest/gtest.h>

#include "client/round_driver.hpp"
#include "test_support.hpp"

namespace agui {
namespace {

using test::error_of;
using test::every_call_answered_once;
using test::Harness;
using test::tool_messages;

json assistant_text(const std::string& id, const std::string& text) {
  return {{"id", id}, {"role", "assistant"}, {"content", text}};
}

std::vector<std::string> statuses_of(const json& changes, const std::string& call_id) {
  std::vector<std::string> out;
  for (const auto& c : changes) {
    if (c["kind"] == "tool_call_status" && c["toolCallId"] == call_id) out.push_back(c["status"]);
  }
  return out;
}

std::vector<std::string> kinds_of(const json& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes) out.push_back(c["kind"]);
  return out;
}

// A run that calls a server tool (book_flight) and ends with no result and no
// interrupt outcome, as @ag-ui/langgraph's default settings end a run that
// interrupt() paused (a CUSTOM on_interrupt event and a plain RUN_FINISHED).
void play_paused_server_call(Harness& h) {
  h.last_step = h.driver.send("book it");
  h.play({test::tool_start("s1", "book_flight", "a1"),
          test::tool_args("s1", "{\"to\":\"Oslo\"}"),
          test::tool_end("s1"),
          {{"type", "CUSTOM"}, {"name", "on_interrupt"}, {"value", "Book the flight?"}}});
}

// A run that calls a server tool (s1) and ends with an AG-UI 1.0 interrupt
// outcome (int-1) for it.
void play_interrupted_server_call(Harness& h, const std::string& prompt, const std::string& tool) {
  h.last_step = h.driver.send(prompt);
  json interrupt = {
      {"type", "interrupt"},
      {"interrupts", {{{"id", "int-1"}, {"toolCallId", "s1"}, {"reason", "confirm"}}}}};
  h.play({test::tool_start("s1", tool, "a1"), test::tool_end("s1")}, interrupt);
}

TEST(LateAnswers, AResumeRunsResultReplacesTheClientsNoResultClosureInPlace) {
  Harness h;
  play_paused_server_call(h);
  // The resume request: the call is closed as unanswered (providers refuse an open call).
  h.last_step = h.driver.send("yes");
  ASSERT_EQ(tool_messages(h.driver).size(), 1u);
  const json closure = tool_messages(h.driver)[0];
  EXPECT_NE(error_of(closure).find("no result was received"), std::string::npos);
  h.driver.take_changes();
  // The resume run re-sends the call and its real result.
  h.play({test::tool_start("s1", "book_flight", "a1"), test::tool_args("s1", "{\"to\":\"Oslo\"}"),
          test::tool_end("s1"), test::tool_result("srv-r1", "s1", "booked")});
  const json changes = h.driver.take_changes();

  const json answers = tool_messages(h.driver);
  ASSERT_EQ(answers.size(), 1u) << "one answer per call";
  EXPECT_EQ(answers[0]["content"], "booked");
  EXPECT_FALSE(answers[0].contains("error"));
  EXPECT_EQ(answers[0]["id"], "srv-r1") << "the server's message, as @ag-ui/client holds it";
  EXPECT_EQ(h.driver.thread().at(2)["id"], "srv-r1") << "in the closure's place, after its call";
  EXPECT_EQ(h.driver.thread().find_message(closure["id"].get<std::string>()), nullptr);
  EXPECT_EQ(statuses_of(changes, "s1"), std::vector<std::string>{"done"}) << changes.dump();
  const auto kinds = kinds_of(changes);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "messages_replaced"), kinds.end());
  for (const auto& c : changes) EXPECT_NE(c.value("code", ""), "duplicate_result") << c.dump();
  // Every later request carries the real answer, once.
  h.last_step = h.driver.send("thanks");
  const json input = h.run();
  EXPECT_TRUE(every_call_answered_once(input["messages"]));
  EXPECT_EQ(tool_messages(h.driver)[0]["content"], "booked");
}

TEST(LateAnswers, AReplayedResultForACallWithARealAnswerIsStillADuplicate) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play({test::tool_start("s1", "book_flight", "a1"), test::tool_end("s1"),
          test::tool_result("r1", "s1", "booked")});
  h.last_step = h.driver.send("again");
  h.driver.take_changes();
  h.play({test::tool_result("r2", "s1", "booked twice")});
  EXPECT_EQ(tool_messages(h.driver)[0]["content"], "booked");
  EXPECT_TRUE(test::has_problem(h.driver.take_changes(), "duplicate_result"));
}

TEST(LateAnswers, AProvisionalClosureSurvivesExportAndImport) {
  Harness h;
  play_paused_server_call(h);
  h.last_step = h.driver.send("yes");
  auto restored = RoundDriver::from_export(h.registry, h.driver.export_thread());
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<RoundDriver>>(restored));
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  EXPECT_TRUE(d.thread().provisional("s1"));
  // (The stream the reload cut is gone; the next turn's run brings the answer.)
  json step = d.send("still there?");
  const std::string run = step["run"]["runId"];
  d.feed(run, test::sse({test::run_started("t1", run), test::tool_result("srv-r1", "s1", "booked"),
                         test::run_finished("t1", run)}));
  d.end_of_stream(run);
  ASSERT_TRUE(d.thread().find_result("s1"));
  EXPECT_EQ((*d.thread().find_result("s1"))["content"], "booked");
}

TEST(LateAnswers, ANewMessageWhileAnInterruptIsPendingKeepsItsServerCallOpenOnTheCancellingRun) {
  Harness h;
  play_interrupted_server_call(h, "book it", "book_flight");
  h.last_step = h.driver.send("never mind, what's the weather?");
  const json input = h.run();
  EXPECT_EQ(input["resume"][0]["status"], "cancelled");
  EXPECT_TRUE(every_call_answered_once(input["messages"], {"s1"}));
  EXPECT_EQ(tool_messages(h.driver).size(), 0u) << "s1 goes out open, with its cancellation";
  // The server answers the cancellation with the call's result: it is kept.
  h.play({test::tool_result("r1", "s1", "not booked: cancelled by the user")});
  ASSERT_EQ(tool_messages(h.driver).size(), 1u);
  EXPECT_EQ(tool_messages(h.driver)[0]["content"], "not booked: cancelled by the user");
}

TEST(LateAnswers, AnInterruptsCallTheResumeLeftWithoutAResultIsAnsweredWithTheResumePayload) {
  Harness h;
  play_interrupted_server_call(h, "delete it", "confirm_delete");
  h.last_step = h.driver.resolve_interrupt("int-1", {{"confirmed", true}});
  h.driver.take_changes();
  // The resume run answers in text and sends no TOOL_CALL_RESULT (CopilotKit's interrupt tools).
  h.play({{{"type", "TEXT_MESSAGE_START"}, {"messageId", "m2"}, {"role", "assistant"}},
          test::text("m2", "Deleted."),
          {{"type", "TEXT_MESSAGE_END"}, {"messageId", "m2"}}});
  const json changes = h.driver.take_changes();
  ASSERT_EQ(tool_messages(h.driver).size(), 1u);
  EXPECT_EQ(tool_messages(h.driver)[0]["content"], "{\"confirmed\":true}");
  EXPECT_EQ(error_of(tool_messages(h.driver)[0]), "");
  EXPECT_EQ(statuses_of(changes, "s1"), std::vector<std::string>{"done"});
}

TEST(LateAnswers, AnInterruptsCallTheUserCancelledIsAnsweredWithTheCancellationAndItsReason) {
  Harness h;
  play_interrupted_server_call(h, "delete it", "confirm_delete");
  h.last_step = h.driver.cancel_interrupt("int-1", "wrong file");
  h.play({});
  ASSERT_EQ(tool_messages(h.driver).size(), 1u);
  EXPECT_EQ(error_of(tool_messages(h.driver)[0]),
            "cancelled: the user cancelled the interrupt: wrong file");
}

TEST(LateAnswers, APlaceholderResultForAClientCallRunsTheHandlerAndTheResultTakesItsPlace) {
  Harness h;
  h.last_step = h.driver.send("where am I?");
  json step = h.play({test::tool_start("c1", "get_current_location", "a1"), test::tool_end("c1"),
                      test::tool_result("srv-r1", "c1", "Forwarded to client")});
  ASSERT_EQ(step["execute"].size(), 1u) << step.dump();
  EXPECT_EQ(step["execute"][0]["toolCallId"], "c1");
  h.last_step = h.driver.submit_result("c1", "{\"lat\":59.9}");
  const json input = h.run();
  EXPECT_TRUE(every_call_answered_once(input["messages"]));
  const json answers = tool_messages(h.driver);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0]["content"], "{\"lat\":59.9}");
  EXPECT_EQ(answers[0]["id"], "srv-r1") << "the placeholder's place and id";
}

TEST(LateAnswers, PlaceholderTextsAreAnOption) {
  auto parsed = DriverOptions::from_json({{"placeholderResults", json::array({"pending"})}});
  ASSERT_TRUE(std::holds_alternative<DriverOptions>(parsed));
  Harness h(std::get<DriverOptions>(parsed));
  h.last_step = h.driver.send("where am I?");
  json step = h.play({test::tool_start("c1", "get_current_location", "a1"), test::tool_end("c1"),
                      test::tool_result("srv-r1", "c1", "Forwarded to client")});
  EXPECT_FALSE(step.contains("execute")) << "not a placeholder under this list";
  auto bad = DriverOptions::from_json({{"placeholderResults", "pending"}});
  ASSERT_TRUE(std::holds_alternative<Error>(bad));
  EXPECT_NE(std::get<Error>(bad).message.find("placeholderResults"), std::string::npos);
}

TEST(LateAnswers, ASnapshotsAnswerUnderAnotherIdKeepsItsCallsPlace) {
  Harness h;
  h.last_step = h.driver.send("docs?");
  // @ag-ui/langgraph: the streamed result has a fresh id, the closing snapshot the checkpoint's.
  h.play(
      {test::tool_start("s1", "lookup_docs", "a1"),
       test::tool_end("s1"),
       test::tool_result("uuid-1", "s1", "tools.md"),
       {{"type", "TEXT_MESSAGE_START"}, {"messageId", "m2"}, {"role", "assistant"}},
       test::text("m2", "See tools.md."),
       {{"type", "TEXT_MESSAGE_END"}, {"messageId", "m2"}},
       {{"type", "MESSAGES_SNAPSHOT"},
        {"messages",
         {{{"id", h.driver.thread().at(0)["id"]}, {"role", "user"}, {"content", "docs?"}},
          {{"id", "a1"},
           {"role", "assistant"},
           {"toolCalls",
            {{{"id", "s1"},
              {"type", "function"},
              {"function", {{"name", "lookup_docs"}, {"arguments", "{}"}}}}}}},
          assistant_text("m2", "See tools.md."),
          {{"id", "ckpt-7"}, {"role", "tool"}, {"toolCallId", "s1"}, {"content", "tools.md"}}}}}});
  const auto& t = h.driver.thread();
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.at(1)["id"], "a1");
  EXPECT_EQ(t.at(2)["id"], "ckpt-7") << "right after its call, not after the text";
  EXPECT_EQ(t.at(3)["id"], "m2");
}

TEST(LateAnswers, ASnapshotsAnswerReplacesAProvisionalClosureAndTheCallIsDone) {
  Harness h;
  play_paused_server_call(h);
  h.last_step = h.driver.send("yes");
  const json user2 = h.driver.thread().at(h.driver.thread().size() - 1);
  json messages = json::array();
  for (std::size_t i = 0; i < h.driver.thread().size(); ++i) {
    const json& m = h.driver.thread().at(i);
    if (m.value("role", "") != "tool") messages.push_back(m);
  }
  messages.push_back(
      {{"id", "ckpt-2"}, {"role", "tool"}, {"toolCallId", "s1"}, {"content", "booked"}});
  h.driver.take_changes();
  h.play({{{"type", "MESSAGES_SNAPSHOT"}, {"messages", messages}}});
  const json answers = tool_messages(h.driver);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0]["id"], "ckpt-2");
  EXPECT_FALSE(h.driver.thread().provisional("s1"));
  EXPECT_EQ(statuses_of(h.driver.take_changes(), "s1"), std::vector<std::string>{"done"});
  EXPECT_EQ(h.driver.thread().at(h.driver.thread().size() - 1)["id"], user2["id"])
      << "the answer sits right after its call, before the later user message";
}

// The thread holds two activity messages; the snapshot none, with `metadata`.
std::vector<std::string> activity_after_snapshot(json metadata) {
  Harness h;
  h.last_step = h.driver.send("draw");
  json snapshot = {{"type", "MESSAGES_SNAPSHOT"},
                   {"messages", json::array({h.driver.thread().at(0)})}};
  if (!metadata.is_null()) snapshot["metadata"] = metadata;
  h.play({{{"type", "ACTIVITY_SNAPSHOT"},
           {"messageId", "x1"},
           {"activityType", "a2ui-surface"},
           {"content", json::object()}},
          {{"type", "ACTIVITY_SNAPSHOT"},
           {"messageId", "x2"},
           {"activityType", "mcp-apps"},
           {"content", json::object()}},
          snapshot});
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < h.driver.thread().size(); ++i) {
    if (h.driver.thread().at(i).value("role", "") == "activity")
      ids.push_back(h.driver.thread().at(i)["id"]);
  }
  return ids;
}

TEST(SnapshotRules, AuthoritativeActivityTypesSayWhichActivityASnapshotSpeaksFor) {
  using V = std::vector<std::string>;
  EXPECT_EQ(activity_after_snapshot(nullptr), (V{"x1", "x2"})) << "legacy: none in the snapshot";
  EXPECT_EQ(
      activity_after_snapshot({{"@ag-ui/client", {{"authoritativeActivityTypes", {"mcp-apps"}}}}}),
      (V{"x1"}));
  EXPECT_EQ(activity_after_snapshot({{"@ag-ui/client", {{"authoritativeActivityTypes", nullptr}}}}),
            V{});
  EXPECT_EQ(activity_after_snapshot({{"@ag-ui/client", {{"authoritativeActivityTypes", 7}}}}),
            (V{"x1", "x2"}))
      << "a malformed list counts as empty, as @ag-ui/client reads it";
}

TEST(SnapshotRules, AnIdTheSnapshotHoldsTwiceKeepsTheLaterCopyInTheFirstPlace) {
  Harness h;
  h.last_step = h.driver.send("hi");
  const json user = h.driver.thread().at(0);
  h.play({{{"type", "MESSAGES_SNAPSHOT"},
           {"messages",
            {user, assistant_text("m1", "first"), assistant_text("m2", "between"),
             assistant_text("m1", "second")}}}});
  const auto& t = h.driver.thread();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.at(1)["id"], "m1");
  EXPECT_EQ(t.at(1)["content"], "second");
  EXPECT_EQ(t.at(2)["id"], "m2");
}

TEST(SnapshotRules, AnActivityDeltaWhosePatchFailsStillMergesItsMetadata) {
  Harness h;
  h.last_step = h.driver.send("draw");
  h.play({{{"type", "ACTIVITY_SNAPSHOT"},
           {"messageId", "x1"},
           {"activityType", "a2ui-surface"},
           {"content", {{"n", 1}}}},
          {{"type", "ACTIVITY_DELTA"},
           {"messageId", "x1"},
           {"activityType", "a2ui-surface"},
           {"patch", {{{"op", "replace"}, {"path", "/missing"}, {"value", 2}}}},
           {"metadata", {{"seen", true}}}}});
  const json* m = h.driver.thread().find_message("x1");
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)["content"], json({{"n", 1}}));
  EXPECT_EQ((*m)["metadata"], json({{"seen", true}}));
}

}  // namespace
}  // namespace agui
