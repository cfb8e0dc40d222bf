// Reading optional fields of events, messages and tool calls that came from a
// server, a snapshot or an export: a missing or mistyped field reads as absent,
// never throws.
#pragma once

#include <string>

#include "common/json.hpp"

namespace agui::detail {

inline const std::string* opt_string(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

// A tool call's "function" object, or null: calls that came in a snapshot may
// lack one or carry another type.
inline const json* call_function(const json& call) {
  if (!call.is_object()) return nullptr;
  auto it = call.find("function");
  return it != call.end() && it->is_object() ? &*it : nullptr;
}

inline std::string call_name(const json& call) {
  const json* fn = call_function(call);
  const auto* name = fn ? opt_string(*fn, "name") : nullptr;
  return name ? *name : std::string();
}

}  // namespace agui::detail
