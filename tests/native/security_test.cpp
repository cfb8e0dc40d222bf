// Security rules (README "Security"), one test each, and the hostile streams
// the fuzzers found (tests/fuzz/README.md lists them): a server, or an export
// edited on disk, may send anything, and nothing it sends may crash the core,
// throw out of it, or make it run a call it must not run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "client/round_driver.hpp"
#include "test_support.hpp"

namespace agui {
namespace {

using test::error_of;
using test::every_call_answered_once;
using test::Harness;
using test::tool_messages;

ToolSpec open_tool(std::string name, json parameters) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "A tool.";
  s.parameters = std::move(parameters);
  return s;
}

// The suites are built as the core is, without exceptions, so any throwing
// path left in the core aborts them: this test fails if the flags drift.
TEST(Security, TheCoreAndItsSuitesAreBuiltWithoutExceptions) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  ADD_FAILURE() << "built with exceptions";
#endif
#ifndef JSON_NOEXCEPTION
  ADD_FAILURE() << "nlohmann_json may throw (JSON_NOEXCEPTION is not defined)";
#endif
}

// The wasm build has no RTTI (CMakeLists.txt), so a typeid or dynamic_cast
// in the core fails that build: this test fails in the wasm suites if the
// flag drifts. Natively the core keeps RTTI and the test checks nothing.
TEST(Security, TheWasmCoreAndItsSuitesAreBuiltWithoutRtti) {
#if defined(__EMSCRIPTEN__) && (defined(__cpp_rtti) || defined(__GXX_RTTI))
  ADD_FAILURE() << "the wasm build has RTTI";
#endif
}

json call_in_snapshot(const std::string& call_id, json function) {
  return {{"type", "MESSAGES_SNAPSHOT"},
          {"messages",
           {{{"id", "a1"},
             {"role", "assistant"},
             {"toolCalls", {{{"id", call_id}, {"type", "function"}, {"function", function}}}}}}}};
}

// ---------------------------------------------------------------- tool names

TEST(Security, UnknownAndLookalikeToolNamesNeverRun) {
  const std::vector<std::string> lookalikes = {
      "Get_weather",                        // case
      "GET_WEATHER",                        // case
      "g\xD0\xB5t_weather",                 // Cyrillic 'е' (U+0435)
      "\xEF\xBD\x87\xEF\xBD\x85t_weather",  // fullwidth 'ｇｅ'
      "get_weather ",                       // trailing space
      " get_weather",                       // leading space
      "get_weather\t",                      // trailing tab
      std::string("get_weather\0", 12),     // trailing NUL
      std::string("get\0_weather", 12),     // NUL inside
      "get_weather\xE2\x80\x8B",            // zero-width space
      "get-weather",                        // a near miss
      "unknown_tool"};
  for (const auto& name : lookalikes) {
    SCOPED_TRACE(json(name).dump());
    Harness h;
    EXPECT_EQ(h.registry->find(name), nullptr);
    h.last_step = h.driver.send("weather?");
    // Not one of ours: a server tool, perhaps; the client leaves it alone.
    json step = h.play_call("c1", name, R"({"city":"Paris"})");
    EXPECT_FALSE(step.contains("execute"));
    EXPECT_EQ(step["done"]["reason"], "done");
    EXPECT_TRUE(tool_messages(h.driver).empty());
    // Named as pending for the client: refused, and the model is told.
    h.last_step = h.driver.send("again");
    step = h.play({test::tool_start("c2", name), test::tool_args("c2", R"({"city":"Paris"})"),
                   test::tool_end("c2")},
                  {{"type", "success"}, {"pendingToolCallIds", {"c2"}}});
    EXPECT_FALSE(step.contains("execute"));
    ASSERT_TRUE(step.contains("run"));
    json tools = tool_messages(h.driver);
    ASSERT_EQ(tools.size(), 2u);
    // c1, which no one answered, was closed before the second request went out.
    EXPECT_EQ(tools[0]["toolCallId"], "c1");
    EXPECT_NE(error_of(tools[0]).find("no result was received from the agent"), std::string::npos);
    EXPECT_EQ(error_of(tools[1]), "tool '" + name + "' is not available in this client");
  }
}

