// Helpers shared by the core's suites. See test_support.hpp.
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace agui::test {

std::string sse(const std::vector<json>& events) {
  std::string out;
  for (const auto& e : events) {
    out += "data: ";
    out += e.dump();
    out += "\n\n";
  }
  return out;
}

std::vector<std::string> problem_codes(const json& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes)
    if (c["kind"] == "problem") out.push_back(c["code"].get<std::string>());
  return out;
}

bool has_problem(const json& changes, const std::string& code) {
  const auto codes = problem_codes(changes);
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

json tool_messages(const RoundDriver& d) {
  json out = json::array();
  for (std::size_t i = 0; i < d.thread().size(); ++i) {
    if (d.thread().at(i).value("role", "") == "tool") out.push_back(d.thread().at(i));
  }
  return out;
}

std::string error_of(const json& tool_message) { return tool_message.value("error", ""); }

::testing::AssertionResult every_call_answered_once(const json& messages,
                                                    const std::vector<std::string>& open) {
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    if (!m.contains("toolCalls") || !m["toolCalls"].is_array()) continue;
    for (const auto& c : m["toolCalls"]) {
      if (!c.contains("id") || !c["id"].is_string()) continue;
      const std::string id = c["id"];
      int before = 0, after = 0;
      for (std::size_t j = 0; j < messages.size(); ++j) {
        const json& t = messages[j];
        if (t.value("role", "") != "tool" || t.value("toolCallId", "") != id) continue;
        (j > i ? after : before) += 1;
      }
      const bool may_be_open = std::find(open.begin(), open.end(), id) != open.end();
      if (before != 0 || after > 1 || (after == 0 && !may_be_open)) {
        return ::testing::AssertionFailure()
               << "call '" << id << "' has " << after << " tool message(s) after it and " << before
               << " before it";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture_path(const std::string& name) {
  return std::string(AGUI_FIXTURES_DIR) + "/" + name;
}

json run_started(const std::string& thread_id, const std::string& run_id) {
  return {{"type", "RUN_STARTED"}, {"threadId", thread_id}, {"runId", run_id}};
}

json run_finished(const std::string& thread_id, const std::string& run_id, json outcome) {
  json e = {{"type", "RUN_FINISHED"}, {"threadId", thread_id}, {"runId", run_id}};
  if (!outcome.is_null()) e["outcome"] = std::move(outcome);
  return e;
}

json text(const std::string& message_id, const std::string& delta) {
  return {{"type", "TEXT_MESSAGE_CONTENT"}, {"messageId", message_id}, {"delta", delta}};
}

json tool_start(const std::string& call_id, const std::string& name, const std::string& parent) {
  json e = {{"type", "TOOL_CALL_START"}, {"toolCallId", call_id}, {"toolCallName", name}};
  if (!parent.empty()) e["parentMessageId"] = parent;
  return e;
}

json tool_args(const std::string& call_id, const std::string& delta) {
  return {{"type", "TOOL_CALL_ARGS"}, {"toolCallId", call_id}, {"delta", delta}};
}

json tool_end(const std::string& call_id) {
  return {{"type", "TOOL_CALL_END"}, {"toolCallId", call_id}};
}

json tool_result(const std::string& message_id, const std::string& call_id,
                 const std::string& content) {
  return {{"type", "TOOL_CALL_RESULT"},
          {"messageId", message_id},
          {"toolCallId", call_id},
          {"content", content}};
}

static ToolSpec spec(std::string name, std::string description, json parameters) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.parameters = std::move(parameters);
  return s;
}

std::shared_ptr<ToolRegistry> sample_registry() {
  auto reg = std::make_shared<ToolRegistry>();
  auto check = [](const Status& st) {
    if (st) ADD_FAILURE() << "sample registry: " << st->message;
  };
  check(reg->add(spec("get_weather", "Current weather for a city.",
                      {{"type", "object"},
                       {"properties", {{"city", {{"type", "string"}, {"minLength", 1}}}}},
                       {"required", {"city"}},
                       {"additionalProperties", false}})));
  check(reg->add(spec("get_current_location", "The user's coordinates.", nullptr)));
  ToolSpec del = spec("delete_file", "Delete a file.",
                      {{"type", "object"},
                       {"properties", {{"path", {{"type", "string"}}}}},
                       {"required", {"path"}}});
  del.requires_approval = true;
  del.confirm = "Delete this file?";
  check(reg->add(std::move(del)));
  ToolSpec clip = spec("read_clipboard", "Read the clipboard.", nullptr);
  clip.default_enabled = false;
  check(reg->add(std::move(clip)));
  return reg;
}

Harness::Harness(DriverOptions options, std::string thread_id)
    : driver(registry, std::move(thread_id), std::move(options)) {}

Harness::Harness(std::shared_ptr<ToolRegistry> reg, DriverOptions options, std::string thread_id)
    : registry(std::move(reg)), driver(registry, std::move(thread_id), std::move(options)) {}

json Harness::run() const {
  const json input = json::parse(driver.run_input());
  EXPECT_EQ(input.at("runId"), last_step.at("run").at("runId")) << "the step's run is run_input()";
  return input;
}

json Harness::play_raw(const std::vector<json>& events) {
  const std::string id = run_id();
  json fed = driver.feed(id, sse(events));
  if (fed.contains("done") || fed.contains("error")) {
    last_step = fed;
    return fed;
  }
  last_step = driver.end_of_stream(id, now);
  return last_step;
}

json Harness::play(const std::vector<json>& events, json outcome) {
  std::vector<json> all;
  all.push_back(run_started(driver.thread_id(), run_id()));
  all.insert(all.end(), events.begin(), events.end());
  all.push_back(run_finished(driver.thread_id(), run_id(), std::move(outcome)));
  return play_raw(all);
}

json Harness::play_call(const std::string& call_id, const std::string& name,
                        const std::string& args) {
  return play({tool_start(call_id, name), tool_args(call_id, args), tool_end(call_id)});
}

}  // namespace agui::test
