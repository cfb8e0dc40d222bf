// Shared by the fuzz targets: the invariant check, a seeded generator for
// splitting inputs, and a generator of AG-UI events (well formed, nearly well
// formed, and broken) driven by the fuzzer's bytes, so that mutations explore the
// reducer's and the driver's states instead of failing at the JSON parser.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"

// An invariant that must hold on every input: report it and stop (libFuzzer
// records the input as a crash).
#define AGUI_FUZZ_CHECK(cond, what)                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "\nINVARIANT BROKEN: %s\n  at %s:%d: %s\n", what, __FILE__, __LINE__, \
                   #cond);                                                                       \
      std::abort();                                                                              \
    }                                                                                            \
  } while (0)

namespace agui::fuzz {

using json = agui::json;

// splitmix64 seeded with the FNV-1a hash of the input: "positions derived from
// the input", reproducible from the input file alone.
class Rng {
 public:
  explicit Rng(std::string_view seed) {
    state_ = 1469598103934665603ull;
    for (unsigned char c : seed) state_ = (state_ ^ c) * 1099511628211ull;
  }
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// What a run tried, by kind (bad inputs the core classified, faults the harness
// injected), printed at exit as "AGUI_FUZZ_COUNT <kind> <n>" lines, which
// tests/fuzz/run.sh sums into its report.
class Counts {
 public:
  ~Counts() {
    for (const auto& [kind, n] : counts_)
      std::fprintf(stderr, "AGUI_FUZZ_COUNT %s %llu\n", kind.c_str(),
                   static_cast<unsigned long long>(n));
  }
  void add(const std::string& kind, std::uint64_t n = 1) { counts_[kind] += n; }

 private:
  std::map<std::string, std::uint64_t> counts_;
};
inline Counts& counts() {
  static Counts c;
  return c;
}
inline void count(const std::string& kind, std::uint64_t n = 1) { counts().add(kind, n); }

// Counts the problems a list of changes reports, by code ("problem:<code>").
inline void count_problems(const json& changes) {
  for (const auto& c : changes) {
    if (c.is_object() && c.value("kind", "") == "problem") count("problem:" + c.value("code", "?"));
  }
}

// JSON text as the binding writes it: invalid UTF-8 replaced, never a throw.
inline std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Tool names the model might use: the registry's, and near misses of them
// (case, Cyrillic and fullwidth lookalikes, spaces, a NUL).
inline const std::vector<std::string>& tool_names() {
  static const std::vector<std::string> names = {
      "get_weather",        "get_current_location",
      "delete_file",        "wipe_disk",
      "read_clipboard",     "request_user_approval",
      "slow_tool",          "get_weather",
      "get_weather",        "Get_Weather",
      "get_weather ",       std::string("get_weather\0", 12),
      "g\xD0\xB5t_weather", "\xEF\xBD\x87\x65t_weather",
      "server_search",      ""};
  return names;
}

class EventGen {
 public:
  EventGen(FuzzedDataProvider& in, std::string thread_id)
      : in_(in), thread_id_(std::move(thread_id)) {}

  void set_run(std::string run_id) { run_id_ = std::move(run_id); }
  // Set when a generated event may take calls or results out of the driver's
  // hands (snapshots, a pendingToolCallIds list, messages carried in RUN_STARTED).
  bool tainted = false;
  std::vector<std::string> server_results;  // toolCallIds the "server" answered

  std::string pick(std::initializer_list<const char*> list) {
    return list.begin()[in_.ConsumeIntegralInRange<std::size_t>(0, list.size() - 1)];
  }
  std::string message_id() { return pick({"m1", "m2", "m3", "c1", "tool-1", "msg-1", "a1", ""}); }
  std::string call_id() { return pick({"c1", "c2", "c3", "c4", "m1", "c5", "c6", "c7"}); }
  std::string tool_name() {
    const auto& names = tool_names();
    return names[in_.ConsumeIntegralInRange<std::size_t>(0, names.size() - 1)];
  }

