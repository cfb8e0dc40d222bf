// createRuntime's options, checked one by one: an unknown or mistyped option is
// an error that names it.
#include "client/driver_options.hpp"

#include <algorithm>
#include <optional>

#include "protocol/fields.hpp"

namespace agui {

using detail::opt_string;

// One branch per option, each with the error that names it: a table, read down.
std::variant<DriverOptions, Error> DriverOptions::from_json(const json& o) {
  DriverOptions out;
  if (o.is_null()) return out;
  if (!o.is_object()) return make_error(ErrorCode::kInvalidArgument, "options must be an object");
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    auto need_int = [&](std::int64_t min) -> std::optional<Error> {
      if (!v.is_number_integer() || v.get<std::int64_t>() < min) {
        return make_error(ErrorCode::kInvalidArgument,
                          "option '" + key + "' must be an integer >= " + std::to_string(min));
      }
      return std::nullopt;
    };
    if (key == "maxRounds") {
      if (auto e = need_int(0)) return *e;
      out.max_rounds = static_cast<int>(std::min<std::int64_t>(v.get<std::int64_t>(), 1000));
    } else if (key == "repeatLimit") {
      if (auto e = need_int(0)) return *e;
      out.repeat_limit = static_cast<int>(std::min<std::int64_t>(v.get<std::int64_t>(), 1000));
    } else if (key == "defaultTimeoutMs") {
      if (auto e = need_int(1)) return *e;
      out.default_timeout_ms = v.get<std::int64_t>();
    } else if (key == "approvalTimeoutMs") {
      if (!v.is_number() || !(v.get<double>() >= 0))
        return make_error(ErrorCode::kInvalidArgument,
                          "option 'approvalTimeoutMs' must be a number of milliseconds >= 0");
      out.approval_timeout_ms = v.get<double>();
    } else if (key == "maxEventBytes") {
      if (auto e = need_int(0)) return *e;
      out.sse.max_event_bytes = v.get<std::size_t>();
    } else if (key == "maxArgumentBytes") {
      if (auto e = need_int(1)) return *e;
      out.max_argument_bytes = v.get<std::size_t>();
    } else if (key == "maxResultBytes") {
      if (auto e = need_int(1)) return *e;
      out.max_result_bytes = v.get<std::size_t>();
    } else if (key == "maxMessageBytes") {
      if (auto e = need_int(1)) return *e;
      out.max_message_bytes = v.get<std::size_t>();
    } else if (key == "maxJsonDepth") {
      if (auto e = need_int(1)) return *e;
      if (v.get<std::uint64_t>() > kMaxJsonDepthBound)
        return make_error(ErrorCode::kInvalidArgument,
                          "option 'maxJsonDepth' must be at most " +
                              std::to_string(kMaxJsonDepthBound) +
                              ": deeper values would overflow the module's stack");
      out.max_json_depth = v.get<std::size_t>();
    } else if (key == "maxCallsPerRound") {
      if (auto e = need_int(1)) return *e;
      out.max_calls_per_round = v.get<std::size_t>();
    } else if (key == "context") {
      if (!v.is_array())
        return make_error(ErrorCode::kInvalidArgument,
                          "option 'context' must be an array of {description, value}");
      for (const auto& c : v) {
        if (!opt_string(c, "description") || !opt_string(c, "value")) {
          return make_error(ErrorCode::kInvalidArgument,
                            "option 'context': each entry needs string 'description' and 'value'");
        }
      }
      out.context = v;
    } else if (key == "placeholderResults") {
      const bool strings = v.is_array() && std::all_of(v.begin(), v.end(),
                                                       [](const json& t) { return t.is_string(); });
      if (!strings)
        return make_error(ErrorCode::kInvalidArgument,
                          "option 'placeholderResults' must be an array of strings");
      out.placeholder_results = v.get<std::vector<std::string>>();
    } else if (key == "forwardedProps") {
      out.forwarded_props = v;
    } else if (key == "idPrefix") {
      if (!v.is_string())
        return make_error(ErrorCode::kInvalidArgument, "option 'idPrefix' must be a string");
      out.id_prefix = v.get<std::string>();
    } else {
      return make_error(ErrorCode::kInvalidArgument, "unknown option '" + key + "'");
    }
  }
  return out;
}

}  // namespace agui