TEST(Security, LookalikeNamesCannotBeRegistered) {
  // Names are ASCII [A-Za-z0-9_-]{1,64}: no lookalike can sit beside a real
  // tool. (Another case is another name: "Get_weather" is a tool of its own.)
  for (const std::string& name :
       {std::string("g\xD0\xB5t_weather"), std::string("\xEF\xBD\x87\xEF\xBD\x85t_weather"),
        std::string("get_weather "), std::string("get_weather\0", 12),
        std::string("get_weather\xE2\x80\x8B")}) {
    ToolRegistry reg;
    auto error = reg.add(open_tool(name, nullptr));
    ASSERT_TRUE(error.has_value()) << json(name).dump();
    EXPECT_EQ(error->code, ErrorCode::kInvalidTool);
    EXPECT_EQ(reg.size(), 0u);
  }
}

TEST(Security, ADisabledToolNeverRunsEvenWhenTheModelNamesIt) {
  Harness h;
  ASSERT_FALSE(h.registry->set_enabled("get_weather", false));
  h.last_step = h.driver.send("weather?");
  const json advertised = h.run()["tools"];
  for (const auto& t : advertised) EXPECT_NE(t["name"], "get_weather");  // not advertised
  json step = h.play({test::tool_start("c1", "get_weather", "a1"),
                      test::tool_args("c1", R"({"city":"Paris"})"), test::tool_end("c1"),
                      test::tool_start("c2", "read_clipboard", "a1"), test::tool_end("c2")});
  EXPECT_FALSE(step.contains("execute"));
  json tools = tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(error_of(tools[0]), "tool 'get_weather' is disabled in this client; it was not run");
  EXPECT_EQ(error_of(tools[1]), "tool 'read_clipboard' is disabled in this client; it was not run");
}

TEST(Security, AToolDisabledOrRemovedWhileItsApprovalIsPendingDoesNotRunWhenApproved) {
  for (const bool remove : {false, true}) {
    Harness h;
    h.last_step = h.driver.send("delete it");
    h.play_call("c1", "delete_file", R"({"path":"/x"})");
    ASSERT_EQ(h.driver.status()["pendingApprovals"].size(), 1u);
    if (remove) {
      ASSERT_FALSE(h.registry->remove("delete_file"));
    } else {
      ASSERT_FALSE(h.registry->set_enabled("delete_file", false));
    }
    json step = h.driver.approve("t1", "c1");
    EXPECT_FALSE(step.contains("execute"));
    ASSERT_TRUE(step.contains("run"));
    EXPECT_EQ(error_of(tool_messages(h.driver)[0]),
              std::string("tool 'delete_file' ") +
                  (remove ? "was removed from this client" : "was disabled") +
                  " while waiting for approval; it was not run");
  }
}

// ---------------------------------------------------------------- approvals

TEST(Security, ToolsThatNeedApprovalNeverRunWithoutIt) {
  auto reg = test::sample_registry();
  ToolSpec wipe = open_tool("wipe_disk", nullptr);
  wipe.destructive = true;
  ASSERT_FALSE(reg->add(std::move(wipe)));
  Harness h(reg, {});
  h.last_step = h.driver.send("go");
  // Also when the server lists them as pending, and when a result is offered
  // for them before anyone approved.
  json step = h.play(
      {test::tool_start("c1", "delete_file", "a1"), test::tool_args("c1", R"({"path":"/x"})"),
       test::tool_end("c1"), test::tool_start("c2", "wipe_disk", "a1"), test::tool_end("c2")},
      {{"type", "success"}, {"pendingToolCallIds", {"c1", "c2"}}});
  EXPECT_FALSE(step.contains("execute"));
  EXPECT_FALSE(step.contains("run"));
  EXPECT_EQ(h.driver.status()["pendingApprovals"].size(), 2u);
  EXPECT_EQ(h.driver.submit_result("c1", "deleted")["error"]["code"], "already_answered");
  EXPECT_EQ(h.driver.submit_error("c2", "x")["error"]["code"], "already_answered");
  EXPECT_TRUE(tool_messages(h.driver).empty());
  // A reload keeps them waiting.
  auto restored =
      RoundDriver::from_export(reg, json::parse(h.driver.export_thread().dump()), DriverOptions{});
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(restored);
  EXPECT_EQ(d.continue_turn(), json::object());
  EXPECT_EQ(d.status()["pendingApprovals"].size(), 2u);
  step = d.approve("t1", "c2");
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["toolCallId"], "c2");
}

