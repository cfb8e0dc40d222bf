// The reducer: every AG-UI 1.0 event folded into the thread, every ordering
// rule reported with the event's index and type, and the changes a UI reads.
#include "protocol/event_reducer.hpp"

#include <gtest/gtest.h>

#include "protocol/sse_parser.hpp"
#include "test_support.hpp"

namespace agui {
namespace {

using test::run_finished;
using test::run_started;

struct Fold {
  Thread thread{"t1"};
  ChangeLog changes;
  EventReducer reducer{thread, changes};
  Fold() { reducer.begin_run("r1"); }
  void operator()(const std::vector<json>& events) {
    for (const auto& e : events) reducer.apply(e);
  }
  std::vector<std::string> problem_codes() const {
    std::vector<std::string> out;
    for (const auto& p : reducer.problems()) out.push_back(p.code);
    return out;
  }
  json kinds() {
    json out = json::array();
    for (const auto& c : changes.take()) out.push_back(c["kind"]);
    return out;
  }
};

json ev(const std::string& type, json fields = json::object()) {
  fields["type"] = type;
  return fields;
}

TEST(EventReducer, StreamedTextBuildsOneMessage) {
  Fold f;
  f({run_started("t1", "r1"),
     ev("TEXT_MESSAGE_START", {{"messageId", "m1"}, {"role", "assistant"}}),
     test::text("m1", "Hel"), test::text("m1", "lo"), ev("TEXT_MESSAGE_END", {{"messageId", "m1"}}),
     run_finished("t1", "r1")});
  ASSERT_EQ(f.thread.size(), 1u);
  EXPECT_EQ(f.thread.at(0), (json{{"id", "m1"}, {"role", "assistant"}, {"content", "Hello"}}));
  EXPECT_EQ(f.reducer.phase(), RunPhase::kFinished);
  EXPECT_EQ(f.reducer.outcome(), (json{{"type", "success"}}));
  EXPECT_TRUE(f.reducer.problems().empty());
  EXPECT_EQ(f.kinds(), (json{"run_started", "message_added", "text_appended", "text_appended",
                             "message_ended", "run_finished"}));
}

TEST(EventReducer, TextAppendedCarriesOnlyTheDelta) {
  Fold f;
  f({run_started("t1", "r1"), ev("TEXT_MESSAGE_START", {{"messageId", "m1"}})});
  f.changes.take();
  f({test::text("m1", std::string(1000, 'x')), test::text("m1", "y")});
  json changes = f.changes.take();
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[1], (json{{"kind", "text_appended"}, {"messageId", "m1"}, {"delta", "y"}}));
}

TEST(EventReducer, ToolCallAttachesToParentOrGetsItsOwnAssistantMessage) {
  Fold f;
  f({run_started("t1", "r1"), ev("TEXT_MESSAGE_START", {{"messageId", "m1"}}),
     test::text("m1", "Let me check"), ev("TEXT_MESSAGE_END", {{"messageId", "m1"}}),
     test::tool_start("c1", "get_weather", "m1"), test::tool_args("c1", "{\"city\":"),
     test::tool_args("c1", "\"Paris\"}"), test::tool_end("c1"),
     test::tool_start("c2", "get_current_location"), test::tool_end("c2"),
     run_finished("t1", "r1")});
  ASSERT_EQ(f.thread.size(), 2u);
  EXPECT_EQ(f.thread.at(0)["toolCalls"][0],
            (json{{"id", "c1"},
                  {"type", "function"},
                  {"function", {{"name", "get_weather"}, {"arguments", "{\"city\":\"Paris\"}"}}}}));
  EXPECT_EQ(f.thread.at(1),
            (json{{"id", "c2"},
                  {"role", "assistant"},
                  {"toolCalls",
                   {{{"id", "c2"},
                     {"type", "function"},
                     {"function", {{"name", "get_current_location"}, {"arguments", ""}}}}}}}));
  EXPECT_EQ(f.reducer.calls_started(), (std::vector<std::string>{"c1", "c2"}));
}

TEST(EventReducer, UnknownParentBecomesTheAssistantMessageId) {
  Fold f;
  f({run_started("t1", "r1"), test::tool_start("c1", "f", "m9"), test::tool_end("c1")});
  ASSERT_NE(f.thread.find_message("m9"), nullptr);
  EXPECT_EQ((*f.thread.find_message("m9"))["toolCalls"][0]["id"], "c1");
}

TEST(EventReducer, ToolResultIsInsertedAfterItsCall) {
  Fold f;
  f({run_started("t1", "r1"), test::tool_start("c1", "f", "a1"), test::tool_end("c1"),
     ev("TEXT_MESSAGE_START", {{"messageId", "m2"}}), test::text("m2", "after"),
     ev("TOOL_CALL_RESULT", {{"messageId", "res1"}, {"toolCallId", "c1"}, {"content", "42"}})});
  ASSERT_EQ(f.thread.size(), 3u);
  EXPECT_EQ(f.thread.at(1),
            (json{{"id", "res1"}, {"role", "tool"}, {"toolCallId", "c1"}, {"content", "42"}}));
  EXPECT_EQ(f.thread.at(2)["id"], "m2");
}

TEST(EventReducer, ChunksOpenContinueAndClose) {
  Fold f;
  f({run_started("t1", "r1"), ev("TEXT_MESSAGE_CHUNK", {{"messageId", "m1"}, {"delta", "a"}}),
     ev("TEXT_MESSAGE_CHUNK", {{"delta", "b"}}),
     ev("TEXT_MESSAGE_CHUNK", {{"messageId", "m2"}, {"role", "user"}, {"delta", "c"}}),
     ev("TOOL_CALL_CHUNK", {{"toolCallId", "c1"}, {"toolCallName", "f"}, {"delta", "{\"x\""}}),
     ev("TOOL_CALL_CHUNK", {{"delta", ":1}"}}),
     ev("REASONING_MESSAGE_CHUNK", {{"messageId", "z1"}, {"delta", "hmm"}}),
     run_finished("t1", "r1")});
  EXPECT_TRUE(f.reducer.problems().empty()) << f.reducer.problems()[0].message;
  EXPECT_EQ(f.thread.find_message("m1")->at("content"), "ab");
  EXPECT_EQ(f.thread.find_message("m2")->at("role"), "user");
  EXPECT_EQ(f.thread.find_message("m2")->at("content"), "c");
  EXPECT_EQ(f.thread.find_tool_call("c1")->call()["function"]["arguments"], "{\"x\":1}");
  EXPECT_EQ(*f.thread.find_message("z1"),
            (json{{"id", "z1"}, {"role", "reasoning"}, {"content", "hmm"}}));
}

TEST(EventReducer, ChunkWithoutIdAndNothingOpenIsReported) {
  Fold f;
  f({run_started("t1", "r1"), ev("TEXT_MESSAGE_CHUNK", {{"delta", "a"}}),
     ev("TOOL_CALL_CHUNK", {{"toolCallId", "c1"}})});
  EXPECT_EQ(f.problem_codes(), (std::vector<std::string>{"missing_field", "missing_field"}));
  EXPECT_EQ(f.thread.size(), 0u);
}

TEST(EventReducer, StateSnapshotAndDelta) {
  Fold f;
  f({run_started("t1", "r1"),
     ev("STATE_SNAPSHOT", {{"snapshot", {{"count", 1}, {"items", json::array()}}}}),
     ev("STATE_DELTA", {{"delta",
                         {{{"op", "replace"}, {"path", "/count"}, {"value", 2}},
                          {{"op", "add"}, {"path", "/items/-"}, {"value", "a"}}}}})});
  EXPECT_EQ(f.thread.state(), (json{{"count", 2}, {"items", {"a"}}}));
}

TEST(EventReducer, FailingPatchLeavesStateAsItWasAndIsReported) {
  Fold f;
  f({run_started("t1", "r1"), ev("STATE_SNAPSHOT", {{"snapshot", {{"count", 1}}}}),
     ev("STATE_DELTA", {{"delta",
                         {{{"op", "replace"}, {"path", "/count"}, {"value", 5}},
                          {{"op", "remove"}, {"path", "/missing"}}}}})});
  EXPECT_EQ(f.thread.state(), (json{{"count", 1}}));
  ASSERT_EQ(f.problem_codes(), (std::vector<std::string>{"patch_failed"}));
  EXPECT_EQ(f.reducer.problems()[0].index, 2u);
  EXPECT_EQ(f.reducer.problems()[0].event_type, "STATE_DELTA");
  EXPECT_FALSE(f.reducer.problems()[0].fatal);
}

TEST(EventReducer, MessagesSnapshotReplacesButKeepsLocalActivity) {
  Fold f;
  f({run_started("t1", "r1"), ev("TEXT_MESSAGE_START", {{"messageId", "m1"}}),
     test::text("m1", "old"),
     ev("ACTIVITY_SNAPSHOT",
        {{"messageId", "act1"}, {"activityType", "x"}, {"content", {{"a", 1}}}}),
     ev("MESSAGES_SNAPSHOT", {{"messages",
                               {{{"id", "m1"}, {"role", "assistant"}, {"content", "new"}},
                                {{"id", "m2"}, {"role", "user"}, {"content", "hi"}}}}})});
  ASSERT_EQ(f.thread.size(), 3u);
  EXPECT_EQ(f.thread.at(0)["content"], "new");
  EXPECT_EQ(f.thread.at(1)["id"], "act1");
  EXPECT_EQ(f.thread.at(2)["id"], "m2");
}

TEST(EventReducer, ActivitySnapshotReplaceFlagAndDelta) {
  Fold f;
  f({run_started("t1", "r1"),
     ev("ACTIVITY_SNAPSHOT",
        {{"messageId", "a1"}, {"activityType", "chart"}, {"content", {{"v", 1}}}}),
     ev("ACTIVITY_SNAPSHOT", {{"messageId", "a1"},
                              {"activityType", "chart"},
                              {"content", {{"v", 2}}},
                              {"replace", false}}),
     ev("ACTIVITY_DELTA", {{"messageId", "a1"},
                           {"activityType", "chart"},
                           {"patch", {{{"op", "add"}, {"path", "/w"}, {"value", 3}}}}})});
  EXPECT_EQ(*f.thread.find_message("a1"), (json{{"id", "a1"},
                                                {"role", "activity"},
                                                {"activityType", "chart"},
                                                {"content", {{"v", 1}, {"w", 3}}}}));
  f({ev("ACTIVITY_SNAPSHOT",
        {{"messageId", "a1"}, {"activityType", "chart"}, {"content", {{"v", 9}}}})});
  EXPECT_EQ(f.thread.find_message("a1")->at("content"), (json{{"v", 9}}));
  f({ev("ACTIVITY_DELTA",
        {{"messageId", "nope"}, {"activityType", "chart"}, {"patch", json::array()}})});
  EXPECT_EQ(f.problem_codes().back(), "unknown_message");
}

TEST(EventReducer, ReasoningAndEncryptedValues) {
  Fold f;
  f({run_started("t1", "r1"), ev("REASONING_START", {{"messageId", "rs"}}),
     ev("REASONING_MESSAGE_START", {{"messageId", "z1"}, {"role", "reasoning"}}),
     ev("REASONING_MESSAGE_CONTENT", {{"messageId", "z1"}, {"delta", "think"}}),
     ev("REASONING_MESSAGE_END", {{"messageId", "z1"}}), ev("REASONING_END", {{"messageId", "rs"}}),
     ev("REASONING_ENCRYPTED_VALUE",
        {{"subtype", "message"}, {"entityId", "z1"}, {"encryptedValue", "enc"}}),
     test::tool_start("c1", "f"), test::tool_end("c1"),
     ev("REASONING_ENCRYPTED_VALUE",
        {{"subtype", "tool-call"}, {"entityId", "c1"}, {"encryptedValue", "enc2"}})});
  EXPECT_TRUE(f.reducer.problems().empty());
  EXPECT_EQ(
      *f.thread.find_message("z1"),
      (json{{"id", "z1"}, {"role", "reasoning"}, {"content", "think"}, {"encryptedValue", "enc"}}));
  EXPECT_EQ(f.thread.find_tool_call("c1")->call()["encryptedValue"], "enc2");
}

TEST(EventReducer, MetadataMergesOntoMessagesAndCalls) {
  Fold f;
  f({run_started("t1", "r1"),
     ev("TEXT_MESSAGE_START", {{"messageId", "m1"}, {"metadata", {{"a", 1}}}}),
     ev("TEXT_MESSAGE_END", {{"messageId", "m1"}, {"metadata", {{"finish", "stop"}}}})});
  EXPECT_EQ(f.thread.find_message("m1")->at("metadata"), (json{{"a", 1}, {"finish", "stop"}}));
}

TEST(EventReducer, PassThroughEventsReachTheChangeLog) {
  Fold f;
  f({run_started("t1", "r1"), ev("STEP_STARTED", {{"stepName", "plan"}}),
     ev("CUSTOM", {{"name", "n"}, {"value", 1}}), ev("RAW", {{"event", {{"x", 1}}}}),
     ev("SUBAGENT_STARTED", {{"subagentRunId", "s1"}, {"name", "helper"}}),
     ev("SUBAGENT_FINISHED", {{"subagentRunId", "s1"}}),
     ev("SUBAGENT_ERROR", {{"subagentRunId", "s2"}, {"message", "x"}}),
     ev("STEP_FINISHED", {{"stepName", "plan"}})});
  json changes = f.changes.take();
  int events = 0;
  for (const auto& c : changes) events += c["kind"] == "event";
  EXPECT_EQ(events, 7);
  EXPECT_TRUE(f.reducer.problems().empty());
}

TEST(EventReducer, RunStartedInputMessagesAreAdded) {
  Fold f;
  json start = run_started("t1", "r1");
  start["input"] = {{"threadId", "t1"},
                    {"runId", "r1"},
                    {"messages", {{{"id", "u1"}, {"role", "user"}, {"content", "hi"}}}}};
  f({start});
  ASSERT_EQ(f.thread.size(), 1u);
  EXPECT_EQ(f.thread.at(0)["content"], "hi");
}

TEST(EventReducer, RunOutcomes) {
  {
    Fold f;
    f({run_started("t1", "r1"),
       run_finished("t1", "r1", {{"type", "success"}, {"pendingToolCallIds", {"c1"}}})});
    EXPECT_EQ(f.reducer.outcome()["pendingToolCallIds"], (json{"c1"}));
  }
  {
    Fold f;
    f({run_started("t1", "r1"),
       run_finished("t1", "r1",
                    {{"type", "interrupt"}, {"interrupts", {{{"id", "i1"}, {"reason", "r"}}}}})});
    EXPECT_EQ(f.reducer.outcome()["type"], "interrupt");
  }
  {
    Fold f;
    f({run_started("t1", "r1"), ev("RUN_ERROR", {{"message", "overloaded"}, {"code", "busy"}})});
    EXPECT_EQ(f.reducer.phase(), RunPhase::kErrored);
    EXPECT_EQ(f.reducer.error_message(), "overloaded");
    EXPECT_EQ(f.reducer.error_code(), "busy");
  }
  {
    Fold f;  // an interrupt outcome without interrupts cannot be answered: stop
    f({run_started("t1", "r1"),
       run_finished("t1", "r1", {{"type", "interrupt"}, {"interrupts", json::array()}})});
    EXPECT_TRUE(f.reducer.stopped());
  }
}

// Every ordering rule of the table in docs/ordering.md: the code, the index, the type, and
// whether the run stops.
struct Violation {
  std::string name;
  std::vector<json> events;
  std::string code;
  std::size_t index;
  std::string type;
  bool fatal;
};

TEST(EventReducer, EveryOrderingViolationIsReported) {
  const json start = run_started("t1", "r1");
  const json msg = ev("TEXT_MESSAGE_START", {{"messageId", "m1"}});
  const std::vector<Violation> cases = {
      {"content before start",
       {start, test::text("m9", "x")},
       "unknown_message",
       1,
       "TEXT_MESSAGE_CONTENT",
       false},
      {"end before start",
       {start, ev("TEXT_MESSAGE_END", {{"messageId", "m9"}})},
       "unknown_message",
       1,
       "TEXT_MESSAGE_END",
       false},
      {"start twice", {start, msg, msg}, "already_started", 2, "TEXT_MESSAGE_START", false},
      {"end twice",
       {start, msg, ev("TEXT_MESSAGE_END", {{"messageId", "m1"}}),
        ev("TEXT_MESSAGE_END", {{"messageId", "m1"}})},
       "already_ended",
       3,
       "TEXT_MESSAGE_END",
       false},
      {"content after end",
       {start, msg, ev("TEXT_MESSAGE_END", {{"messageId", "m1"}}), test::text("m1", "x")},
       "after_end",
       3,
       "TEXT_MESSAGE_CONTENT",
       false},
      {"args before start",
       {start, test::tool_args("c9", "{}")},
       "unknown_tool_call",
       1,
       "TOOL_CALL_ARGS",
       false},
      {"call end before start",
       {start, test::tool_end("c9")},
       "unknown_tool_call",
       1,
       "TOOL_CALL_END",
       false},
      {"args after end",
       {start, test::tool_start("c1", "f"), test::tool_end("c1"), test::tool_args("c1", "x")},
       "after_end",
       3,
       "TOOL_CALL_ARGS",
       false},
      {"duplicate call",
       {start, test::tool_start("c1", "f"), test::tool_start("c1", "g")},
       "duplicate_tool_call",
       2,
       "TOOL_CALL_START",
       false},
      {"duplicate result",
       {start, test::tool_start("c1", "f"), test::tool_end("c1"),
        ev("TOOL_CALL_RESULT", {{"messageId", "x1"}, {"toolCallId", "c1"}, {"content", "a"}}),
        ev("TOOL_CALL_RESULT", {{"messageId", "x2"}, {"toolCallId", "c1"}, {"content", "b"}})},
       "duplicate_result",
       4,
       "TOOL_CALL_RESULT",
       false},
      {"event before RUN_STARTED", {msg}, "before_run_started", 0, "TEXT_MESSAGE_START", false},
      {"second RUN_STARTED", {start, start}, "second_run_started", 1, "RUN_STARTED", true},
      {"RUN_STARTED for another thread",
       {run_started("t2", "r1")},
       "wrong_thread",
       0,
       "RUN_STARTED",
       true},
      {"event after RUN_FINISHED",
       {start, run_finished("t1", "r1"), msg},
       "after_run_end",
       2,
       "TEXT_MESSAGE_START",
       false},
      {"event after RUN_ERROR",
       {start, ev("RUN_ERROR", {{"message", "x"}}), msg},
       "after_run_end",
       2,
       "TEXT_MESSAGE_START",
       false},
      {"unclosed message at finish",
       {start, msg, run_finished("t1", "r1")},
       "unclosed_message",
       2,
       "RUN_FINISHED",
       false},
      {"unclosed call at finish",
       {start, test::tool_start("c1", "f"), run_finished("t1", "r1")},
       "unclosed_tool_call",
       2,
       "RUN_FINISHED",
       false},
      {"unknown event type",
       {start, ev("TEXT_MESSAGE_DELTA", {{"messageId", "m1"}})},
       "unknown_event",
       1,
       "TEXT_MESSAGE_DELTA",
       false},
      {"missing field",
       {start, ev("TEXT_MESSAGE_CONTENT", {{"messageId", "m1"}})},
       "missing_field",
       1,
       "TEXT_MESSAGE_CONTENT",
       false},
      {"not an object", {start, json::array({1, 2})}, "invalid_event", 1, "", false},
      {"activity id reused for text",
       {start,
        ev("ACTIVITY_SNAPSHOT",
           {{"messageId", "a1"}, {"activityType", "x"}, {"content", json::object()}}),
        test::text("a1", "x")},
       "activity_message",
       2,
       "TEXT_MESSAGE_CONTENT",
       false},
      {"run id differs", {run_started("t1", "other")}, "run_id_mismatch", 0, "RUN_STARTED", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Fold f;
    f(c.events);
    ASSERT_FALSE(f.reducer.problems().empty());
    const Problem& p = f.reducer.problems().back();
    EXPECT_EQ(p.code, c.code);
    EXPECT_EQ(p.index, c.index);
    EXPECT_EQ(p.event_type, c.type);
    EXPECT_EQ(p.fatal, c.fatal);
    EXPECT_EQ(f.reducer.stopped(), c.fatal);
    EXPECT_FALSE(p.message.empty());
  }
}

TEST(EventReducer, ASecondRunInTheSameStreamIsApplied) {
  Fold f;
  f({run_started("t1", "r1"), test::text("m0", "x"), run_finished("t1", "r1"),
     run_started("t1", "r2"), ev("TEXT_MESSAGE_START", {{"messageId", "m1"}}),
     test::text("m1", "second"),
     run_finished("t1", "r2", {{"type", "success"}, {"pendingToolCallIds", {"c9"}}})});
  EXPECT_EQ(f.thread.find_message("m1")->at("content"), "second");
  EXPECT_EQ(f.reducer.phase(), RunPhase::kFinished);
  EXPECT_EQ(f.reducer.outcome()["pendingToolCallIds"],
            json::array({"c9"}));  // the last outcome counts
}

TEST(EventReducer, InvalidJsonDataIsReportedAndSkipped) {
  Fold f;
  f.reducer.apply_data(R"({"type":"RUN_STARTED","threadId":"t1","runId":"r1"})");
  f.reducer.apply_data(R"({"type":"TEXT_MESSAGE_START",)");
  f.reducer.apply_data(R"({"type":"TEXT_MESSAGE_START","messageId":"m1"})");
  ASSERT_EQ(f.problem_codes(), (std::vector<std::string>{"invalid_json"}));
  EXPECT_EQ(f.reducer.problems()[0].index, 1u);
  EXPECT_NE(f.thread.find_message("m1"), nullptr);
}

TEST(EventReducer, NothingAppliedAfterAFatalProblem) {
  Fold f;
  f({run_started("t1", "r1"), ev("TEXT_MESSAGE_START", {{"messageId", "m1"}}),
     run_started("t1", "r1"), test::text("m1", "lost?")});
  EXPECT_TRUE(f.reducer.stopped());
  EXPECT_EQ(f.thread.find_message("m1")->at("content"), "");  // the thread keeps what it had
}

// The recorded stream of every event type, split at every byte offset, must give
// the same thread, state and problems as the stream fed whole.
TEST(EventReducer, RecordedStreamSplitAtEveryByteOffsetGivesTheSameThread) {
  const std::vector<json> events = {
      run_started("t1", "r1"),
      ev("TEXT_MESSAGE_START", {{"messageId", "m1"}, {"role", "assistant"}}),
      test::text("m1", "Grüße, 世界 🌍\nline two"),
      ev("TEXT_MESSAGE_END", {{"messageId", "m1"}}),
      test::tool_start("c1", "get_weather", "m1"),
      test::tool_args("c1", "{\"city\":"),
      test::tool_args("c1", "\"Zürich\"}"),
      test::tool_end("c1"),
      ev("STATE_SNAPSHOT", {{"snapshot", {{"n", 1}}}}),
      ev("STATE_DELTA", {{"delta", {{{"op", "replace"}, {"path", "/n"}, {"value", 2}}}}}),
      ev("ACTIVITY_SNAPSHOT",
         {{"messageId", "a1"}, {"activityType", "chart"}, {"content", {{"v", 1}}}}),
      ev("REASONING_MESSAGE_CHUNK", {{"messageId", "z1"}, {"delta", "hmm"}}),
      run_finished("t1", "r1", {{"type", "success"}, {"pendingToolCallIds", {"c1"}}}),
  };
  // CRLF line ends and a comment, to put every kind of boundary in the bytes.
  std::string bytes = ": keep-alive\r\n\r\n";
  for (const auto& e : events) bytes += "data: " + e.dump() + "\r\n\r\n";

  auto fold = [&](const std::vector<std::string_view>& chunks) {
    auto out = std::make_unique<Fold>();
    SseParser parser;
    std::vector<SseEvent> evs;
    for (auto c : chunks) parser.feed(c, evs);
    EXPECT_FALSE(parser.finish());
    for (const auto& e : evs) out->reducer.apply_data(e.data);
    return out;
  };
  auto whole = fold({bytes});
  ASSERT_TRUE(whole->reducer.problems().empty());
  ASSERT_EQ(whole->reducer.phase(), RunPhase::kFinished);
  const json expected_messages = whole->thread.messages();
  const json expected_state = whole->thread.state();
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    std::string_view all(bytes);
    auto split = fold({all.substr(0, cut), all.substr(cut)});
    ASSERT_EQ(split->thread.messages(), expected_messages) << "split at byte " << cut;
    ASSERT_EQ(split->thread.state(), expected_state) << "split at byte " << cut;
    ASSERT_TRUE(split->reducer.problems().empty()) << "split at byte " << cut;
  }
}

// The fast path (deltas read without building the event) must do exactly what
// the full path does: each script is folded twice, once as text through
// apply_data() and once as parsed events through apply(), and the threads, the
// states, the change records and the problems must be the same.
TEST(EventReducer, TheDeltaFastPathDoesWhatTheFullPathDoes) {
  const std::vector<std::string> prelude = {
      R"({"type":"RUN_STARTED","threadId":"t1","runId":"r1"})",
      R"({"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"})",
      R"({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"})",
      R"({"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"})",
      R"({"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"plan","content":{}})",
  };
  struct Script {
    const char* name;
    std::vector<std::string> events;
    std::size_t fast;  // events the fast path must take
  };
  const std::vector<Script> scripts = {
      {"plain deltas",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"})",
        R"( { "delta" : "lo" , "messageId" : "m1" , "type" : "TEXT_MESSAGE_CONTENT" } )",
        R"({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\":"})",
        R"({"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"hmm"})"},
       4},
      {"escapes",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\u00e9\n\ud83d\ude00\"\\"})",
        "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"\xc3\xa9\x7f\"}",
        R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m\u0031","delta":"x"})"},
       3},
      // (Not one that ends the delta: that high half waits for the next delta's
      // low one, which only the event's text shows; see the split-pair tests below.)
      {"a lone surrogate escape (JSON.parse reads it; the thread holds U+FFFD)",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ud83d!"})",
        R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ude00"})"},
       0},
      {"after END",
       {R"({"type":"TEXT_MESSAGE_END","messageId":"m1"})",
        R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"late"})",
        R"({"type":"TOOL_CALL_END","toolCallId":"c1"})",
        R"({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"late"})"},
       0},
      {"unknown ids",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"})",
        R"({"type":"TOOL_CALL_ARGS","toolCallId":"nope","delta":"x"})"},
       0},
      {"an activity message",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"x"})"},
       0},
      {"the wrong id field",
       {R"({"type":"TEXT_MESSAGE_CONTENT","toolCallId":"m1","delta":"x"})",
        R"({"type":"TOOL_CALL_ARGS","messageId":"c1","delta":"x"})"},
       0},
      {"more fields",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","metadata":{"k":1}})",
        R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","timestamp":5})",
        R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","subagentRunId":"s"})"},
       0},
      {"a duplicate key",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","delta":"b"})"},
       0},
      {"inside an open chunk stream",
       {R"({"type":"TEXT_MESSAGE_CHUNK","messageId":"k1","delta":"a"})",
        R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"})"},
       0},
      {"past the limits",
       {R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"0123456789abcdefX"})",
        R"({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"0123456789abcdefX"})",
        R"({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"more"})"},
       0},
      {"after the run",
       {R"({"type":"RUN_FINISHED","threadId":"t1","runId":"r1"})",
        R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x"})"},
       0},
  };
  ReducerLimits limits;
  limits.max_argument_bytes = 16;
  limits.max_message_bytes = 16;
  for (const auto& script : scripts) {
    SCOPED_TRACE(script.name);
    Fold text;
    Fold parsed;
    text.reducer.set_limits(limits);
    parsed.reducer.set_limits(limits);
    std::vector<std::string> all = prelude;
    all.insert(all.end(), script.events.begin(), script.events.end());
    for (const auto& data : all) {
      text.reducer.apply_data(data);
      json e = parse_json(data);
      if (e.is_discarded()) {
        parsed.reducer.report(ProblemCode::kInvalidJson, "(the same event, not JSON)", false);
      } else {
        parsed.reducer.apply(e);
      }
    }
    EXPECT_EQ(text.reducer.fast_path_events(), script.fast);
    EXPECT_EQ(parsed.reducer.fast_path_events(), 0u);
    EXPECT_EQ(text.thread.messages(), parsed.thread.messages());
    EXPECT_EQ(text.thread.state(), parsed.thread.state());
    EXPECT_EQ(text.problem_codes(), parsed.problem_codes());
    json text_changes = text.changes.take();
    json parsed_changes = parsed.changes.take();
    for (auto* changes : {&text_changes, &parsed_changes})
      for (auto& c : *changes)
        if (c["kind"] == "problem" && c["code"] == "invalid_json") c.erase("message");
    EXPECT_EQ(text_changes, parsed_changes);
  }
}