  // Short text: mostly argument fragments the tools accept, sometimes odd bytes
  // (escaped into valid UTF-8 on the way out, as a server's encoder would).
  std::string text() {
    switch (in_.ConsumeIntegralInRange(0, 11)) {
      case 0: return "{\"city\":\"Paris\"}";
      case 1: return "{\"path\":\"/tmp/x\"}";
      case 2: return "{";
      case 3: return "\"city\":\"Oslo\"}";
      case 4: return "";
      case 5: return "[1]";
      case 6: return "{\"__proto__\":{\"x\":1},\"constructor\":\"c\",\"city\":\"Rome\"}";
      case 7: return std::string(in_.ConsumeIntegralInRange<std::size_t>(1, 300), '[');
      case 8: return "{\"city\":42}";
      case 9: return "{\"question\":\"ok?\"}";
      default: return in_.ConsumeRandomLengthString(48);
    }
  }

  json value(int depth = 0) {
    switch (in_.ConsumeIntegralInRange(0, depth > 3 ? 4 : 7)) {
      case 0: return nullptr;
      case 1: return in_.ConsumeBool();
      case 2: return in_.ConsumeIntegral<int>();
      case 3: return in_.ConsumeFloatingPoint<double>();
      case 4: return text();
      case 5: {
        json a = json::array();
        for (int i = 0, n = in_.ConsumeIntegralInRange(0, 3); i < n; ++i)
          a.push_back(value(depth + 1));
        return a;
      }
      default: {
        json o = json::object();
        for (int i = 0, n = in_.ConsumeIntegralInRange(0, 3); i < n; ++i)
          o[pick({"a", "b", "c", "__proto__", "constructor", "0"})] = value(depth + 1);
        return o;
      }
    }
  }

  json patch() {
    json ops = json::array();
    for (int i = 0, n = in_.ConsumeIntegralInRange(0, 3); i < n; ++i) {
      json op = {{"op", pick({"add", "remove", "replace", "move", "copy", "test", "nope"})},
                 {"path", pick({"", "/a", "/a/b", "/b/0", "/b/-", "/c", "/__proto__", "x"})}};
      if (in_.ConsumeBool()) op["value"] = value(1);
      if (in_.ConsumeBool()) op["from"] = pick({"/a", "/b", "", "/a/b"});
      ops.push_back(std::move(op));
    }
    return in_.ConsumeIntegralInRange(0, 15) == 0 ? value() : ops;
  }

  json tool_call() {
    json call = {{"id", call_id()},
                 {"type", "function"},
                 {"function", {{"name", tool_name()}, {"arguments", text()}}}};
    switch (in_.ConsumeIntegralInRange(0, 9)) {
      case 0: call.erase("function"); break;
      case 1: call["function"] = "get_weather"; break;
      case 2: call["function"]["name"] = 7; break;
      case 3: call["function"]["arguments"] = value(); break;
      case 4: call.erase("id"); break;
      case 5: call["function"].erase("arguments"); break;
      default: break;
    }
    return call;
  }

  json message() {
    json m = {{"id", message_id()},
              {"role", pick({"assistant", "user", "tool", "system", "activity", "reasoning",
                             "developer"})}};
    if (in_.ConsumeBool()) m["content"] = text();
    if (m["role"] == "assistant" && in_.ConsumeBool()) {
      m["toolCalls"] = json::array();
      for (int i = 0, n = in_.ConsumeIntegralInRange(0, 2); i < n; ++i)
        m["toolCalls"].push_back(tool_call());
    }
    if (m["role"] == "tool") {
      m["toolCallId"] = call_id();
      server_results.push_back(m["toolCallId"]);
    }
    if (m["role"] == "activity") {
      m["activityType"] = "chart";
      m["content"] = json::object();
    }
    switch (in_.ConsumeIntegralInRange(0, 11)) {
      case 0: m.erase("id"); break;
      case 1: m.erase("role"); break;
      case 2: m["role"] = 3; break;
      default: break;
    }
    return m;
  }

