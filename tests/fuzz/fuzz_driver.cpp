// libFuzzer target: the round driver with a small registry, driven through random
// interleavings of everything a host can do: send, feed bytes (a scripted agent's
// events, mutated, in random chunks, sometimes for a stale run), end_of_stream,
// transport_failed, submit_result / submit_error, approve / reject (sometimes from
// another thread), resolve / cancel interrupts, abort, tool toggles, and
// export + from_export (through JSON text, as a page reload does).
//
// Invariants, from the round loop's rules (docs/round-loop.md):
//  - no exception escapes; every step is one of the protocol's shapes, and
//    "execute" never comes with "run";
//  - a toolCallId appears in "execute" at most once over the whole run, across
//    imports;
//  - an executed call names a registered, enabled tool, its args are an object
//    that satisfies the tool's schema, and a tool that needs approval is only
//    executed by approve() of that very call on its own thread;
//  - the driver never answers a call twice: a call the server did not answer
//    has at most one tool message;
//  - every RunAgentInput written has a tool message for every tool call in it,
//    whoever owns the tool, but the calls an interrupt deferred to its resume;
//  - after a "done" step, every call to a registry tool in the thread has
//    exactly one tool message, unless the server took calls out of the client's
//    hands (a MESSAGES_SNAPSHOT, a pendingToolCallIds list, messages carried in
//    RUN_STARTED or sent by the host), where the reducer's rules say who answers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "client/round_driver.hpp"
#include "client/tool_registry.hpp"
#include "common/utf8.hpp"
#include "fuzz_support.hpp"

namespace {

using agui::DriverOptions;
using agui::RoundDriver;
using agui::ToolRegistry;
using agui::ToolSpec;
using agui::fuzz::json;

ToolSpec spec(std::string name, json parameters) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "A tool.";
  s.parameters = std::move(parameters);
  return s;
}

std::shared_ptr<ToolRegistry> make_registry() {
  auto reg = std::make_shared<ToolRegistry>();
  auto ok = [](const agui::Status& st) { AGUI_FUZZ_CHECK(!st, "the fuzz registry registers"); };
  ok(reg->add(
      spec("get_weather", {{"type", "object"},
                           {"properties", {{"city", {{"type", "string"}, {"minLength", 1}}}}},
                           {"required", {"city"}}})));
  ok(reg->add(spec("get_current_location", nullptr)));
  ToolSpec del = spec("delete_file", {{"type", "object"},
                                      {"properties", {{"path", {{"type", "string"}}}}},
                                      {"required", {"path"}}});
  del.requires_approval = true;
  ok(reg->add(std::move(del)));
  ToolSpec wipe = spec("wipe_disk", nullptr);
  wipe.destructive = true;
  ok(reg->add(std::move(wipe)));
  ToolSpec clip = spec("read_clipboard", nullptr);
  clip.default_enabled = false;
  ok(reg->add(std::move(clip)));
  ToolSpec ask = spec("request_user_approval",
                      {{"type", "object"}, {"properties", {{"question", {{"type", "string"}}}}}});
  ask.requires_approval = true;
  ask.rejected_result = {{"decision", "rejected"}};
  ok(reg->add(std::move(ask)));
  ToolSpec slow = spec("slow_tool", nullptr);
  slow.timeout_ms = 5;
  ok(reg->add(std::move(slow)));
  return reg;
}

