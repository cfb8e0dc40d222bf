// Deadlines kept by the core, timed by the host: approvalTimeoutMs and an
// interrupt's expiresAt. Every step names the next deadline due; expire() at
// that time rejects or cancels what is due, with the reason; the clock is
// whatever the test says it is.
#include <gtest/gtest.h>

#include "client/round_driver.hpp"
#include "common/iso8601.hpp"
#include "test_support.hpp"

namespace agui {
namespace {

using test::error_of;
using test::Harness;
using test::tool_messages;

// 1970-01-01T00:00:10Z and so on: small times read easily.
std::string at_seconds(int s) {
  return "1970-01-01T00:00:" + std::string(s < 10 ? "0" : "") + std::to_string(s) + "Z";
}

json interrupted(const std::string& id, const std::string& expires_at) {
  return {{"type", "interrupt"},
          {"interrupts", {{{"id", id}, {"reason", "confirmation"}, {"expiresAt", expires_at}}}}};
}

json kinds(const json& changes) {
  json out = json::array();
  for (const auto& c : changes) out.push_back(c["kind"]);
  return out;
}

TEST(Iso8601, ReadsWhatDateParseReadsFromTheIsoFormat) {
  // The expected values are what node's Date.parse answers for the same strings.
  EXPECT_EQ(parse_iso8601_ms("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_EQ(parse_iso8601_ms("2026-12-06T02:11:46.123Z"), 1796523106123.0);
  EXPECT_EQ(parse_iso8601_ms("2026-12-06T03:11:46.123+01:00"), 1796523106123.0);
  EXPECT_EQ(parse_iso8601_ms("2026-12-06T02:11:46.123456Z"), 1796523106123.0);
  EXPECT_EQ(parse_iso8601_ms("2026-12-06"), 1796515200000.0);
  EXPECT_EQ(parse_iso8601_ms("+002026-12-06T00:00:00Z"), 1796515200000.0);
  EXPECT_EQ(parse_iso8601_ms("2024-02-29T24:00:00Z"), 1709251200000.0);
}

TEST(Iso8601, AnythingElseIsUnreadable) {
  for (const char* bad :
       {"", "soon", "2026-13-01", "2026-12-32", "2026-12-06T25:00Z", "2026-12-06T24:01Z",
        "2026-12-06T10:00+5", "2026-12-06T10:00:00.Z", "2026-12-06 10:00Z",
        "-000000-01-01T00:00:00Z", "2026-12-06T10:00Zjunk"}) {
    EXPECT_FALSE(parse_iso8601_ms(bad).has_value()) << bad;
  }
}

TEST(Deadlines, AnApprovalNobodyDecidesIsRejectedWhenItsTimeoutIsDue) {
  DriverOptions options;
  options.approval_timeout_ms = 1000;
  Harness h(options);
  h.now = 5000;
  h.last_step = h.driver.send("delete it");
  json step = h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  EXPECT_EQ(step["deadline"], 6000.0) << step;
  // A timer that fires a little early finds nothing due, and is told again.
  json early = h.driver.expire(5999);
  EXPECT_EQ(early["deadline"], 6000.0);
  EXPECT_TRUE(tool_messages(h.driver).empty());
  h.last_step = h.driver.expire(6000);
  ASSERT_EQ(tool_messages(h.driver).size(), 1u);
  EXPECT_EQ(error_of(tool_messages(h.driver)[0]),
            "the user rejected this call: approval timed out after 1000 ms");
  EXPECT_TRUE(h.last_step.contains("run")) << "the round goes on: " << h.last_step;
  EXPECT_TRUE(h.last_step["deadline"].is_null()) << "nothing is left to time";
}

TEST(Deadlines, AnApprovalDecidedInTimeHasNoDeadlineLeft) {
  DriverOptions options;
  options.approval_timeout_ms = 1000;
  Harness h(options);
  h.last_step = h.driver.send("delete it");
  EXPECT_EQ(h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})")["deadline"], 1000.0);
  json step = h.driver.approve("t1", "c1");
  EXPECT_TRUE(step["deadline"].is_null()) << step;
  EXPECT_FALSE(h.driver.expire(5000).contains("run")) << "nothing to expire";
}

TEST(Deadlines, WithoutApprovalTimeoutMsAnApprovalWaits) {
  Harness h;
  h.last_step = h.driver.send("delete it");
  EXPECT_FALSE(h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})").contains("deadline"));
}

TEST(Deadlines, AnInterruptThatArrivesExpiredIsCancelledBeforeThePageSeesIt) {
  Harness h;
  h.now = 20000;
  h.last_step = h.driver.send("go");
  h.driver.take_changes();
  json step = h.play({}, interrupted("int-old", at_seconds(10)));
  EXPECT_TRUE(step.contains("run")) << "the resume run starts at once: " << step;
  const json changes = h.driver.take_changes();
  for (const auto& c : changes) EXPECT_NE(c["kind"], "interrupts") << "never shown pending";
  EXPECT_TRUE(h.driver.status()["pendingInterrupts"].empty());
  const json resume = json::parse(h.driver.run_input())["resume"];
  ASSERT_EQ(resume.size(), 1u);
  EXPECT_EQ(resume[0]["status"], "cancelled");
  EXPECT_EQ(resume[0]["payload"]["reason"], "expired at " + at_seconds(10));
}

TEST(Deadlines, AnInterruptIsPendingUntilItsExpiresAtThenCancelled) {
  Harness h;
  h.now = 5000;
  h.last_step = h.driver.send("go");
  json step = h.play({}, interrupted("int-1", at_seconds(10)));
  EXPECT_EQ(step["deadline"], 10000.0);
  EXPECT_EQ(h.driver.status()["pendingInterrupts"].size(), 1u);
  h.last_step = h.driver.expire(10000);
  EXPECT_TRUE(h.last_step.contains("run"));
  EXPECT_EQ(json::parse(h.driver.run_input())["resume"][0]["status"], "cancelled");
}

TEST(Deadlines, ResolvingAnInterruptPastItsExpiresAtCancelsItInstead) {
  Harness h;
  h.now = 5000;
  h.last_step = h.driver.send("go");
  h.play({}, interrupted("int-1", at_seconds(10)));
  // The host's timer has not fired yet; the answer comes after the deadline.
  h.last_step = h.driver.resolve_interrupt("int-1", {{"ok", true}}, 10001);
  ASSERT_TRUE(h.last_step.contains("run")) << h.last_step;
  const json resume = json::parse(h.driver.run_input())["resume"];
  EXPECT_EQ(resume[0]["status"], "cancelled");
  EXPECT_EQ(resume[0]["payload"]["reason"], "expired at " + at_seconds(10));
}

TEST(Deadlines, AnImportCancelsWhatExpiredMeanwhileAndAnnouncesWhatIsStillPending) {
  DriverOptions options;
  options.approval_timeout_ms = 1000;
  Harness h(options);
  h.now = 5000;
  h.last_step = h.driver.send("go");
  h.play({}, {{"type", "interrupt"},
              {"interrupts",
               {{{"id", "int-old"}, {"reason", "confirmation"}, {"expiresAt", at_seconds(10)}},
                {{"id", "int-new"}, {"reason", "confirmation"}, {"expiresAt", at_seconds(40)}}}}});
  const json exported = h.driver.export_thread();

  auto restored = RoundDriver::from_export(h.registry, exported, options, 20000);
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  const json pending = d.status()["pendingInterrupts"];
  ASSERT_EQ(pending.size(), 1u) << "the expired one is never pending after the import";
  EXPECT_EQ(pending[0]["id"], "int-new");
  d.take_changes();
  json step = d.continue_turn(20000);
  EXPECT_EQ(step["deadline"], 40000.0);
  const json changes = d.take_changes();
  EXPECT_EQ(kinds(changes), json::array({"interrupts"})) << changes;
  EXPECT_EQ(changes[0]["interrupts"].size(), 1u);
}

TEST(Deadlines, AnImportWhoseEveryInterruptExpiredResumesWithThemCancelled) {
  Harness h;
  h.now = 5000;
  h.last_step = h.driver.send("go");
  h.play({}, interrupted("int-1", at_seconds(10)));
  auto restored = RoundDriver::from_export(h.registry, h.driver.export_thread(), {}, 20000);
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  EXPECT_TRUE(d.status()["pendingInterrupts"].empty());
  EXPECT_EQ(d.status()["phase"], "awaiting") << "a turn is in progress until it resumes";
  json step = d.continue_turn(20000);
  ASSERT_TRUE(step.contains("run")) << step;
  EXPECT_EQ(json::parse(d.run_input())["resume"][0]["status"], "cancelled");
}

TEST(Deadlines, AnImportedApprovalIsAnnouncedAgainWithAFreshDeadline) {
  DriverOptions options;
  options.approval_timeout_ms = 1000;
  Harness h(options);
  h.last_step = h.driver.send("delete it");
  h.play_call("c1", "delete_file", R"({"path":"/tmp/x"})");
  auto restored = RoundDriver::from_export(h.registry, h.driver.export_thread(), options, 90000);
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  d.take_changes();
  json step = d.continue_turn(90000);
  EXPECT_EQ(step["deadline"], 91000.0);
  const json changes = d.take_changes();
  EXPECT_EQ(kinds(changes), json::array({"approval_requested"})) << changes;
}

TEST(Deadlines, AnUnreadableExpiresAtSetsNoDeadline) {
  Harness h;
  h.now = 5000;
  h.last_step = h.driver.send("go");
  json step = h.play({}, interrupted("int-1", "next tuesday"));
  EXPECT_FALSE(step.contains("deadline")) << step;
  EXPECT_EQ(h.driver.status()["pendingInterrupts"].size(), 1u);
}

}  // namespace
}  // namespace agui
