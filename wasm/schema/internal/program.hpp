// The compiled form of a JSON Schema, shared by the compiler
// (compiler.cpp, keywords.cpp) and the validator
// (validator.cpp). Nothing here is public API.
//
// A schema compiles to a graph of Nodes: one per schema object or boolean, each
// holding only the keywords it has, already checked and converted ($ref targets
// resolved to Node pointers, regexes compiled, enum/const values copied, required
// names deduplicated). Validation walks this graph and the instance, never the
// raw schema JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "schema/json_schema.hpp"

namespace agui::schema_detail {

using agui::json;

// Bits of the draft 7 "type" names. An instance's bits are computed once per
// value; a node accepts it when the masks intersect.
enum TypeBit : std::uint8_t {
  kNullBit = 1,
  kBooleanBit = 2,
  kObjectBit = 4,
  kArrayBit = 8,
  kNumberBit = 16,
  kIntegerBit = 32,  // also set for floats with no fractional part (1.0)
  kStringBit = 64,
};

std::uint8_t type_bits(const json& value);
// "string", "string or null", "integer, string or null".
std::string describe_types(std::uint8_t bits);
// The name of an instance's type for messages: "number" for every number.
const char* type_name(const json& value);

// A number from a schema or an instance, kept exact when it is an integer.
struct Num {
  enum class Kind : std::uint8_t { kInt, kUint, kFloat };
  Kind kind = Kind::kInt;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  static Num of(const json& number);  // number must be a JSON number
};
// -1, 0, 1; exact across integer kinds and between integers and doubles.
int compare(const Num& a, const Num& b);
bool is_multiple_of(const Num& value, const Num& divisor);  // divisor > 0

// JSON equality as JSON Schema defines it (1 == 1.0), recursing at most
// max_depth levels. Returns 1 equal, 0 different, -1 too deep to decide.
int json_equal(const json& a, const json& b, std::size_t max_depth);
// A hash consistent with json_equal (1 and 1.0 hash alike), to max_depth levels.
std::size_t json_hash(const json& value, std::size_t max_depth);
// Nesting of a value (a scalar is 0), counting no further than limit + 1.
std::size_t json_depth(const json& value, std::size_t limit);

// RFC 6901 escaping of one reference token: ~ -> ~0, / -> ~1.
void append_pointer_token(std::string& out, std::string_view token);

// URI references (uri.cpp). resolve_uri is RFC 3986 section 5.2;
// the fragment of `reference` is kept.
std::string resolve_uri(std::string_view base, std::string_view reference);
// "doc#frag" -> {"doc", "frag"}; no '#' -> {"doc", nullopt}.
std::pair<std::string_view, std::optional<std::string_view>> split_fragment(std::string_view uri);
// %XX decoding; nullopt when an escape is malformed.
std::optional<std::string> percent_decode(std::string_view text);

// The default regex engine's linear-time matcher for the common subset of
// ECMAScript patterns (regex_vm.cpp).

// Unicode property escapes (\p{...}) in that subset are answered by whoever
// has the Unicode tables: the host's RegExp in wasm (bindings/regexp_engine.cpp),
// nobody natively (default_property_oracle() is null there).
class UnicodePropertyOracle {
 public:
  virtual ~UnicodePropertyOracle() = default;
  // A number for the property in \p{name}, or nullopt when it is none.
  virtual std::optional<std::uint32_t> find(std::string_view name) const = 0;
  virtual bool contains(std::uint32_t property, char32_t c) const = 0;
};
const UnicodePropertyOracle* default_property_oracle();

// The matcher's program grows with counted repetition ("(a{1,100}){1,100}" is
// 100 x 100 copies of "a", 20002 instructions); a pattern that would need
// more instructions than this is outside the subset. A search costs at most (instructions + 1)
// steps per code point of the subject.
inline constexpr std::size_t kMaxRegexProgram = 32768;
// Matcher steps one validation may spend on all its patterns: a bound on how
// long a model's argument can keep the tab busy. Past it, the string gets an
// issue ("could not check pattern"), never a match.
inline constexpr std::size_t kRegexStepsPerValidation = std::size_t{1} << 25;

// Null when the pattern is outside the subset; *outside (when given) then says
// why, naming the construct and its byte offset.
struct RegexProgram;
std::shared_ptr<const RegexProgram> compile_regex_program(
    std::string_view pattern, const UnicodePropertyOracle* properties = nullptr,
    std::string* outside = nullptr);
// steps_left (when given) is charged for the work done; std::length_error when
// the search would need more.
// When the search would take more than *steps_left steps it stops, says so in
// *error (when given) and returns false.
bool regex_program_search(const RegexProgram& program, std::string_view subject,
                          std::size_t* steps_left = nullptr, std::string* error = nullptr);
std::size_t regex_program_size(const RegexProgram& program);

// What the default engines share (regex_vm.cpp): the pattern and
// subject limits, and the linear-time matcher for the patterns in its subset.
// The engine behind (std::regex natively, the host's RegExp in wasm) compiles
// every pattern, so it alone decides what is valid, and runs the rest.
class MatcherFirstEngine : public RegexEngine {
 public:
  static constexpr std::size_t kMaxPatternBytes = 16 * 1024;
  std::variant<std::shared_ptr<const void>, std::string> compile(
      const std::string& pattern) const final;
  bool search(const void* compiled, const std::string& subject, std::string& error) const final;
  bool search(const void* compiled, const std::string& subject, std::size_t& steps_left,
              std::string& error) const final;
  std::string backtracking_reason(const void* compiled) const final;

