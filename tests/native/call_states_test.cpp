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
          test::tool_end("s1"),
          json{{"type", "TOOL_CALL_RESULT"},
               {"messageId", "r1"},
               {"toolCallId", "s1"},
               {"content", "found"}}});
  EXPECT_EQ(states_of(h.driver.take_changes(), "s1"), (States{"streaming", "ready", "done"}));
}

TEST(CallStates, ACallLeftOpenAtRunFinishedIsReady) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  h.driver.take_changes();
  h.play({test::tool_start("c1", "get_weather"), test::tool_args("c1", R"({"city":"Rome"})")});
  EXPECT_EQ(states_of(h.driver.take_changes(), "c1"), (States{"streaming", "ready", "running"}));
}

}  // namespace
}  // namespace agui