TEST(Security, AnApprovalAnswersOneCallOnceAndCannotBeReplayed) {
  Harness h;
  h.last_step = h.driver.send("delete both");
  h.play({test::tool_start("c1", "delete_file", "a1"), test::tool_args("c1", R"({"path":"/a"})"),
          test::tool_end("c1"), test::tool_start("c2", "delete_file", "a1"),
          test::tool_args("c2", R"({"path":"/b"})"), test::tool_end("c2")});
  json step = h.driver.approve("t1", "c1");
  ASSERT_EQ(step["execute"].size(), 1u);  // c1 only: one approval, one call
  EXPECT_EQ(step["execute"][0]["toolCallId"], "c1");
  EXPECT_EQ(h.driver.status()["pendingApprovals"].size(), 1u);
  EXPECT_EQ(h.driver.approve("t1", "c1")["error"]["code"], "already_answered");
  EXPECT_EQ(h.driver.reject("t1", "c1", "")["error"]["code"], "already_answered");
  EXPECT_EQ(h.driver.reject("t1", "c2", "no").count("error"), 0u);
  EXPECT_EQ(h.driver.approve("t1", "c2")["error"]["code"], "already_answered");
  h.last_step = h.driver.submit_result("c1", "deleted");
  ASSERT_TRUE(h.last_step.contains("run"));
  // The round moved on: the old approvals are gone, and a replayed stream that
  // repeats the calls raises no new approval.
  EXPECT_EQ(h.driver.approve("t1", "c1")["error"]["code"], "unknown_tool_call");
  step = h.play({test::tool_start("c1", "delete_file", "a1"), test::tool_end("c1")});
  EXPECT_EQ(step["done"]["reason"], "done");
  EXPECT_TRUE(h.driver.status()["pendingApprovals"].empty());
  EXPECT_TRUE(every_call_answered_once(h.driver.thread().messages()));
}

TEST(Security, AnApprovalCannotBeAnsweredFromAnotherThread) {
  auto reg = test::sample_registry();
  Harness a(reg, {}, "thread-a");
  Harness b(reg, {}, "thread-b");
  a.last_step = a.driver.send("delete it");
  a.play_call("c1", "delete_file", R"({"path":"/x"})");
  EXPECT_EQ(a.driver.approve("thread-b", "c1")["error"]["code"], "wrong_thread");
  EXPECT_EQ(a.driver.reject("thread-b", "c1", "")["error"]["code"], "wrong_thread");
  EXPECT_EQ(b.driver.approve("thread-b", "c1")["error"]["code"], "unknown_tool_call");
  EXPECT_EQ(b.driver.approve("thread-a", "c1")["error"]["code"], "wrong_thread");
  EXPECT_EQ(a.driver.status()["pendingApprovals"].size(), 1u);  // nothing changed
  json step = a.driver.approve("thread-a", "c1");
  ASSERT_EQ(step["execute"].size(), 1u);
  EXPECT_EQ(step["execute"][0]["threadId"], "thread-a");
}

// ---------------------------------------------------------------- arguments

TEST(Security, ProtoAndConstructorKeysArePlainData) {
  auto reg = std::make_shared<ToolRegistry>();
  ASSERT_FALSE(reg->add(open_tool(
      "configure",
      {{"type", "object"},
       {"properties", {{"__proto__", {{"type", "object"}}}, {"constructor", {{"type", "string"}}}}},
       {"required", {"__proto__"}}})));
  const std::string args =
      R"({"__proto__":{"isAdmin":true},"constructor":"c","prototype":{"x":1},"toString":1})";
  Harness h(reg, {});
  h.last_step = h.driver.send("go");
  json step = h.play_call("c1", "configure", args);
  ASSERT_EQ(step["execute"].size(), 1u);
  // Unchanged: the same keys, the same values, nothing dropped or merged.
  EXPECT_EQ(step["execute"][0]["args"], json::parse(args));
  EXPECT_EQ(step["execute"][0]["args"]["__proto__"], (json{{"isAdmin", true}}));
  EXPECT_NE(step.dump().find(R"("__proto__":{"isAdmin":true})"), std::string::npos);
  h.last_step = h.driver.submit_result("c1", "ok");

  // They are validated as ordinary keys: a wrong type is an issue at its path,
  // a missing required one is missing.
  step = h.play_call("c2", "configure", R"({"__proto__":5})");
  EXPECT_FALSE(step.contains("execute"));
  json content = json::parse(tool_messages(h.driver).back()["content"].get<std::string>());
  EXPECT_EQ(content["details"][0]["path"], "/__proto__");
  step = h.play_call("c3", "configure", R"({"constructor":"c"})");
  EXPECT_FALSE(step.contains("execute"));
}

// ---------------------------------------------------------------- hostile streams
// Each was a crash, an exception out of the core, or a broken rule; found by
// tests/fuzz (reproducers in tests/fuzz/corpus/) or by reading the code while
// writing the fuzzers. Listed in tests/fuzz/README.md.