// A JS server that cuts text with slice() may split a surrogate pair; JSON.stringify
// then writes each half as a lone escape, in two events. A JS client joins them.
struct Halves : Fold {
  Halves() {
    reducer.apply_data(R"({"type":"RUN_STARTED","threadId":"t1","runId":"r1"})");
    reducer.apply_data(R"({"type":"TEXT_MESSAGE_START","messageId":"m1"})");
  }
  void data(const std::string& text) { reducer.apply_data(text); }
  std::string content() const { return thread.find_message("m1")->at("content"); }
};

TEST(EventReducer, APairSplitAcrossTwoTextDeltasMakesOneCharacter) {
  Halves f;
  f.changes.take();
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Z\u00fcrich \ud83d"})");
  // (A member the fast path does not take: the parser's path joins them too.)
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ude00!","timestamp":1})");
  EXPECT_EQ(f.content(), "Z\u00fcrich \U0001F600!");
  json deltas = json::array();
  for (const auto& c : f.changes.take()) deltas.push_back(c["delta"]);
  EXPECT_EQ(deltas, (json{"Z\u00fcrich ", "\U0001F600!"}));
  EXPECT_TRUE(f.reducer.problems().empty());
}

TEST(EventReducer, APairSplitAcrossReasoningAndChunkDeltasMakesOneCharacter) {
  Halves f;
  f.data(R"({"type":"REASONING_MESSAGE_START","messageId":"r1"})");
  f.data(R"({"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"\ud83d"})");
  f.data(R"({"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"\ude00"})");
  f.data(R"({"type":"REASONING_MESSAGE_END","messageId":"r1"})");
  f.data(R"({"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"a\ud83d"})");
  f.data(R"({"type":"TEXT_MESSAGE_CHUNK","delta":"\ude00b"})");
  EXPECT_EQ(f.thread.find_message("r1")->at("content"), "\U0001F600");
  EXPECT_EQ(f.thread.find_message("m2")->at("content"), "a\U0001F600b");
}

