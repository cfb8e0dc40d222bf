// The thread's indices: O(1) lookups that stay right through inserts and snapshots.
#include "protocol/thread.hpp"

#include <gtest/gtest.h>

namespace agui {
namespace {

json assistant_with_call(const std::string& id, const std::string& call_id) {
  return {{"id", id},
          {"role", "assistant"},
          {"toolCalls",
           {{{"id", call_id},
             {"type", "function"},
             {"function", {{"name", "f"}, {"arguments", "{}"}}}}}}};
}

TEST(Thread, IndexesMessagesCallsAndResults) {
  Thread t("t1");
  t.append({{"id", "u1"}, {"role", "user"}, {"content", "hi"}});
  t.append(assistant_with_call("a1", "c1"));
  ASSERT_NE(t.find_message("u1"), nullptr);
  ASSERT_TRUE(t.find_tool_call("c1").has_value());
  EXPECT_EQ(t.find_tool_call("c1")->call()["function"]["name"], "f");
  EXPECT_EQ(t.find_result("c1"), nullptr);
  t.insert_result({{"id", "r1"}, {"role", "tool"}, {"toolCallId", "c1"}, {"content", "ok"}});
  ASSERT_NE(t.find_result("c1"), nullptr);
  EXPECT_EQ((*t.find_result("c1"))["content"], "ok");
}

TEST(Thread, ResultGoesAfterItsAssistantMessageAndEarlierResults) {
  Thread t("t1");
  t.append(assistant_with_call("a1", "c1"));
  json& a1 = *t.find_message("a1");
  t.add_tool_call(
      a1, {{"id", "c2"}, {"type", "function"}, {"function", {{"name", "g"}, {"arguments", ""}}}});
  t.append({{"id", "a2"}, {"role", "assistant"}, {"content", "later"}});
  t.insert_result({{"id", "r1"}, {"role", "tool"}, {"toolCallId", "c1"}, {"content", "1"}});
  t.insert_result({{"id", "r2"}, {"role", "tool"}, {"toolCallId", "c2"}, {"content", "2"}});
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.at(0)["id"], "a1");
  EXPECT_EQ(t.at(1)["id"], "r1");
  EXPECT_EQ(t.at(2)["id"], "r2");
  EXPECT_EQ(t.at(3)["id"], "a2");
  // Pointers survive the inserts.
  EXPECT_EQ((*t.find_message("a2"))["content"], "later");
}

json tool_result(const std::string& id, const std::string& call_id) {
  return {{"id", id}, {"role", "tool"}, {"toolCallId", call_id}, {"content", id}};
}

// a1 {c1, c2}, u1, a2 {c3}, r0 (answers c3), a3 {c4, c5}
Thread thread_of_three_call_messages() {
  Thread t("t1");
  t.append(assistant_with_call("a1", "c1"));
  t.add_tool_call(*t.find_message("a1"),
                  {{"id", "c2"}, {"type", "function"}, {"function", {{"name", "g"}}}});
  t.append({{"id", "u1"}, {"role", "user"}, {"content", "and?"}});
  t.append(assistant_with_call("a2", "c3"));
  t.insert_result(tool_result("r0", "c3"));
  t.append(assistant_with_call("a3", "c4"));
  t.add_tool_call(*t.find_message("a3"),
                  {{"id", "c5"}, {"type", "function"}, {"function", {{"name", "g"}}}});
  return t;
}

std::vector<std::string> ids(const Thread& t) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size(); ++i) out.push_back(t.at(i)["id"]);
  return out;
}

TEST(Thread, ResultsInsertedTogetherGoWhereEachWouldGoAlone) {
  const std::vector<std::pair<std::string, std::string>> results = {
      {"r5", "c5"}, {"r1", "c1"}, {"rx", "ghost"}, {"r3", "c3"}, {"r2", "c2"}, {"r4", "c4"}};
  Thread alone = thread_of_three_call_messages();
  for (const auto& [id, call] : results) alone.insert_result(tool_result(id, call));
  Thread together = thread_of_three_call_messages();
  std::vector<json> batch;
  for (const auto& [id, call] : results) batch.push_back(tool_result(id, call));
  const std::vector<json*> stored = together.insert_results(std::move(batch));

  EXPECT_EQ(ids(together), ids(alone));
  // rx answers no call: appended, so it joins a3's answers, and r4 goes after it.
  EXPECT_EQ(ids(together), (std::vector<std::string>{"a1", "r1", "r2", "u1", "a2", "r0", "r3", "a3",
                                                     "r5", "rx", "r4"}));
  ASSERT_EQ(stored.size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ((*stored[i])["id"], results[i].first) << "returned in the order given";
    if (results[i].second != "ghost" && results[i].second != "c3") {  // c3: r0 came first
      EXPECT_EQ(together.find_result(results[i].second), stored[i]);
    }
  }
}