TEST(Security, ACallWhoseParentHasNoRoleIsPlacedNotCrashed) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play({{{"type", "MESSAGES_SNAPSHOT"}, {"messages", {{{"id", "m1"}}}}},
                      test::tool_start("c1", "get_current_location", "m1"),
                      test::tool_end("c1")});
  ASSERT_EQ(step["execute"].size(), 1u);
  bool reported = false;
  for (const auto& c : h.driver.take_changes()) {
    if (c.value("code", "") == "parent_not_assistant") {
      reported = true;
      EXPECT_NE(c["message"].get<std::string>().find("a message without a role"),
                std::string::npos);
    }
  }
  EXPECT_TRUE(reported);
}

TEST(Security, AnActivityReplacingAnAssistantMessageTakesItsCallsOutOfTheIndex) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play({test::tool_start("c1", "get_current_location", "a1"),
                      test::tool_end("c1"),
                      {{"type", "ACTIVITY_SNAPSHOT"},
                       {"messageId", "a1"},
                       {"activityType", "chart"},
                       {"content", json::object()}}},
                     {{"type", "success"}, {"pendingToolCallIds", {"c1"}}});
  EXPECT_FALSE(h.driver.thread().has_tool_call("c1"));
  EXPECT_EQ(h.driver.thread().find_message("a1")->at("role"), "activity");
  EXPECT_FALSE(h.driver.thread().find_message("a1")->contains("toolCalls"));
  EXPECT_EQ(step["done"]["reason"], "done");  // the pending id names no call: ignored
}

TEST(Security, MalformedCallsFromASnapshotGetAnErrorResultNotAnException) {
  const std::vector<json> functions = {"get_weather",
                                       json::object(),
                                       {{"name", 7}, {"arguments", "{}"}},
                                       {{"name", "get_current_location"}},  // no arguments
                                       {{"name", "get_current_location"}, {"arguments", 12}},
                                       {{"name", "get_weather"}, {"arguments", {{"city", "P"}}}}};
  for (const auto& fn : functions) {
    SCOPED_TRACE(fn.dump());
    Harness h;
    h.last_step = h.driver.send("go");
    json step =
        h.play({call_in_snapshot("c1", fn)}, {{"type", "success"}, {"pendingToolCallIds", {"c1"}}});
    EXPECT_FALSE(step.contains("error"));
    if (step.contains("execute")) {
      EXPECT_TRUE(step["execute"][0]["args"].is_object());
      h.driver.submit_result("c1", "ok");
    }
    EXPECT_TRUE(every_call_answered_once(h.driver.thread().messages()));
  }
}

TEST(Security, InvalidUtf8FromTheHostNeverThrows) {
  const std::string bad = "caf\xC3";  // a cut UTF-8 sequence, as a lone surrogate gives
  Harness h;
  h.last_step = h.driver.send("go");
  h.play({test::tool_start("c1", "get_current_location", "a1"), test::tool_end("c1"),
          test::tool_start("c2", "delete_file", "a1"), test::tool_args("c2", R"({"path":"/x"})"),
          test::tool_end("c2")});
  EXPECT_EQ(h.driver.submit_error("c1", bad), json::object());
  h.last_step = h.driver.reject("t1", "c2", bad);
  ASSERT_TRUE(h.last_step.contains("run"));
  EXPECT_NE(tool_messages(h.driver)[0]["content"].get<std::string>().find("caf\xEF\xBF\xBD"),
            std::string::npos);  // replaced by U+FFFD
  // Arguments that are not JSON, cut inside a multibyte character at the 200
  // bytes the error message quotes.
  const std::string args = "{" + std::string(198, 'a') + "\xC3\xA9 not json";
  json step = h.play_call("c3", "get_weather", args);
  EXPECT_TRUE(step.contains("run"));
  EXPECT_NE(error_of(tool_messages(h.driver).back()).find("not valid JSON"), std::string::npos);
}

TEST(Security, APendingListRepeatingAnIdRunsTheCallOnce) {
  Harness h;
  h.last_step = h.driver.send("go");
  json step = h.play({test::tool_start("c1", "get_current_location"), test::tool_end("c1")},
                     {{"type", "success"}, {"pendingToolCallIds", {"c1", "c1", "c1"}}});
  ASSERT_EQ(step["execute"].size(), 1u);
  h.driver.submit_result("c1", "ok");
  EXPECT_EQ(tool_messages(h.driver).size(), 1u);
}