TEST(EventReducer, APairSplitAcrossTwoArgumentDeltasMakesOneCharacter) {
  Halves f;
  f.data(R"({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"say"})");
  f.data(R"({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"text\":\"\ud83d"})");
  f.data(R"({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\ude00\"}"})");
  f.data(R"({"type":"TOOL_CALL_END","toolCallId":"c1"})");
  EXPECT_EQ(f.thread.find_tool_call("c1")->call()["function"]["arguments"],
            "{\"text\":\"\U0001F600\"}");
  EXPECT_TRUE(f.reducer.problems().empty());
}

TEST(EventReducer, AHalfThatFindsNoPartnerIsStillReplaced) {
  Halves f;
  // Followed by no low half; ended by its message's END; a low half alone;
  // and a real U+FFFD is no held half.
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a\ud83d"})");
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b\ud83d"})");
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ud83dc"})");
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ude00\ufffd"})");
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ude00\\ud83d"})");
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d\ud83d"})");
  EXPECT_EQ(f.content(), "a\uFFFDb\uFFFD\uFFFDc\uFFFD\uFFFD\uFFFD\\ud83dd");
  f.data(R"({"type":"TEXT_MESSAGE_END","messageId":"m1"})");
  EXPECT_EQ(f.content(), "a\uFFFDb\uFFFD\uFFFDc\uFFFD\uFFFD\uFFFD\\ud83dd\uFFFD");
  // One message's half never joins another's.
  f.data(R"({"type":"TEXT_MESSAGE_START","messageId":"m2"})");
  f.data(R"({"type":"TEXT_MESSAGE_START","messageId":"m3"})");
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"\ud83d"})");
  f.data(R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m3","delta":"\ude00"})");
  f.data(R"({"type":"RUN_FINISHED","threadId":"t1","runId":"r1"})");
  EXPECT_EQ(f.thread.find_message("m2")->at("content"), "\uFFFD");
  EXPECT_EQ(f.thread.find_message("m3")->at("content"), "\uFFFD");
}

}  // namespace
}  // namespace agui