  json messages() {
    json list = json::array();
    for (int i = 0, n = in_.ConsumeIntegralInRange(0, 4); i < n; ++i) list.push_back(message());
    return list;
  }

  json outcome() {
    switch (in_.ConsumeIntegralInRange(0, 9)) {
      case 0: return nullptr;
      case 1: {
        json ids = json::array();
        for (int i = 0, n = in_.ConsumeIntegralInRange(1, 3); i < n; ++i) ids.push_back(call_id());
        if (in_.ConsumeBool()) ids.push_back(5);
        tainted = true;
        return {{"type", "success"}, {"pendingToolCallIds", ids}};
      }
      case 2:
      case 3: {
        json list = json::array();
        for (int i = 0, n = in_.ConsumeIntegralInRange(0, 2); i < n; ++i) {
          json it = {{"id", pick({"i1", "i2", "i3"})}, {"reason", "confirm"}};
          if (in_.ConsumeBool())
            it["responseSchema"] = {{"type", "object"},
                                    {"required", {"ok"}},
                                    {"properties", {{"ok", {{"type", "boolean"}}}}}};
          if (in_.ConsumeIntegralInRange(0, 7) == 0) it["responseSchema"] = {{"type", 12}};
          if (in_.ConsumeIntegralInRange(0, 7) == 0) it.erase("id");
          list.push_back(std::move(it));
        }
        return {{"type", "interrupt"}, {"interrupts", list}};
      }
      case 4: return {{"type", "cancelled"}};
      case 5: return {{"type", pick({"weird", "success"})}};
      case 6: return value();
      default: return {{"type", "success"}};
    }
  }

