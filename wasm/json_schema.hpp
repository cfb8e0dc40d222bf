// JSON Schema (draft 7, plus the 2020-12 spellings tool schemas use) compiled once
// and validated many times. The registry compiles each tool's parameters at
// registration; the round driver validates every call's arguments before a
// handler may run.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

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
//
// An engine may throw from search() (a std::exception) when it cannot decide,
// e.g. runaway backtracking or a subject over its limit; the validator reports
// that as an issue on the string, never as a match.
class RegexEngine {
 public:
  virtual ~RegexEngine() = default;
  // Returns an opaque handle, or an error message when the pattern is invalid.
  virtual std::variant<std::shared_ptr<const void>, std::string> compile(
      const std::string& pattern) const = 0;
  // Unanchored search, as JSON Schema specifies.
  virtual bool search(const void* compiled, const std::string& subject) const = 0;
};

// The default engine (std::regex, ECMAScript grammar) differs from JavaScript's
// RegExp with the "u" flag (what JSON Schema validators in JS use) as follows;
// each case is a test in tests/native/json_schema_test.cpp:
// - It matches UTF-8 bytes, not code points: "." and [^a] match one byte of a
//   multibyte character, so "^.$" rejects "é" (JS accepts); a non-ASCII
//   character inside [...] becomes its separate bytes; "\u00e9" means the single
//   byte 0xE9 and so never matches the UTF-8 "é" (JS: it does). Non-ASCII
//   literals outside classes ("^café$") match as in JS.
// - \d, \w, \b are ASCII in both. \s is ASCII whitespace only: JS also matches
//   U+00A0, U+FEFF, U+2028 and the other Unicode spaces.
// - ^ and $ anchor at the subject's ends only (no multiline), as in JS; search
//   is unanchored, as JSON Schema requires ("b" matches "abc").
// - \p{...}, lookbehind, named groups and \k<name> are compile errors naming
//   the pattern (JS with "u" supports them).
// - The syntax accepted beyond that is the C++ library's: e.g. a lone "]" is a
//   literal natively (libstdc++) but an error in the wasm build (libc++), as it
//   is in JS with "u".
// - Patterns in the common subset (literals, classes, groups, alternation,
//   quantifiers, ^ $ \b) run on a linear-time matcher with the same byte
//   semantics; the rest on std::regex (json_schema_regex.cpp says how its
//   recursion and backtracking are contained).
// - Subjects over kDefaultRegexMaxSubjectBytes are not matched (an issue).
//   Natively (libstdc++), a pattern with a back-reference is a compile error:
//   that library can only backtrack it, without a time bound. In wasm (libc++)
//   runaway backtracking is an issue (error_complexity).
// - Refused in every build, before std::regex parses them: quantifier bounds
//   over 100000, a back-reference naming no group, stacked quantifiers ("a**",
//   JS's "nothing to repeat").
inline constexpr std::size_t kDefaultRegexMaxSubjectBytes = 1024 * 1024;
const RegexEngine& default_regex_engine();

struct SchemaOptions {
  std::size_t max_depth = 64;          // nesting of the schema and of instances
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