 protected:
  // A handle of the engine behind, or why the pattern is not valid there.
  virtual std::variant<std::shared_ptr<const void>, std::string> compile_behind(
      const std::string& pattern) const = 0;
  virtual bool search_behind(const void* compiled, const std::string& subject,
                             std::string& error) const = 0;
};

struct Node;

struct Regex {
  std::shared_ptr<const void> handle;  // from the RegexEngine
  std::string source;                  // for messages
};

struct NumberRules {
  std::optional<Num> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  // The schema's own spelling of each limit, for messages ("0.5", "10").
  std::string minimum_text, maximum_text, exclusive_minimum_text, exclusive_maximum_text,
      multiple_of_text;
};

struct StringRules {
  std::optional<std::size_t> min_length, max_length;  // in Unicode code points
  std::optional<Regex> pattern;
};

struct ArrayRules {
  // Positional schemas: draft 7 "items": [...] or 2020-12 "prefixItems".
  std::vector<const Node*> prefix;
  const char* prefix_keyword = "items";
  // The schema for items after the prefix (all items when there is no prefix):
  // "items" (a single schema), "additionalItems", or "items" after prefixItems.
  const Node* rest = nullptr;
  const char* rest_keyword = "items";
  const Node* contains = nullptr;
  std::optional<std::size_t> min_items, max_items;
  bool unique_items = false;
};

struct PropertyEntry {
  std::string name;
  const Node* schema = nullptr;  // from "properties"; null when only required
  int required_index = -1;       // index into ObjectRules::required, or -1
};

struct Dependency {
  std::string name;                   // when this property is present...
  std::vector<std::string> required;  // ...these must be too
  const Node* schema = nullptr;       // ...and the object must match this
  const char* keyword = "dependencies";
};

struct ObjectRules {
  std::vector<PropertyEntry> properties;  // sorted by name, for binary search
  std::vector<std::string> required;      // schema order, without duplicates
  std::vector<std::pair<Regex, const Node*>> pattern_properties;
  std::string pattern_properties_location;  // location + "/patternProperties"
  const Node* additional = nullptr;
  const Node* property_names = nullptr;
  std::optional<std::size_t> min_properties, max_properties;
  std::vector<Dependency> dependencies;
  const PropertyEntry* find(std::string_view name) const;
};

struct Node {
  enum class Kind : std::uint8_t { kTrue, kFalse, kSchema };
  Kind kind = Kind::kSchema;
  // Where this schema is: a JSON Pointer into the compiled document ("" is the
  // root), or "<uri>#<pointer>" inside a built-in document (the draft 7 meta-schema).
  std::string location;
  bool builtin = false;  // inside a built-in document: location is a full URI

  // Draft 7: a schema with "$ref" is only that reference; siblings are ignored.
  const Node* ref = nullptr;

  std::uint8_t types = 0;  // 0: "type" absent
  std::optional<json> const_value;
  std::optional<std::vector<json>> enum_values;
  std::unique_ptr<NumberRules> number;
  std::unique_ptr<StringRules> string;
  std::unique_ptr<ArrayRules> array;
  std::unique_ptr<ObjectRules> object;

  // In-place applicators: they apply to the same instance.
  std::vector<const Node*> all_of, any_of, one_of;
  const Node* not_schema = nullptr;
  const Node* if_schema = nullptr;
  const Node* then_schema = nullptr;
  const Node* else_schema = nullptr;
};

// What compile() produces: the node graph, owned in one place.
struct Program {
  std::vector<std::unique_ptr<Node>> nodes;
  const Node* root = nullptr;
  std::size_t max_depth = 64;
  const RegexEngine* regex = nullptr;
};

// Compiles `schema`, or says why it cannot (compiler.cpp).
std::variant<std::unique_ptr<Program>, SchemaCompileError> compile_program(
    const json& schema, const SchemaOptions& options);

// The draft 7 meta-schema, which refs may name without it being fetched
// (metaschema.cpp).
const json& draft7_metaschema();
inline constexpr std::string_view kDraft7MetaschemaUri = "http://json-schema.org/draft-07/schema";

}  // namespace agui::schema_detail
