// Side requests: runs beside the turn whose only answer is RUN_FINISHED.result.
// MCP Apps' middleware answers forwardedProps.__proxiedMCPRequest (resources/read,
// tools/call from an app's iframe) so; nothing of it belongs in the thread, so
// nothing here touches the thread, the loop, its run or its round count.
#include "client/round_driver.hpp"
#include "common/json_text.hpp"
#include "protocol/fields.hpp"

namespace agui {

json RoundDriver::request(const json& run_options) {
  json props;
  if (auto refused = read_run_options("request()", run_options, props))
    return std::move(*refused).to_json();
  if (tools_revision_ != registry_->revision()) {
    tools_text_ = dump_json(registry_->advertise());
    tools_revision_ = registry_->revision();
  }
  std::string run_id = next_id("request");
  // No messages: a turn may be mid-round (a call without its answer yet), and
  // closing calls for it would touch the thread; a proxied request reads none.
  write_input(request_input_, run_id, props, false);
  side_runs_[run_id] = SideRun{std::make_unique<SseParser>(options_.sse)};
  return json{{"runId", std::move(run_id)}};
}

json RoundDriver::request_feed(const std::string& run_id, std::string_view bytes, bool end) {
  auto it = side_runs_.find(run_id);
  if (it == side_runs_.end()) return json{{"stale", true}};
  auto fail = [&](std::string message) {
    side_runs_.erase(it);
    return Step::refused(ErrorCode::kProtocol, "request(): " + std::move(message)).to_json();
  };
  sse_events_.clear();
  if (!it->second.sse->feed(bytes, sse_events_))
    return fail("an SSE event is over the limit of " +
                std::to_string(options_.sse.max_event_bytes) + " bytes (maxEventBytes)");
  for (const auto& ev : sse_events_) {
    if (json_text_deeper_than(ev.data, options_.max_json_depth)) continue;
    const json e = parse_json(ev.data);
    const auto* type = detail::opt_string(e, "type");
    if (type == nullptr) continue;  // (not an event, or not JSON: skipped as the others)
    if (*type == "RUN_ERROR") {
      const auto* message = detail::opt_string(e, "message");
      return fail("the agent answered RUN_ERROR: " + (message ? *message : std::string("(none)")));
    }
    if (*type == "RUN_FINISHED") {
      json out = json{{"result", e.contains("result") ? e["result"] : json()}};
      side_runs_.erase(it);
      return out;
    }
  }
  if (end) return fail("the stream ended before RUN_FINISHED");
  return json::object();
}

}  // namespace agui
