// The wasm build's default RegexEngine: the host's own RegExp, with the "u"
// flag, as JSON Schema validators in JavaScript use it. JSON Schema specifies
// ECMA-262 patterns, and the host has the engine that defines them, so the
// module ships no regex engine of its own (std::regex, with the locale code
// it pulls in, was 42 KB of the module's 175 KB gzipped).
//
// Patterns in the linear-time matcher's subset (wasm/schema/regex_vm.cpp) still
// run there: no call out of wasm, no string copy, no backtracking; for their
// \p{...} classes the host answers per code point (HostPropertyOracle). The
// host compiles every pattern, so what is valid is what the host says is
// valid, and it runs the rest (lookaround, back-references), when the page
// allows backtracking patterns.
//
// This file sits in bindings/ because it includes <emscripten.h>; the core
// keeps none. It is built as agui_regex_host (bindings/CMakeLists.txt), which
// the module and the wasm GoogleTest suite both link, so both run on this engine.
#include <emscripten.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "schema/internal/program.hpp"
#include "schema/json_schema.hpp"

// The compiled RegExps live in a table on the module, by number. A failure
// leaves its message there for agui_regexp_error() to copy out. Strings cross
// as (pointer, length) and are decoded with TextDecoder, which, unlike
// UTF8ToString, does not stop at a NUL inside the string (nor, told so, drop a
// leading byte order mark).

// The EM_JS bodies are JavaScript, which clang-format would mangle ("===").
// clang-format off
EM_JS(int, agui_regexp_new, (const char* pattern, int length), {
  const table = Module.aguiRegExps || (Module.aguiRegExps = {list : [], free : [], error : ""});
  // ignoreBOM: a subject that starts with U+FEFF keeps it.
  const decoder = table.decoder || (table.decoder = new TextDecoder("utf-8", {ignoreBOM : true}));
  let regexp;
  try {
    regexp = new RegExp(decoder.decode(HEAPU8.subarray(pattern, pattern + length)), "u");
  } catch (e) {
    // V8 says "Invalid regular expression: /(a/u: Unterminated group": the
    // pattern is already named by the caller.
    const message = String(e && e.message);
    const v8 = message.startsWith("Invalid regular expression: /");
    const end = v8 ? message.lastIndexOf("/u: ") : -1;
    table.error = end < 0 ? message : message.slice(end + 4);
    return -1;
  }
  const id = table.free.length ? table.free.pop() : table.list.length;
  table.list[id] = regexp;
  return id;
});

EM_JS(int, agui_regexp_test, (int id, const char* subject, int length), {
  const table = Module.aguiRegExps;
  try {
    return table.list[id].test(table.decoder.decode(HEAPU8.subarray(subject, subject + length)))
               ? 1
               : 0;
  } catch (e) {  // e.g. RangeError: Maximum call stack size exceeded
    table.error = String(e && e.message);
    return -1;
  }
});

EM_JS(void, agui_regexp_delete, (int id), {
  const table = Module.aguiRegExps;
  table.list[id] = undefined;
  table.free.push(id);
});

EM_JS(int, agui_regexp_error_length, (), { return lengthBytesUTF8(Module.aguiRegExps.error); });

EM_JS(void, agui_regexp_error, (char* out, int capacity),
      { stringToUTF8(Module.aguiRegExps.error, out, capacity); });

// Unicode properties for the linear-time matcher: "^\p{name}$" compiled once
// per name, then asked about one code point at a time (the matcher caches the
// answers). The host's tables are the ones its RegExp uses, so \p{...} in the
// matcher answers as the host's RegExp does, and the module ships no tables.
EM_JS(int, agui_property_new, (const char* name, int length), {
  const table = Module.aguiRegExps || (Module.aguiRegExps = {list : [], free : [], error : ""});
  const properties = table.properties || (table.properties = new Map());
  const text = new TextDecoder().decode(HEAPU8.subarray(name, name + length));
  if (!properties.has(text)) {
    let regexp = null;
    try {
      // (A backslash in EM_JS code does not survive to the JS: spelled as a code.)
      regexp = new RegExp("^" + String.fromCharCode(92) + "p{" + text + "}$", "u");
    } catch (e) {
    }
    properties.set(text,
                   regexp && (table.propertyList || (table.propertyList = [])).push(regexp) - 1);
  }
  const id = properties.get(text);
  return id === null ? -1 : id;
});

EM_JS(int, agui_property_test, (int id, int code_point), {
  return Module.aguiRegExps.propertyList[id].test(String.fromCodePoint(code_point)) ? 1 : 0;
});

// clang-format on

namespace agui {
namespace {

// The answers for recent code points, per property: a document in one script
// asks about the same few hundred code points again and again.
class HostPropertyOracle final : public schema_detail::UnicodePropertyOracle {
 public:
  std::optional<std::uint32_t> find(std::string_view name) const override {
    const int id = agui_property_new(name.data(), static_cast<int>(name.size()));
    if (id < 0) return std::nullopt;
    return static_cast<std::uint32_t>(id);
  }
  bool contains(std::uint32_t property, char32_t c) const override {
    Entry& entry = cache_[(property * 0x9E3779B1u ^ c) % kCacheSize];
    if (entry.property != property || entry.code_point != c) {
      entry = {property, c,
               agui_property_test(static_cast<int>(property), static_cast<int>(c)) == 1};
    }
    return entry.member;
  }

 private:
  static constexpr std::size_t kCacheSize = 4096;
  struct Entry {
    std::uint32_t property = ~0u;
    char32_t code_point = 0;
    bool member = false;
  };
  mutable std::vector<Entry> cache_ = std::vector<Entry>(kCacheSize);
};

std::string last_error() {
  std::string message(static_cast<std::size_t>(agui_regexp_error_length()) + 1, '\0');
  agui_regexp_error(message.data(), static_cast<int>(message.size()));
  message.pop_back();  // the NUL stringToUTF8 writes
  return message;
}

// A compiled RegExp, released with its handle.
struct HostRegExp {
  int id;
  explicit HostRegExp(int regexp) : id(regexp) {}
  ~HostRegExp() { agui_regexp_delete(id); }
  HostRegExp(const HostRegExp&) = delete;
  HostRegExp& operator=(const HostRegExp&) = delete;
};

class HostRegExpEngine final : public schema_detail::MatcherFirstEngine {
 protected:
  std::variant<std::shared_ptr<const void>, std::string> compile_behind(
      const std::string& pattern) const override {
    const int id = agui_regexp_new(pattern.data(), static_cast<int>(pattern.size()));
    if (id < 0) return last_error();
    return std::shared_ptr<const void>(std::make_shared<HostRegExp>(id));
  }

  bool search_behind(const void* handle, const std::string& subject,
                     std::string& error) const override {
    const int id = static_cast<const HostRegExp*>(handle)->id;
    const int found = agui_regexp_test(id, subject.data(), static_cast<int>(subject.size()));
    if (found < 0) error = last_error();
    return found == 1;
  }
};

}  // namespace

const schema_detail::UnicodePropertyOracle* schema_detail::default_property_oracle() {
  static const HostPropertyOracle oracle;
  return &oracle;
}

const RegexEngine& default_regex_engine() {
  static const HostRegExpEngine engine;
  return engine;
}

}  // namespace agui
