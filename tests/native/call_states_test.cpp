// One vocabulary of call states (protocol/kinds.hpp): each transition of each
// call, client or server, is a tool_call_status change, in the order it happened.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"

namespace agui {
namespace {

// The states `changes` announce for the call, in order.
std::vector<std::string> states_of(const json& changes, const std::string& call_id) {
  std::vector<std::string> out;
  for (const auto& c : changes) {
    if (c["kind"] == "tool_call_status" && c["toolCallId"] == call_id)
      out.push_back(c["status"].get<std::string>());
  }
  return out;
}

using States = std::vector<std::string>;

TEST(CallStates, AClientCallStreamsIsReadyRunsAndIsDone) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.driver.take_changes();
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"streaming", "ready", "running"}));
  h.driver.submit_result("c1", R"({"tempC":21})");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"done"}));
}

TEST(CallStates, AHandlerErrorIsError) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  h.driver.take_changes();
  h.driver.submit_error("c1", "no network");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"error"}));
}

TEST(CallStates, InvalidArgumentsAreAnErrorWithoutRunning) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.driver.take_changes();
  h.play_call("c1", "get_weather", R"({"city":42})");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"streaming", "ready", "error"}));
}

TEST(CallStates, ApprovalThenDenied) {
  test::Harness h;
  h.last_step = h.driver.send("delete it");
  h.driver.take_changes();
  h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"),
            (States{"streaming", "ready", "pending_approval"}));
  h.driver.reject("t1", "c1", "no");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"denied"}));
}

TEST(CallStates, ApprovalThenRunning) {
  test::Harness h;
  h.last_step = h.driver.send("delete it");
  h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  h.driver.take_changes();
  h.driver.approve("t1", "c1");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"running"}));
}

TEST(CallStates, AnApprovalPastItsDeadlineIsCancelledNotDenied) {
  DriverOptions options;
  options.approval_timeout_ms = 1000;
  test::Harness h(options);
  h.last_step = h.driver.send("delete it");
  h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  h.driver.take_changes();
  h.driver.expire(h.now + 5000);
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"cancelled"}));
}

TEST(CallStates, ARunningCallAbortedIsCancelled) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  h.driver.take_changes();
  h.driver.abort("stop");
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"cancelled"}));
}

TEST(CallStates, AServerCallIsDoneWhenItsResultArrives) {
  test::Harness h;
  h.last_step = h.driver.send("search");
  h.driver.take_changes();
  h.play({test::tool_start("s1", "web_search"), test::tool_args("s1", R"({"q":"x"})"),
          test::tool_end("s1"), test::tool_result("r1", "s1", "found")});
  EXPECT_EQ(states_of(h.driver.take_changes(), "s1"), (States{"streaming", "ready", "done"}));
}

TEST(CallStates, ACallLeftOpenAtRunFinishedIsReady) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.driver.take_changes();
  h.play({test::tool_start("c1", "get_weather"), test::tool_args("c1", R"({"city":"Rome"})")});
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"streaming", "ready", "running"}));
}

using test::problem_codes;

using Codes = std::vector<std::string>;

TEST(CallStates, AReplayedCallInAFollowUpRunLeavesItDone) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  h.last_step = h.driver.submit_result("c1", R"({"tempC":21})");
  h.driver.take_changes();
  // The follow-up run replays the call whole, then a stray END for it.
  h.play({test::tool_start("c1", "get_weather"), test::tool_args("c1", R"({"city":"Paris"})"),
          test::tool_end("c1"), test::tool_end("c1")});
  const json changes = h.driver.take_changes();
  EXPECT_EQ(states_of(changes, "c1"), States{});
  EXPECT_EQ(problem_codes(changes),
            (Codes{"duplicate_tool_call", "not_open", "already_ended", "already_ended"}));
  EXPECT_EQ(h.last_step["done"]["reason"], "done");
}

TEST(CallStates, AServerCallEndedTwiceStaysDone) {
  test::Harness h;
  h.last_step = h.driver.send("search");
  h.driver.take_changes();
  h.play({test::tool_start("s1", "web_search"), test::tool_end("s1"),
          test::tool_result("r1", "s1", "found"), test::tool_end("s1")});
  const json changes = h.driver.take_changes();
  EXPECT_EQ(states_of(changes, "s1"), (States{"streaming", "ready", "done"}));
  EXPECT_EQ(problem_codes(changes), Codes{"already_ended"});
}

TEST(CallStates, ASnapshotThatDropsTheClientsResultLeavesTheCallDone) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.play_call("c1", "get_weather", R"({"city":"Paris"})");
  h.last_step = h.driver.submit_result("c1", R"({"tempC":21})");
  // The follow-up run's snapshot keeps the call and leaves out its result.
  const json assistant = h.driver.thread().messages()[1];
  ASSERT_EQ(assistant["role"], "assistant");
  h.play({json{{"type", "MESSAGES_SNAPSHOT"}, {"messages", {h.driver.thread().at(0), assistant}}}});
  h.driver.take_changes();
  // The next request answers the call again (none goes out open), but its
  // state stays done, and the attempt to move it is a problem.
  h.last_step = h.driver.send("and tomorrow?");
  const json changes = h.driver.take_changes();
  EXPECT_EQ(states_of(changes, "c1"), States{});
  EXPECT_EQ(problem_codes(changes), Codes{"call_state_final"});
  EXPECT_TRUE(test::every_call_answered_once(h.run()["messages"]));
}

TEST(CallStates, AResultForACallWhoseStateIsFinalIsAProblem) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.play({test::tool_start("c1", "get_weather"), test::tool_args("c1", R"({"city":42})"),
          test::tool_end("c1")});
  // Refused (invalid arguments): error. The follow-up run drops that answer
  // in a snapshot and the server then sends a result of its own.
  const json assistant = h.driver.thread().messages()[1];
  h.driver.take_changes();
  h.play({json{{"type", "MESSAGES_SNAPSHOT"}, {"messages", {h.driver.thread().at(0), assistant}}},
          test::tool_result("r1", "c1", "sunny")});
  const json changes = h.driver.take_changes();
  EXPECT_EQ(states_of(changes, "c1"), States{});
  EXPECT_EQ(problem_codes(changes), Codes{"call_state_final"});
}

}  // namespace
}  // namespace agui
