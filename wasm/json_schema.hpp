// JSON Schema (draft 7, plus the 2020-12 spellings tool schemas use) compiled once
// and validated many times. The registry compiles each tool's parameters at
// registration; the round driver validates every call's arguments before a
// handler may run.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace agui {

// One reason an instance does not match. Paths are JSON Pointers (RFC 6901).
struct SchemaIssue {
  std::string instance_path;  // where in the arguments, e.g. "/city"
  std::string schema_path;    // which keyword, e.g. "/properties/city/type"
  std::string message;        // for the model: "expected string, got number"
};

// Why a schema could not be compiled.
struct SchemaCompileError {
  std::string keyword;      // e.g. "$ref", "pattern", "minLength"
  std::string schema_path;  // JSON Pointer to the offending keyword
  std::string message;
};

// ECMA-262 regular expressions, as `pattern` and `patternProperties` require.
// The default engine is std::regex with its ECMAScript grammar; a host may lend
// its own (the browser's RegExp).
class RegexEngine {
 public:
  virtual ~RegexEngine() = default;
  // Returns an opaque handle, or an error message when the pattern is invalid.
  virtual std::variant<std::shared_ptr<const void>, std::string> compile(
      const std::string& pattern) const = 0;
  // Unanchored search, as JSON Schema specifies.
  virtual bool search(const void* compiled, const std::string& subject) const = 0;
};

const RegexEngine& default_regex_engine();

struct SchemaOptions {
  std::size_t max_depth = 64;         // nesting of the schema and of instances
  const RegexEngine* regex = nullptr;  // null: default_regex_engine()
};

class CompiledSchema {
 public:
  using CompileResult = std::variant<std::shared_ptr<const CompiledSchema>, SchemaCompileError>;

  static CompileResult compile(const nlohmann::json& schema, const SchemaOptions& options = {});

  // Every issue, up to max_issues. Empty means valid.
  std::vector<SchemaIssue> validate(const nlohmann::json& instance,
                                    std::size_t max_issues = 64) const;
  bool is_valid(const nlohmann::json& instance) const;

  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

  struct Impl;  // defined in json_schema.cpp

 private:
  explicit CompiledSchema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace agui