TEST(Security, AbortDuringAnInterruptClosesTheInterruptedRunsCalls) {
  const json interrupt = {{"type", "interrupt"}, {"interrupts", {{{"id", "i1"}}}}};
  for (const std::string how : {"abort", "send", "resume_fails", "reload_then_abort"}) {
    SCOPED_TRACE(how);
    Harness h;
    h.last_step = h.driver.send("go");
    h.play({test::tool_start("c1", "get_current_location"), test::tool_end("c1")}, interrupt);
    std::unique_ptr<RoundDriver> reloaded;
    RoundDriver* d = &h.driver;
    if (how == "reload_then_abort") {
      auto r = RoundDriver::from_export(h.registry, json::parse(h.driver.export_thread().dump()));
      reloaded = std::move(std::get<std::unique_ptr<RoundDriver>>(r));
      d = reloaded.get();
    }
    if (how == "abort" || how == "reload_then_abort") {
      EXPECT_EQ(d->abort("")["done"]["reason"], "aborted");
    } else if (how == "send") {
      EXPECT_TRUE(d->send("something else").contains("run"));
    } else {
      json step = d->resolve_interrupt("i1", nullptr);
      EXPECT_EQ(d->transport_failed(step["run"]["runId"].get<std::string>(),
                                    "HTTP 502")["done"]["reason"],
                "run_error");
    }
    EXPECT_TRUE(every_call_answered_once(d->thread().messages()));
    EXPECT_NE(error_of(tool_messages(*d)[0]).find(how == "resume_fails" ? "HTTP 502" : "cancelled"),
              std::string::npos);
  }
}

TEST(Security, AReloadMidStreamClosesTheRunsCallsAndNeverReusesAnId) {
  Harness h;
  h.last_step = h.driver.send("go");
  const std::string id = h.run_id();
  h.driver.feed(
      id, test::sse({test::run_started("t1", id), test::tool_start("c1", "get_current_location"),
                     test::tool_end("c1")}));
  auto r = RoundDriver::from_export(h.registry, json::parse(h.driver.export_thread().dump()));
  auto& d = *std::get<std::unique_ptr<RoundDriver>>(r);
  EXPECT_EQ(d.status()["phase"], "idle");
  EXPECT_TRUE(every_call_answered_once(d.thread().messages()));
  EXPECT_EQ(error_of(tool_messages(d)[0]),
            "the page was closed while the run was streaming; this call was not run");
  json step = d.send("again");
  EXPECT_NE(step["run"]["runId"], id);
  std::set<std::string> ids;
  const json input = json::parse(d.run_input());  // held: the loop reads into it
  for (const auto& m : input["messages"]) EXPECT_TRUE(ids.insert(m["id"]).second) << m;
}

TEST(Security, AnEditedExportIsRefusedWithAMessageNeverAThrow) {
  Harness h;
  h.last_step = h.driver.send("delete it");
  h.play_call("c1", "delete_file", R"({"path":"/x"})");
  const json good = h.driver.export_thread();
  const std::vector<std::pair<std::string, json>> edits = {
      {"/format", 5},        {"/version", "1"},      {"/round", "x"},
      {"/round", -1},        {"/interrupts", {5}},   {"/calls/0/content", 5},
      {"/calls/0/name", {}}, {"/calls/0/args", "x"}, {"/messages", {{{"role", "user"}}}},
      {"/handled", 3},       {"/idCounter", "many"}, {"/streamingCalls", {7}}};
  for (const auto& [path, value] : edits) {
    SCOPED_TRACE(path + " = " + value.dump());
    json edited = good;
    edited[json::json_pointer(path)] = value;
    auto r = RoundDriver::from_export(h.registry, edited);
    if (auto* e = std::get_if<Error>(&r)) {
      EXPECT_EQ(e->message.rfind("thread import: ", 0), 0u);
      continue;
    }
    auto& d = *std::get<std::unique_ptr<RoundDriver>>(r);
    json step = d.approve("t1", "c1");
    EXPECT_FALSE(step.contains("error") && step["error"]["code"] == "internal");
    EXPECT_FALSE(d.export_thread().dump().empty());
  }
}

TEST(Security, AnExportedThreadAlwaysImports) {
  Harness h;
  h.last_step = h.driver.send("go");
  h.play({{{"type", "MESSAGES_SNAPSHOT"},
           {"messages", {{{"id", "m1"}}, {{"id", "m2"}, {"role", 4}}}}}});
  auto r = RoundDriver::from_export(h.registry, json::parse(h.driver.export_thread().dump()));
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<RoundDriver>>(r));
  EXPECT_EQ(std::get<std::unique_ptr<RoundDriver>>(r)->thread().size(), 2u);
}

}  // namespace
}  // namespace agui
