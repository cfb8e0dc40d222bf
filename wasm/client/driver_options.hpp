// The round driver's options: the round cap, the runaway guard, the default
// timeout and the limits, as the page passes them (createRuntime's options).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "common/error.hpp"
#include "common/json.hpp"
#include "protocol/sse_parser.hpp"

namespace agui {

// MAX_FRONTEND_TOOL_ROUNDS: follow-up runs per turn, unless the page sets maxRounds.
inline constexpr int kMaxFrontendToolRounds = 5;

// The most maxJsonDepth may be. Copying, comparing and dumping a value recurse
// once per level: in node 20 the shipped module holds about 8,000 levels and
// fails past 10,000 ("Maximum call stack size exceeded", mid-way through a
// change record); 1,000 stays far under that on smaller stacks (workers,
// other engines). docs/limits.md.
inline constexpr std::size_t kMaxJsonDepthBound = 1000;

struct DriverOptions {
  int max_rounds = kMaxFrontendToolRounds;  // follow-up runs per turn
  int repeat_limit = 3;                     // the Nth identical call in a row is refused (0 = off)
  std::int64_t default_timeout_ms = 30000;  // per call, unless the tool sets its own
  double approval_timeout_ms = 0;           // an approval nobody decides is rejected (0 = never)
  json context = json::array();
  json forwarded_props = json::object();
  // Result texts a server sends for a client call it has not answered: the
  // call still runs here, and its result takes the placeholder's place.
  std::vector<std::string> placeholder_results{"Forwarded to client"};
  std::string id_prefix;  // makes generated run and message ids unique per host
  // Limits (README "Limits"): each one exceeded is an error that names it
  // (maxEventBytes, ...), the thread keeps what it had, nothing crashes.
  SseLimits sse{8u << 20};                    // bytes of one SSE event: over it, the run stops
  std::size_t max_argument_bytes = 1 << 20;   // a call's arguments text: over it, an error result
  std::size_t max_result_bytes = 1 << 20;     // a handler's result or error text: ditto
  std::size_t max_message_bytes = 16u << 20;  // a streamed message's text: over it, the run stops
  // Nesting of arrays and objects in an event, a patched state, a call's
  // arguments, a sent message, an interrupt's answer. 128, not the schemas' 64:
  // agent state and activity content (UI trees, documents) legitimately nest
  // deeper than tool parameters, and an event adds levels of its own; 128 keeps
  // every recursive copy and dump far inside the wasm module's 256 KiB stack.
  std::size_t max_json_depth = 128;
  // Tool calls run per round; the calls after the first 64 (in call order) get
  // an error result. Bounds the handlers a single model reply can start.
  std::size_t max_calls_per_round = 64;

  static std::variant<DriverOptions, Error> from_json(const json& options);
};

}  // namespace agui
