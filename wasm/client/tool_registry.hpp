// The client tool registry: what the page registered, which tools are enabled,
// and what is advertised to the agent. A registry is an ordinary object (no
// global one); a runtime holds one and tests build a fresh one per case.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "common/error.hpp"
#include "common/json.hpp"
#include "schema/json_schema.hpp"

namespace agui {

struct ToolSpec {
  std::string name;         // ^[A-Za-z0-9_-]{1,64}$
  std::string description;  // non-empty: the model reads it
  json parameters;          // an object schema; null means "no parameters"
  bool default_enabled = true;
  bool requires_approval = false;
  bool destructive = false;
  // Safe to run again (reading the location, copying a text): with a store that fails, its
  // handler may start though its start is not durable (a reload could then run it again).
  bool idempotent = false;
  std::string confirm;   // prompt shown on the approval card
  std::string summary;   // short display label
  std::string category;  // advisory grouping
  std::optional<std::int64_t> timeout_ms;
  // What a rejected approval answers, instead of an error result: for tools
  // whose question *is* the approval (request_user_approval answers
  // {"decision": "rejected"}). Null: a rejection is an error result.
  json rejected_result;

  // The display label: summary, else the prettified name.
  std::string display_summary() const;

  // Reads a definition as the JS side writes it (camelCase keys: name,
  // description, parameters, defaultEnabled, requiresApproval, destructive,
  // confirm, summary, category, timeoutMs, rejectedResult, idempotent). An unknown key or a value
  // of the wrong type is an error naming the tool and the key.
  static std::variant<ToolSpec, Error> from_json(const json& definition);
};

struct Tool {
  ToolSpec spec;
  bool enabled = true;
  // Compiled spec.parameters (or the empty object schema).
  std::shared_ptr<const CompiledSchema> schema;

  // Whether a call must wait for the user's approval before it runs.
  bool needs_approval() const { return spec.requires_approval || spec.destructive; }
};

struct RegistryOptions {
  // Also stamp destructive/category/confirm/summary into the schema root as
  // x-destructive, x-category, x-confirm, x-summary. Off by default: some
  // providers reject unknown keys inside tool parameters.
  bool stamp_schema_extensions = false;
  SchemaOptions schema;
};

class ToolRegistry {
 public:
  explicit ToolRegistry(RegistryOptions options = {});

  // Registration errors name the tool and what is wrong; the registry is then
  // unchanged. (`register` is a C++ keyword, hence `add`.)
  Status add(ToolSpec spec);
  Status remove(std::string_view name);
  Status set_enabled(std::string_view name, bool enabled);

  // Exact, case-sensitive lookup. Null when no tool has that name.
  const Tool* find(std::string_view name) const;

  // The AG-UI Tool[] of the enabled tools, in registration order:
  // {name, description, parameters, metadata?}.
  json advertise() const;
  // Every tool as {name, summary, description}; summary falls back to a
  // prettified name ("get_current_location" -> "Get current location").
  json catalog() const;
  // Every tool with its flags and enabled state, for a tools panel.
  json list() const;

  std::size_t size() const { return tools_.size(); }
  // Bumped by every change, so callers may cache advertise().
  std::uint64_t revision() const { return revision_; }

  static std::string prettify(std::string_view name);

 private:
  // Lets find(std::string_view) look names up without building a std::string.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const noexcept {
      return std::hash<std::string_view>{}(name);
    }
  };

  RegistryOptions options_;
  std::vector<Tool> tools_;  // registration order
  std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> index_;
  std::uint64_t revision_ = 0;
};

}  // namespace agui