const std::string* str(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

class Harness {
 public:
  Harness(FuzzedDataProvider& in, std::size_t size) : in_(in), gen_(in, "t1") {
    registry_ = make_registry();
    DriverOptions o;
    o.max_rounds = in.ConsumeIntegralInRange(0, 3);
    o.repeat_limit = in.ConsumeIntegralInRange(0, 3);
    if (in.ConsumeBool()) o.max_argument_bytes = in.ConsumeIntegralInRange<std::size_t>(1, 80);
    if (in.ConsumeBool()) o.max_result_bytes = in.ConsumeIntegralInRange<std::size_t>(1, 80);
    if (in.ConsumeBool()) o.sse.max_event_bytes = in.ConsumeIntegralInRange<std::size_t>(1, 600);
    if (in.ConsumeBool()) o.id_prefix = "p";
    set_newer_limits(o, size);
    options_ = o;
    driver_ = std::make_unique<RoundDriver>(registry_, "t1", options_);
  }

  // Options a core before issue 7 lacks: set when present, so that this harness
  // also builds against an older core (to check a reproducer against the code
  // before its fix). Derived from the input's size, not read from the input.
  template <typename Options>
  static void set_newer_limits(Options& o, std::size_t size) {
    if constexpr (requires { o.max_calls_per_round; }) {
      if (size % 5 == 0) o.max_calls_per_round = 1 + size % 4;
    }
    if constexpr (requires { o.max_json_depth; }) {
      if (size % 7 == 0) o.max_json_depth = 2 + size % 6;
    }
  }

  // Mostly what the driver's phase calls for (a send when idle, the stream while
  // running, answers while awaiting), so that inputs reach deep rounds; the rest
  // of the time any action, wanted or not.
  int pick_action() {
    const int raw = in_.ConsumeIntegralInRange(0, 19);
    if (raw >= 12) return raw;
    const json status = driver_->status();
    const std::string phase = status["phase"];
    if (phase == "idle") return 0;
    if (phase == "running") return raw % 4 == 0 ? 7 : 2;
    if (!status["running"].empty()) return raw % 3 == 0 ? 11 : 9;
    if (!status["pendingApprovals"].empty()) return raw % 3 == 0 ? 14 : 12;
    if (!status["pendingInterrupts"].empty()) return 15;
    return 19;
  }

  void step() {
    const int action = pick_action();
    static const char* const kActions[] = {"send",
                                           "send",
                                           "feed-run",
                                           "feed-run",
                                           "feed-run",
                                           "feed-run",
                                           "feed-garbage",
                                           "end-of-stream",
                                           "transport-failed",
                                           "submit-result",
                                           "submit-result",
                                           "submit-error",
                                           "approve",
                                           "approve",
                                           "reject",
                                           "interrupt-answer",
                                           "abort",
                                           "reload",
                                           "toggle-tool",
                                           "continue-turn"};
    agui::fuzz::count(std::string("action:") + kActions[action]);
    if (trace_)
      std::fprintf(stderr, "-- action %d, status %s\n", action,
                   agui::fuzz::dump(driver_->status()).c_str());
    last_approve_ = {};
    json step;
    switch (action) {
      case 0:
      case 1: step = send(); break;
      case 2:
      case 3:
      case 4:
      case 5: step = feed_run(); break;
      case 6: step = call([&] { return driver_->feed(pick_run(), gen_.text()); }); break;
      case 7: step = call([&] { return driver_->end_of_stream(pick_run()); }); break;
      case 8: step = call([&] { return driver_->transport_failed(pick_run(), "HTTP 500"); }); break;
      case 9:
      case 10: {
        const std::string id = pick_call();
        std::string content =
            in_.ConsumeIntegralInRange(0, 7) == 0
                ? std::string(in_.ConsumeIntegralInRange<std::size_t>(0, 200), 'x')
                : in_.ConsumeRandomLengthString(40);  // may be invalid UTF-8
        if (!running_.count(id)) agui::fuzz::count("fault:result-for-a-call-not-running");
        if (content.size() > options_.max_result_bytes)
          agui::fuzz::count("fault:result-over-limit");
        if (!valid_utf8(content)) agui::fuzz::count("fault:result-invalid-utf8");
        step = call([&] { return driver_->submit_result(id, content); });
        break;
      }
      case 11: {
        const std::string id = pick_call();
        const std::string message = in_.ConsumeRandomLengthString(40);
        step = call([&] { return driver_->submit_error(id, message); });
        break;
      }
      case 12:
      case 13: {
        const std::string thread = in_.ConsumeIntegralInRange(0, 5) == 0 ? "t2" : "t1";
        const std::string id = pick_approval();
        if (thread != "t1") agui::fuzz::count("fault:approve-from-another-thread");
        last_approve_ = {thread, id};
        step = call([&] { return driver_->approve(thread, id); });
        break;
      }
      case 14: {
        const std::string thread = in_.ConsumeIntegralInRange(0, 5) == 0 ? "t2" : "t1";
        const std::string id = pick_approval();
        const std::string reason = in_.ConsumeRandomLengthString(20);
        step = call([&] { return driver_->reject(thread, id, reason); });
        break;
      }
      case 15: {
        const std::string id = pick_interrupt();
        json payload = in_.ConsumeBool() ? json{{"ok", in_.ConsumeBool()}} : gen_.value();
        if (in_.ConsumeBool()) {
          step = call([&] { return driver_->resolve_interrupt(id, payload); });
        } else {
          step = call([&] { return driver_->cancel_interrupt(id, gen_.text()); });
        }
        break;
      }
      case 16: step = call([&] { return driver_->abort(in_.ConsumeBool() ? "" : "stop"); }); break;
      case 17:
        reload();
        step = call([&] { return driver_->continue_turn(); });
        break;
      case 18: {
        const std::string name = gen_.tool_name();
        (void)registry_->set_enabled(name, in_.ConsumeBool());
        return;
      }
      default: step = call([&] { return driver_->continue_turn(); }); break;
    }
    check_step(step);
    check_thread();
  }

 private:
  // The core is built without exceptions: what would throw aborts instead,
  // which libFuzzer reports as a crash.
  template <typename F>
  json call(F&& f) {
    return f();
  }

  json send() {
    json input;
    switch (in_.ConsumeIntegralInRange(0, 5)) {
      case 0: input = json::array({{{"role", "user"}, {"content", gen_.text()}}}); break;
      case 1: {
        input = gen_.messages();  // may carry calls and results: the host's word
        for (const auto& m : input) {
          if (m.is_object() && (m.contains("toolCalls") || m.contains("toolCallId")))
            gen_.tainted = true;
          if (const auto* id = str(m, "toolCallId")) gen_.server_results.push_back(*id);
        }
        break;
      }
      case 2: input = gen_.value(); break;
      default: input = gen_.text(); break;
    }
    return call([&] { return driver_->send(input); });
  }

  // One run of a scripted agent: RUN_STARTED, some events (mostly tool calls),
  // RUN_FINISHED, encoded as SSE and fed in chunks, then maybe end_of_stream.
  json feed_run() {
    const std::string run = pick_run();
    gen_.set_run(run);
    std::vector<json> events;
    if (in_.ConsumeIntegralInRange(0, 7) != 0)
      events.push_back({{"type", "RUN_STARTED"}, {"threadId", "t1"}, {"runId", run}});
    for (int i = 0, n = in_.ConsumeIntegralInRange(0, 8); i < n; ++i) {
      if (in_.ConsumeIntegralInRange(0, 2) != 0) {
        // A well-formed call.
        const std::string id = gen_.call_id();
        events.push_back(
            {{"type", "TOOL_CALL_START"}, {"toolCallId", id}, {"toolCallName", gen_.tool_name()}});
        events.push_back({{"type", "TOOL_CALL_ARGS"}, {"toolCallId", id}, {"delta", gen_.text()}});
        if (in_.ConsumeBool()) events.push_back({{"type", "TOOL_CALL_END"}, {"toolCallId", id}});
      } else {
        events.push_back(gen_.event());
      }
    }
    if (in_.ConsumeIntegralInRange(0, 7) != 0) {
      json finished = {{"type", "RUN_FINISHED"}, {"threadId", "t1"}, {"runId", run}};
      if (in_.ConsumeBool()) {
        if (json o = gen_.outcome(); !o.is_null()) finished["outcome"] = std::move(o);
      }
      events.push_back(std::move(finished));
    }
    std::string body;
    for (const auto& e : events) body += "data: " + agui::fuzz::dump(e) + "\n\n";
    if (trace_) std::fprintf(stderr, "   feed %s: %s\n", run.c_str(), body.substr(0, 3000).c_str());
    if (in_.ConsumeIntegralInRange(0, 9) == 0) {
      agui::fuzz::count("fault:garbage-after-events");
      body += in_.ConsumeRandomLengthString(30);
    }
    if (run != last_run_ || driver_->status()["phase"] != "running")
      agui::fuzz::count("fault:feed-for-a-stale-run");
    agui::fuzz::count("events-fed", events.size());
    json last = json::object();
    for (std::size_t pos = 0; pos < body.size();) {
      const std::size_t n = in_.ConsumeIntegralInRange<std::size_t>(1, 256);
      last = call([&] { return driver_->feed(run, std::string_view(body).substr(pos, n)); });
      pos += n;
      if (last.contains("done")) return last;
      check_step(last);
    }
    if (in_.ConsumeIntegralInRange(0, 5) != 0) {
      return call([&] { return driver_->end_of_stream(run); });
    }
    return last;
  }

  static bool valid_utf8(const std::string& s) { return !agui::invalid_utf8_at(s); }

  void reload() {
    agui::fuzz::count(driver_->status()["phase"] == "running" ? "fault:reload-mid-stream"
                                                              : "fault:reload");
    const std::string text = agui::fuzz::dump(call([&] { return driver_->export_thread(); }));
    const json exported = json::parse(text);
    if (in_.ConsumeIntegralInRange(0, 3) == 0) {
      // An export edited by hand or by another version: imported into a
      // throwaway driver (what it says is then the truth, so the invariants of
      // this run do not apply to it), it must be refused or work, never throw.
      agui::fuzz::count("fault:edited-export");
      json edited = exported;
      for (int i = 0, n = in_.ConsumeIntegralInRange(1, 3); i < n; ++i) {
        const std::string key = gen_.pick({"format", "version", "threadId", "messages", "state",
                                           "round", "calls", "handled", "interrupts", "resume"});
        if ((key == "calls" || key == "interrupts" || key == "messages") &&
            edited[key].is_array() && !edited[key].empty() && in_.ConsumeBool()) {
          json& item =
              edited[key][in_.ConsumeIntegralInRange<std::size_t>(0, edited[key].size() - 1)];
          if (item.is_object() && !item.empty()) {
            auto it = item.begin();
            std::advance(it, in_.ConsumeIntegralInRange<std::size_t>(0, item.size() - 1));
            *it = gen_.value();
          } else {
            item = gen_.value();
          }
        } else {
          edited[key] = gen_.value();
        }
      }
      auto other = call([&] {
        auto r = RoundDriver::from_export(registry_, edited, options_);
        if (auto* d = std::get_if<std::unique_ptr<RoundDriver>>(&r)) {
          (void)agui::fuzz::dump((*d)->continue_turn());
          (void)agui::fuzz::dump((*d)->status());
          const json status = (*d)->status();
          for (const auto& a : status["pendingApprovals"])
            (void)agui::fuzz::dump((*d)->approve("t1", a.value("toolCallId", "")));
          for (const auto& i : status["pendingInterrupts"])
            if (i.is_object() && i.contains("id") && i["id"].is_string())
              (void)agui::fuzz::dump((*d)->cancel_interrupt(i["id"].get<std::string>(), "x"));
          (void)agui::fuzz::dump((*d)->abort(""));
          (void)agui::fuzz::dump((*d)->export_thread());
        }
        return json::object();
      });
      (void)other;
    }
    auto restored = RoundDriver::from_export(registry_, exported, options_);
    auto* ok = std::get_if<std::unique_ptr<RoundDriver>>(&restored);
    if (ok == nullptr) {
      std::fprintf(stderr, "import refused: %s\n%s\n",
                   std::get<agui::Error>(restored).message.c_str(), text.substr(0, 2000).c_str());
    }
    AGUI_FUZZ_CHECK(ok != nullptr, "an export imports");
    driver_ = std::move(*ok);
  }

  std::string pick_run() {
    const json status = driver_->status();
    if (const auto* id = str(status, "runId"); id && in_.ConsumeIntegralInRange(0, 9) != 0)
      return *id;
    return in_.ConsumeBool() ? last_run_ : std::string("run-stale");
  }
  std::string pick_call() {
    if (!running_.empty() && in_.ConsumeIntegralInRange(0, 7) != 0) {
      auto it = running_.begin();
      std::advance(it, in_.ConsumeIntegralInRange<std::size_t>(0, running_.size() - 1));
      return *it;
    }
    return gen_.call_id();
  }
  std::string pick_approval() {
    const json approvals = driver_->status()["pendingApprovals"];
    if (!approvals.empty() && in_.ConsumeIntegralInRange(0, 7) != 0) {
      const auto i = in_.ConsumeIntegralInRange<std::size_t>(0, approvals.size() - 1);
      return approvals[i]["toolCallId"].get<std::string>();
    }
    return gen_.call_id();
  }
  std::string pick_interrupt() {
    const json pending = driver_->status()["pendingInterrupts"];
    if (!pending.empty() && in_.ConsumeIntegralInRange(0, 7) != 0) {
      const auto i = in_.ConsumeIntegralInRange<std::size_t>(0, pending.size() - 1);
      if (const auto* id = str(pending[i], "id")) return *id;
    }
    return gen_.pick({"i1", "i2", "i3"});
  }

  // The request body, written as text straight from the thread, is the
  // RunAgentInput a tree built from the same parts would dump to, key for key
  // in the same order: the thread's
  // messages but activity, the tools the registry advertises now, the options.
  void check_run_input() {
    const json input = json::parse(driver_->run_input(), nullptr, false);
    AGUI_FUZZ_CHECK(input.is_object(), "run_input() is a JSON object");
    json messages = json::array();
    for (const auto& m : driver_->thread().messages()) {
      const auto* role = str(m, "role");
      if (role == nullptr || *role != "activity") messages.push_back(m);
    }
    const json state = driver_->thread().state();
    // In @ag-ui/client's member order, which the body keeps.
    json expected = {{"threadId", driver_->thread_id()},
                     {"runId", last_run_},
                     {"tools", registry_->advertise()},
                     {"context", options_.context},
                     {"forwardedProps", options_.forwarded_props},
                     {"state", state.is_null() ? json::object() : state},
                     {"messages", std::move(messages)}};
    if (input.contains("resume")) {
      AGUI_FUZZ_CHECK(input["resume"].is_array() && !input["resume"].empty(),
                      "a resume is a non-empty list");
      expected["resume"] = input["resume"];
    }
    AGUI_FUZZ_CHECK(
        agui::fuzz::dump(expected) == driver_->run_input(),
        "run_input() holds the thread, the tools and the options, as dump() writes them");
    check_no_call_goes_out_open(input["messages"]);
  }

  // Every tool call the request carries has its tool message, whoever owns the
  // tool, but the calls an interrupt deferred to this (resume) run.
  void check_no_call_goes_out_open(const json& messages) {
    std::set<std::string> answered;
    for (const auto& m : messages) {
      const auto* role = str(m, "role");
      const auto* id = str(m, "toolCallId");
      if (role && *role == "tool" && id) answered.insert(*id);
    }
    const auto& deferred = driver_->deferred_calls();
    for (const auto& m : messages) {
      const auto* role = str(m, "role");
      auto calls = m.find("toolCalls");
      if (!role || *role != "assistant" || calls == m.end() || !calls->is_array()) continue;
      for (const auto& c : *calls) {
        const auto* id = str(c, "id");
        if (!id || answered.count(*id)) continue;
        const bool held = std::find(deferred.begin(), deferred.end(), *id) != deferred.end();
        if (!held) std::fprintf(stderr, "call '%s' goes out without a tool message\n", id->c_str());
        AGUI_FUZZ_CHECK(held, "no request goes out with a call that has no tool message");
      }
    }
  }

  void check_step(const json& step) {
    if (trace_) std::fprintf(stderr, "   step %s\n", agui::fuzz::dump(step).substr(0, 600).c_str());
    AGUI_FUZZ_CHECK(step.is_object(), "a step is an object");
    for (auto it = step.begin(); it != step.end(); ++it) {
      const std::string& k = it.key();
      AGUI_FUZZ_CHECK(k == "run" || k == "execute" || k == "done" || k == "error" || k == "stale",
                      "a step has only the protocol's keys");
    }
    AGUI_FUZZ_CHECK(!(step.contains("run") && step.contains("execute")),
                    "\"execute\" and \"run\" never together");
    if (const auto* run = step.contains("run") ? str(step["run"], "runId") : nullptr) {
      last_run_ = *run;
      check_run_input();
    }
    if (step.contains("execute")) {
      AGUI_FUZZ_CHECK(step["execute"].is_array() && !step["execute"].empty(), "execute is a list");
      for (const auto& x : step["execute"]) check_execute(x, step["execute"].size());
    }
    if (step.contains("done")) check_done();
    (void)agui::fuzz::dump(step);
    const json changes = driver_->take_changes();
    agui::fuzz::count_problems(changes);
    if (step.contains("error")) agui::fuzz::count("refused:" + step["error"].value("code", "?"));
    if (step.contains("done")) agui::fuzz::count("done:" + step["done"].value("reason", "?"));
    if (step.contains("execute")) agui::fuzz::count("executed", step["execute"].size());
    (void)agui::fuzz::dump(changes);
  }

  void check_execute(const json& x, std::size_t batch) {
    const auto* id = str(x, "toolCallId");
    const auto* name = str(x, "name");
    AGUI_FUZZ_CHECK(id && name, "an execute entry names its call and tool");
    AGUI_FUZZ_CHECK(executed_.insert(*id).second, "a toolCallId is executed at most once");
    running_.insert(*id);
    const agui::Tool* tool = registry_->find(*name);
    AGUI_FUZZ_CHECK(tool != nullptr, "only a registered tool runs");
    AGUI_FUZZ_CHECK(tool->enabled, "a disabled tool never runs");
    AGUI_FUZZ_CHECK(x.contains("args") && x["args"].is_object(), "args are an object");
    AGUI_FUZZ_CHECK(tool->schema->is_valid(x["args"]), "args satisfy the tool's schema");
    AGUI_FUZZ_CHECK(str(x, "threadId") && *str(x, "threadId") == driver_->thread_id(),
                    "execute names the driver's thread");
    if (tool->needs_approval()) {
      AGUI_FUZZ_CHECK(
          batch == 1 && last_approve_.second == *id && last_approve_.first == "t1",
          "a tool that needs approval runs only by approve() of that call on its thread");
    }
  }

  std::map<std::string, int> tool_message_counts() const {
    std::map<std::string, int> counts;
    const auto& t = driver_->thread();
    for (std::size_t i = 0; i < t.size(); ++i) {
      const json& m = t.at(i);
      const auto* role = str(m, "role");
      const auto* call_id = str(m, "toolCallId");
      if (role && *role == "tool" && call_id) ++counts[*call_id];
    }
    return counts;
  }

  void check_thread() {
    const std::set<std::string> answered_by_server(gen_.server_results.begin(),
                                                   gen_.server_results.end());
    for (const auto& [id, n] : tool_message_counts()) {
      if (n > 1)
        AGUI_FUZZ_CHECK(answered_by_server.count(id), "the driver never answers a call twice");
    }
    // Calls no longer running (answered, closed) leave the running set.
    const json status = driver_->status();
    std::set<std::string> still(status["running"].begin(), status["running"].end());
    for (auto it = running_.begin(); it != running_.end();)
      it = still.count(*it) ? std::next(it) : running_.erase(it);
  }

  void check_done() {
    if (gen_.tainted) return;
    const auto counts = tool_message_counts();
    const auto& t = driver_->thread();
    for (std::size_t i = 0; i < t.size(); ++i) {
      const json& m = t.at(i);
      auto calls = m.find("toolCalls");
      if (calls == m.end() || !calls->is_array()) continue;
      for (const auto& c : *calls) {
        const auto* id = str(c, "id");
        const auto* name =
            c.is_object() && c.contains("function") ? str(c["function"], "name") : nullptr;
        if (!id || !name || !registry_->find(*name)) continue;
        auto n = counts.find(*id);
        if (n == counts.end() || n->second != 1) {
          std::fprintf(stderr, "call '%s' (%s) has %d tool messages after done\n", id->c_str(),
                       name->c_str(), n == counts.end() ? 0 : n->second);
        }
        AGUI_FUZZ_CHECK(n != counts.end() && n->second == 1,
                        "after done, every call to a registry tool has exactly one tool message");
      }
    }
  }

  FuzzedDataProvider& in_;
  agui::fuzz::EventGen gen_;
  std::shared_ptr<ToolRegistry> registry_;
  DriverOptions options_;
  std::unique_ptr<RoundDriver> driver_;
  std::string last_run_;
  std::unordered_set<std::string> executed_;
  std::set<std::string> running_;
  std::pair<std::string, std::string> last_approve_;
  // AGUI_FUZZ_TRACE=1 ./fuzz_driver <file>: what each step did, to read a crash.
  const bool trace_ = std::getenv("AGUI_FUZZ_TRACE") != nullptr;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  Harness h(in, size);
  for (int i = 0; i < 64 && in.remaining_bytes() > 0; ++i) h.step();
  return 0;
}
