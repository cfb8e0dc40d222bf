// The Step as the host reads it. See step.hpp.
#include "client/step.hpp"

namespace agui {

json Step::to_json() && {
  json out = json::object();
  if (run) out["run"] = json{{"runId", run->run_id}};
  if (!execute.empty()) {
    json& list = out["execute"] = json::array();
    for (auto& e : execute) {
      // Built member by member: an initializer list would copy each value twice.
      json& entry = list.emplace_back(json::object());
      entry["toolCallId"] = e.tool_call_id;
      entry["name"] = e.name;
      entry["args"] = std::move(e.args);
      entry["timeoutMs"] = e.timeout_ms;
      entry["threadId"] = e.thread_id;
      if (e.idempotent) entry["idempotent"] = true;
    }
  }
  if (done) {
    json& d = out["done"] = json::object();
    d["reason"] = done->reason;
    if (!done->message.empty()) d["message"] = done->message;
    if (!done->code.empty()) d["code"] = done->code;
    if (!done->result.is_null()) d["result"] = std::move(done->result);
  }
  if (stale) out["stale"] = true;
  if (deadline_changed) out["deadline"] = deadline ? json(*deadline) : json(nullptr);
  if (error) {
    out["error"] = json{{"code", std::string(to_string(error->code))}, {"message", error->message}};
  }
  return out;
}

}  // namespace agui
