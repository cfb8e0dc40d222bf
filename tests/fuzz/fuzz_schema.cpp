// libFuzzer target: the JSON Schema compiler and validator. The input is a schema
// and an instance separated by a NUL byte, both JSON text (inputs that do not
// parse are skipped: the parser is nlohmann's). The schema is compiled, and when
// it compiles the instance is validated. No crash, no exception, no hang (run
// with -timeout); validate() and is_valid() agree, are deterministic, stay within
// max_issues, and every issue carries well-formed JSON Pointers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "schema/json_schema.hpp"

namespace {

using agui::CompiledSchema;
using agui::SchemaCompileError;
using agui::fuzz::json;

// A JSON Pointer, or (for a location inside another document, such as the
// built-in meta-schema) "<uri>#<pointer>".
bool pointer_ok(const std::string& p) {
  const std::size_t hash = p.find('#');
  const std::string pointer =
      p.empty() || p[0] == '/' || hash == std::string::npos ? p : p.substr(hash + 1);
  if (!pointer.empty() && pointer[0] != '/') return false;
  for (std::size_t i = 0; i < pointer.size(); ++i) {  // each ~ escapes a 0 or a 1
    if (pointer[i] == '~' &&
        (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view schema_text = input.substr(0, nul);
  const std::string_view instance_text =
      nul == std::string_view::npos ? std::string_view("null") : input.substr(nul + 1);
  const json schema = json::parse(schema_text, nullptr, false);
  const json instance = json::parse(instance_text, nullptr, false);
  if (schema.is_discarded() || instance.is_discarded()) {
    agui::fuzz::count("skipped:not-json");
    return 0;
  }

  agui::SchemaOptions options;
  options.max_depth = 1 + size % 64;  // small depth limits too: every limit path
  // Half the inputs also let backtracking patterns through, to reach the engine behind.
  options.allow_backtracking_patterns = size % 2 == 1;
  // The core is built without exceptions: what would throw aborts instead,
  // which libFuzzer reports as a crash.
  {
    auto compiled = CompiledSchema::compile(schema, options);
    if (const auto* error = std::get_if<SchemaCompileError>(&compiled)) {
      const bool plain =
          error->keyword.size() < 32 &&
          error->keyword.find_first_not_of(
              "$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos;
      agui::fuzz::count("compile-error:" + (plain ? error->keyword : std::string("other")));
      AGUI_FUZZ_CHECK(!error->message.empty(), "a compile error says what is wrong");
      AGUI_FUZZ_CHECK(pointer_ok(error->schema_path), "a compile error's schema path is a pointer");
      return 0;
    }
    const auto& s = std::get<std::shared_ptr<const CompiledSchema>>(compiled);
    AGUI_FUZZ_CHECK(s != nullptr, "a compiled schema");
    const std::size_t max_issues = 1 + size % 8;
    const auto issues = s->validate(instance, max_issues);
    agui::fuzz::count(issues.empty() ? "instance:valid" : "instance:invalid");
    AGUI_FUZZ_CHECK(issues.size() <= max_issues, "validate() stops at max_issues");
    AGUI_FUZZ_CHECK(issues.empty() == s->is_valid(instance), "validate() and is_valid() agree");
    const auto again = s->validate(instance, max_issues);
    AGUI_FUZZ_CHECK(again.size() == issues.size(), "validation is deterministic");
    for (std::size_t i = 0; i < issues.size(); ++i) {
      AGUI_FUZZ_CHECK(!issues[i].message.empty(), "an issue says what is wrong");
      AGUI_FUZZ_CHECK(pointer_ok(issues[i].instance_path), "an issue's instance path is a pointer");
      AGUI_FUZZ_CHECK(pointer_ok(issues[i].schema_path), "an issue's schema path is a pointer");
      AGUI_FUZZ_CHECK(again[i].instance_path == issues[i].instance_path &&
                          again[i].message == issues[i].message,
                      "validation is deterministic");
    }
    // Also against the schema itself and an empty object: the common cases.
    (void)s->is_valid(schema);
    (void)s->validate(json::object());
  }
  return 0;
}
