// The default RegexEngine: std::regex with its ECMAScript grammar, over the
// UTF-8 bytes of the subject. What it does differently from JavaScript's
// RegExp (the engine the browser can lend instead) is listed in
// json_schema.hpp and pinned by tests in tests/native/json_schema_test.cpp.
//
// Speed: patterns in the common subset (literals, classes, groups,
// alternation, quantifiers, ^ $ \b) run on json_schema_regex_vm.cpp's
// linear-time matcher, 5-20x faster than std::regex; std::regex still compiles
// every pattern, so syntax errors are the same either way.
//
// Stack and time safety for the rest: libstdc++'s default (depth-first) executor recurses
// once or more per subject character (a 100k-character string against "^a*$"
// overflows an 8 MB stack) and backtracks exponentially ("^(a+)+$" against 30
// a's and a b). With libstdc++ we therefore compile each pattern for its
// polynomial (breadth-first) executor, whose recursion depends on the pattern
// only; it is 2-4x slower on short strings and still well under a microsecond.
// That executor cannot run back-references, so patterns with them use the
// depth-first one and refuse subjects longer than kBackrefSubjectLimit. libc++
// (the wasm build) matches iteratively and throws error_complexity on runaway
// backtracking. Refusals become validation issues, never matches.
#include <cstddef>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <variant>

#include "json_schema.hpp"
#include "json_schema_internal.hpp"

namespace agui {
namespace {

constexpr std::size_t kMaxPatternBytes = 16 * 1024;
constexpr std::size_t kMaxGroupNesting = 64;
#ifdef __GLIBCXX__
constexpr std::size_t kBackrefSubjectLimit = 1000;  // depth-first executor only
#endif

struct StdPattern {
  std::regex regex;
  bool backreference = false;
  // The same pattern for the linear-time matcher, when it is in its subset.
  std::shared_ptr<const schema_detail::RegexProgram> program;
};

struct Scan {
  std::string unsupported;  // why the default engine cannot take the pattern
  bool backreference = false;
};

// ECMA-262 syntax std::regex lacks, reported by name rather than as the
// library's generic parse error; and whether the pattern has back-references.
Scan scan(const std::string& pattern) {
  Scan out;
  bool in_class = false;
  std::size_t depth = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (c == '\\') {
      if (next == 'p' || next == 'P') {
        if (i + 2 < pattern.size() && pattern[i + 2] == '{') {
          out.unsupported = "Unicode property escapes (\\p{...}) are not supported";
          return out;
        }
      } else if (next == 'k' && i + 2 < pattern.size() && pattern[i + 2] == '<') {
        out.unsupported = "named back-references (\\k<name>) are not supported";
        return out;
      } else if (!in_class && next >= '1' && next <= '9') {
        out.backreference = true;
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      if (++depth > kMaxGroupNesting) {
        out.unsupported = "groups nest deeper than " + std::to_string(kMaxGroupNesting);
        return out;
      }
      if (next == '?' && i + 2 < pattern.size() && pattern[i + 2] == '<') {
        const char kind = i + 3 < pattern.size() ? pattern[i + 3] : '\0';
        out.unsupported = kind == '=' || kind == '!'
                              ? "lookbehind assertions ((?<=...), (?<!...)) are not supported"
                              : "named groups ((?<name>...)) are not supported";
        return out;
      }
    } else if (c == ')') {
      if (depth > 0) --depth;
    }
  }
  return out;
}

class StdRegexEngine final : public RegexEngine {
 public:
  std::variant<std::shared_ptr<const void>, std::string> compile(
      const std::string& pattern) const override {
    if (pattern.size() > kMaxPatternBytes) {
      return "pattern is longer than " + std::to_string(kMaxPatternBytes) + " bytes";
    }
    const Scan found = scan(pattern);
    if (!found.unsupported.empty()) return found.unsupported + " by the default regex engine";
    try {
      auto compiled = std::make_shared<StdPattern>();
      auto flags = found.backreference ? std::regex::ECMAScript
                                       : std::regex::ECMAScript | std::regex::nosubs;
#ifdef __GLIBCXX__
      if (!found.backreference) flags |= std::regex_constants::__polynomial;
#endif
      compiled->regex = std::regex(pattern, flags);
      compiled->backreference = found.backreference;
      compiled->program = schema_detail::compile_regex_program(pattern);
      return std::shared_ptr<const void>(std::move(compiled));
    } catch (const std::regex_error& e) {
      return std::string(e.what());
    }
  }

  bool search(const void* handle, const std::string& subject) const override {
    const auto& compiled = *static_cast<const StdPattern*>(handle);
    if (subject.size() > kDefaultRegexMaxSubjectBytes) {
      throw std::length_error("the string is longer than the default regex engine's limit of " +
                              std::to_string(kDefaultRegexMaxSubjectBytes) + " bytes");
    }
    if (compiled.program) return schema_detail::regex_program_search(*compiled.program, subject);
    try {
#ifdef __GLIBCXX__
      if (compiled.backreference && subject.size() > kBackrefSubjectLimit) {
        throw std::length_error(
            "the default regex engine checks patterns with back-references only on strings up to " +
            std::to_string(kBackrefSubjectLimit) + " bytes");
      }
#endif
      return std::regex_search(subject, compiled.regex);
    } catch (const std::regex_error&) {
      throw std::runtime_error("the pattern is too complex to evaluate against this string");
    }
  }
};

}  // namespace

const RegexEngine& default_regex_engine() {
  static const StdRegexEngine engine;
  return engine;
}

}  // namespace agui
