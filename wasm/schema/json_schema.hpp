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

#include "common/json.hpp"

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
// The default engine is the build's (default_regex_engine(), below); a host
// may lend its own through SchemaOptions::regex.
//
// When an engine cannot decide (runaway backtracking, a subject over its
// limit), search() says why in `error` and returns false; the validator
// reports that as an issue on the string, never as a match. (The core is built
// without exceptions: an engine must not throw.)
class RegexEngine {
 public:
  virtual ~RegexEngine() = default;
  // Returns an opaque handle, or an error message when the pattern is invalid.
  virtual std::variant<std::shared_ptr<const void>, std::string> compile(
      const std::string& pattern) const = 0;
  // Unanchored search, as JSON Schema specifies.
  virtual bool search(const void* compiled, const std::string& subject,
                      std::string& error) const = 0;
  // The same, charging its work to steps_left (one validation's budget); an
  // engine that counts no steps ignores it.
  virtual bool search(const void* compiled, const std::string& subject, std::size_t& /*steps_left*/,
                      std::string& error) const {
    return search(compiled, subject, error);
  }
  // Why search() on this pattern may backtrack with no time bound, naming the
  // construct; empty when its time is linear in the subject, or unknown (an
  // engine a host lends answers for itself).
  virtual std::string backtracking_reason(const void* /*compiled*/) const { return {}; }
};

// The default engine. In every build, patterns in the common subset (literals
// and \u escapes, classes and ranges of any code points, \d \w \s, groups,
// named ones included, alternation, quantifiers, counted ones expanded up to
// a bounded program, ^ $ \b, and \p{...} where the build has the Unicode
// tables) run on a linear-time matcher over code points that answers as
// JavaScript's RegExp with the "u" flag does (what JSON Schema validators in
// JS use); backtracking_reason() names what keeps a pattern out (lookaround,
// back-references, a program too large), and unless
// SchemaOptions::allow_backtracking_patterns such a pattern does not compile.
// When allowed, it runs on the engine behind:
// - wasm: the host's RegExp with "u" (bindings/regexp_engine.cpp), which also
//   decides what is valid: all of ECMA-262. It has no time bound: a
//   backtracking pattern outside the subset ("^(?=a)(a+)+$") can take as long
//   as it does in ajv. It also lends its tables for \p{...} in the subset.
// - native: std::regex with its ECMAScript grammar, over UTF-8 bytes (a
//   non-ASCII character in a class is its separate bytes, "." one byte).
//   \p{...}, lookbehind and \k<name> are compile errors naming the pattern
//   (named groups are passed on without their names); so are back-references
//   (libstdc++ could only backtrack them, without a time bound), quantifier
//   bounds over 100000 and stacked quantifiers ("a**", JS's "nothing to
//   repeat"), refused before std::regex parses them.
// Each case is a test in tests/native/json_schema_test.cpp, run in both builds.
// Subjects over kDefaultRegexMaxSubjectBytes are not matched (an issue).
inline constexpr std::size_t kDefaultRegexMaxSubjectBytes = 1024 * 1024;
// Defined by the engine the build links: schema/std_regex_engine.cpp natively
// (part of the core), agui_regex_host in wasm (bindings/, linked by each
// consumer); a wasm consumer that links neither fails to link, naming this.
const RegexEngine& default_regex_engine();

struct SchemaOptions {
  std::size_t max_depth = 64;          // nesting of the schema and of instances
  const RegexEngine* regex = nullptr;  // null: default_regex_engine()
  // Off: a pattern the engine can only backtrack (backtracking_reason() not
  // empty) is a compile error, so no argument can stall validation.
  bool allow_backtracking_patterns = false;
};

class CompiledSchema {
 public:
  using CompileResult = std::variant<std::shared_ptr<const CompiledSchema>, SchemaCompileError>;

  static CompileResult compile(const json& schema, const SchemaOptions& options = {});

  // Every issue, up to max_issues. Empty means valid.
  std::vector<SchemaIssue> validate(const json& instance, std::size_t max_issues = 64) const;
  bool is_valid(const json& instance) const;

  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

  struct Impl;  // defined in validator.cpp

 private:
  explicit CompiledSchema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace agui