TEST(Thread, AResultAfterALaterMessageStillGoesWithItsCallsAnswers) {
  Thread t = thread_of_three_call_messages();
  t.insert_result(tool_result("r4", "c4"));
  t.append({{"id", "u2"}, {"role", "user"}, {"content", "more?"}});
  t.insert_result(tool_result("r5", "c5"));  // after r4 (the hint), before u2
  t.insert_result(tool_result("r1", "c1"));
  EXPECT_EQ(ids(t),
            (std::vector<std::string>{"a1", "r1", "u1", "a2", "r0", "a3", "r4", "r5", "u2"}));
}

TEST(Thread, ResultForUnknownCallIsAppended) {
  Thread t("t1");
  t.append({{"id", "u1"}, {"role", "user"}, {"content", "hi"}});
  t.insert_result({{"id", "r1"}, {"role", "tool"}, {"toolCallId", "nope"}, {"content", "x"}});
  EXPECT_EQ(t.at(1)["id"], "r1");
}

TEST(Thread, ReplaceAllReindexes) {
  Thread t("t1");
  t.append(assistant_with_call("a1", "c1"));
  t.replace_all({assistant_with_call("a2", "c2")});
  EXPECT_EQ(t.find_message("a1"), nullptr);
  EXPECT_FALSE(t.find_tool_call("c1").has_value());
  EXPECT_TRUE(t.find_tool_call("c2").has_value());
}

TEST(Thread, ReplaceDropsTheOldMessagesIndicesAndAddsTheNew) {
  Thread t("t1");
  t.append(assistant_with_call("a1", "c1"));
  t.insert_result({{"id", "r1"}, {"role", "tool"}, {"toolCallId", "c1"}, {"content", "ok"}});
  json* a1 = t.find_message("a1");
  json* r1 = t.find_message("r1");
  // The assistant message becomes an activity under the same id: its call leaves.
  json& stored = t.replace(*a1, {{"id", "a1"}, {"role", "activity"}, {"content", json::object()}});
  EXPECT_EQ(&stored, a1);
  EXPECT_FALSE(t.find_tool_call("c1").has_value());
  EXPECT_EQ(t.find_message("a1"), a1);
  // The result becomes another kind of message: it no longer answers c1.
  t.replace(*r1, {{"id", "r1"}, {"role", "activity"}, {"content", json::object()}});
  EXPECT_EQ(t.find_result("c1"), nullptr);
  // A replacement under a new id moves the id index with it.
  t.replace(*r1, assistant_with_call("a9", "c9"));
  EXPECT_EQ(t.find_message("r1"), nullptr);
  EXPECT_EQ(t.find_message("a9"), r1);
  EXPECT_TRUE(t.find_tool_call("c9").has_value());
  EXPECT_EQ(t.size(), 2u);
}

TEST(Thread, ReplaceKeepsACallIdThatAnotherMessageAlsoHolds) {
  // Found by fuzz_reducer: a snapshot with the call c5 in two assistant
  // messages, then the one the index pointed at becomes an activity.
  Thread t("t1");
  t.replace_all({assistant_with_call("a1", "c5"), assistant_with_call("a2", "c5")});
  json* a2 = t.find_message("a2");
  ASSERT_EQ(t.find_tool_call("c5")->message, a2);  // the later holder, as indexing in order gives
  t.replace(*a2, {{"id", "a2"}, {"role", "activity"}, {"content", json::object()}});
  auto ref = t.find_tool_call("c5");
  ASSERT_TRUE(ref.has_value()) << "a1 still holds c5";
  EXPECT_EQ(ref->message, t.find_message("a1"));
  EXPECT_EQ(ref->call()["id"], "c5");
}