  // One event. `kind` < 0 lets the input choose.
  json event(int kind = -1) {
    static const char* const kTypes[] = {"TEXT_MESSAGE_START",
                                         "TEXT_MESSAGE_CONTENT",
                                         "TEXT_MESSAGE_END",
                                         "TEXT_MESSAGE_CHUNK",
                                         "TOOL_CALL_START",
                                         "TOOL_CALL_ARGS",
                                         "TOOL_CALL_END",
                                         "TOOL_CALL_CHUNK",
                                         "TOOL_CALL_RESULT",
                                         "STATE_SNAPSHOT",
                                         "STATE_DELTA",
                                         "MESSAGES_SNAPSHOT",
                                         "ACTIVITY_SNAPSHOT",
                                         "ACTIVITY_DELTA",
                                         "RAW",
                                         "CUSTOM",
                                         "RUN_STARTED",
                                         "RUN_FINISHED",
                                         "RUN_ERROR",
                                         "STEP_STARTED",
                                         "STEP_FINISHED",
                                         "REASONING_START",
                                         "REASONING_MESSAGE_START",
                                         "REASONING_MESSAGE_CONTENT",
                                         "REASONING_MESSAGE_END",
                                         "REASONING_MESSAGE_CHUNK",
                                         "REASONING_END",
                                         "REASONING_ENCRYPTED_VALUE",
                                         "SUBAGENT_STARTED",
                                         "SUBAGENT_FINISHED",
                                         "SUBAGENT_ERROR",
                                         "NOT_AN_EVENT"};
    constexpr int kCount = sizeof kTypes / sizeof kTypes[0];
    if (kind < 0) {
      // Tool-call events are the ones that matter most: weight them.
      kind = in_.ConsumeIntegralInRange(0, kCount + 8);
      if (kind >= kCount) kind = 4 + (kind - kCount) % 4;
    }
    const std::string type = kTypes[kind];
    json e = {{"type", type}};
    if (type.find("TEXT_MESSAGE") == 0 || type.find("REASONING_MESSAGE") == 0) {
      if (type.find("CHUNK") == std::string::npos || in_.ConsumeBool())
        e["messageId"] = message_id();
      if (type.find("CONTENT") != std::string::npos || type.find("CHUNK") != std::string::npos)
        e["delta"] = text();
      if (type == "TEXT_MESSAGE_START" && in_.ConsumeBool())
        e["role"] = pick({"assistant", "user", "tool", "activity", "system"});
    } else if (type.find("TOOL_CALL") == 0) {
      if (type != "TOOL_CALL_CHUNK" || in_.ConsumeBool()) e["toolCallId"] = call_id();
      if (type == "TOOL_CALL_START" || (type == "TOOL_CALL_CHUNK" && in_.ConsumeBool()))
        e["toolCallName"] = tool_name();
      if ((type == "TOOL_CALL_START" || type == "TOOL_CALL_CHUNK") && in_.ConsumeBool())
        e["parentMessageId"] = message_id();
      if (type == "TOOL_CALL_ARGS" || type == "TOOL_CALL_CHUNK") e["delta"] = text();
      if (type == "TOOL_CALL_RESULT") {
        e["messageId"] = message_id();
        e["content"] = in_.ConsumeBool() ? json(text()) : value();
        if (in_.ConsumeIntegralInRange(0, 7) == 0) e["role"] = pick({"tool", "user", "assistant"});
        server_results.push_back(e["toolCallId"]);
      }
    } else if (type == "STATE_SNAPSHOT") {
      e["snapshot"] = value();
    } else if (type == "STATE_DELTA") {
      e["delta"] = patch();
    } else if (type == "MESSAGES_SNAPSHOT") {
      e["messages"] = messages();
      tainted = true;
    } else if (type == "ACTIVITY_SNAPSHOT") {
      e["messageId"] = message_id();
      e["activityType"] = pick({"chart", "map"});
      e["content"] = in_.ConsumeBool() ? value() : json{{"a", 1}};
      if (in_.ConsumeBool()) e["replace"] = in_.ConsumeBool();
    } else if (type == "ACTIVITY_DELTA") {
      e["messageId"] = message_id();
      e["patch"] = patch();
    } else if (type == "REASONING_ENCRYPTED_VALUE") {
      e["subtype"] = pick({"tool-call", "message"});
      e["entityId"] = in_.ConsumeBool() ? call_id() : message_id();
      e["encryptedValue"] = "enc";
    } else if (type == "RUN_STARTED") {
      e["threadId"] = in_.ConsumeIntegralInRange(0, 7) == 0 ? std::string("other") : thread_id_;
      e["runId"] = in_.ConsumeIntegralInRange(0, 7) == 0 ? std::string("r-x") : run_id_;
      if (in_.ConsumeIntegralInRange(0, 5) == 0) {
        e["input"] = {{"messages", messages()}};
        tainted = true;
      }
    } else if (type == "RUN_FINISHED") {
      e["threadId"] = thread_id_;
      e["runId"] = run_id_;
      if (json o = outcome(); !o.is_null()) e["outcome"] = std::move(o);
    } else if (type == "RUN_ERROR") {
      e["message"] = text();
      if (in_.ConsumeBool()) e["code"] = "E";
    } else if (type == "RAW" || type == "CUSTOM") {
      e["event"] = value();
      e["name"] = "n";
      e["value"] = value();
    }
    if (in_.ConsumeIntegralInRange(0, 5) == 0) e["metadata"] = value();
    if (in_.ConsumeIntegralInRange(0, 7) == 0) e["subagentRunId"] = pick({"s1", "s2"});
    // A field missing or of the wrong type.
    if (in_.ConsumeIntegralInRange(0, 15) == 0 && e.size() > 1) {
      auto it = e.begin();
      std::advance(it, in_.ConsumeIntegralInRange<std::size_t>(1, e.size() - 1));
      if (it.key() != "type") {
        if (in_.ConsumeBool())
          e.erase(it.key());
        else
          *it = 12;
      }
    }
    if (in_.ConsumeIntegralInRange(0, 31) == 0) return value();  // not an event at all
    return e;
  }

 private:
  FuzzedDataProvider& in_;
  std::string thread_id_;
  std::string run_id_;
};

}  // namespace agui::fuzz