TEST(Thread, MergeMetadataIsShallowLastWriteWins) {
  json target = {{"metadata", {{"a", 1}, {"b", {{"x", 1}}}}}};
  EXPECT_TRUE(merge_metadata(target, {{"metadata", {{"b", {{"y", 2}}}, {"c", 3}}}}));
  EXPECT_EQ(target["metadata"], (json{{"a", 1}, {"b", {{"y", 2}}}, {"c", 3}}));
  EXPECT_FALSE(merge_metadata(target, {{"type", "X"}}));
}

TEST(ChangeLog, TakeDrains) {
  ChangeLog log;
  log.record(ChangeKind::kTurnStarted);
  log.record(ChangeKind::kTurnEnded);
  json taken = log.take();
  EXPECT_EQ(taken.size(), 2u);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.take(), json::array());
}

TEST(ChangeLog, RecordsAreWrittenAsTheyAreBuilt) {
  ChangeLog log;
  log.record(ChangeKind::kRunStarted)
      .str("s", "a \"quoted\"\nline")
      .num("n", -42)
      .flag("f", true)
      .value("v", {{"x", {1, 2}}});
  {
    auto r = log.record(ChangeKind::kRoundStarted);
    r.str("first", "1");
    // Fields added under a condition; the record closes at the end of the scope.
    if (log.size() == 2) r.str("second", "2");
  }
  // Invalid UTF-8 becomes U+FFFD, as dump() with error_handler_t::replace does.
  log.push(ChangeKind::kEvent, "bad", json(std::string("ok\xff")));
  const std::string text = log.take_text();
  json taken = json::parse(text);  // one well-formed array
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_EQ(taken[0], (json{{"kind", "run_started"},
                            {"s", "a \"quoted\"\nline"},
                            {"n", -42},
                            {"f", true},
                            {"v", {{"x", {1, 2}}}}}));
  EXPECT_EQ(taken[1], (json{{"kind", "round_started"}, {"first", "1"}, {"second", "2"}}));
  EXPECT_EQ(taken[2]["bad"], "ok\xEF\xBF\xBD");
  EXPECT_EQ(text.rfind("[{\"kind\":\"run_started\"", 0), 0u) << "kind comes first: " << text;
}

// What a journal writes: take_changes() names the messages changed since the last take.
TEST(ThreadChanges, ANewThreadIsAllChangedThenOnlyWhatChangedSince) {
  Thread t("t1");
  t.append({{"id", "u1"}, {"role", "user"}, {"content", "hi"}});
  t.append(assistant_with_call("a1", "c1"));
  auto first = t.take_changes();
  EXPECT_EQ(first.moved_from, 0u);
  EXPECT_TRUE(first.state);
  auto none = t.take_changes();
  EXPECT_EQ(none.moved_from, 2u);
  EXPECT_TRUE(none.edited.empty());
  EXPECT_FALSE(none.state);

  t.append({{"id", "a2"}, {"role", "assistant"}, {"content", ""}});
  EXPECT_EQ(t.take_changes().moved_from, 2u);    // the new message only
  (*t.find_message("a2"))["content"] = "grown";  // handed out for writing: edited
  t.find_tool_call("c1");
  auto edits = t.take_changes();
  EXPECT_EQ(edits.moved_from, 3u);
  EXPECT_EQ(edits.edited, (std::vector<std::size_t>{1, 2}));
}

TEST(ThreadChanges, AnInsertMovesWhatFollowsAndASnapshotMovesAll) {
  Thread t("t1");
  t.append(assistant_with_call("a1", "c1"));
  t.append({{"id", "a2"}, {"role", "assistant"}, {"content", "later"}});
  t.take_changes();
  t.insert_result({{"id", "r1"}, {"role", "tool"}, {"toolCallId", "c1"}, {"content", "1"}});
  auto inserted = t.take_changes();
  EXPECT_EQ(inserted.moved_from, 1u);  // r1 at 1, a2 moved to 2
  EXPECT_TRUE(inserted.edited.empty());

  t.find_message("a1");
  t.replace_all({{{"id", "x"}, {"role", "user"}}});
  auto replaced = t.take_changes();
  EXPECT_EQ(replaced.moved_from, 0u);
  EXPECT_TRUE(replaced.edited.empty());
  t.set_state({{"k", 1}});
  EXPECT_TRUE(t.take_changes().state);
}

}  // namespace
}  // namespace agui
