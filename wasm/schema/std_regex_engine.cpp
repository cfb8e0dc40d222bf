// The native build's default RegexEngine: std::regex with its ECMAScript
// grammar, over the UTF-8 bytes of the subject (the wasm build lends the
// host's RegExp instead: bindings/regexp_engine.cpp). What it does differently
// from JavaScript's RegExp is listed in json_schema.hpp and pinned by tests in
// tests/native/json_schema_test.cpp.
//
// Speed: patterns in the common subset (literals, classes, groups,
// alternation, quantifiers, ^ $ \b) run on regex_vm.cpp's
// linear-time matcher, 5-20x faster than std::regex; std::regex still compiles
// every pattern, so syntax errors are the same either way. It runs the rest
// only where the schema options allow backtracking patterns.
//
// Stack and time safety for the rest: libstdc++'s default (depth-first) executor recurses
// once or more per subject character (a 100k-character string against "^a*$"
// overflows an 8 MB stack) and backtracks exponentially ("^(a+)+$" against 30
// a's and a b). With libstdc++ we therefore compile each pattern for its
// polynomial (breadth-first) executor, whose recursion depends on the pattern
// only; it is 2-4x slower on short strings and still well under a microsecond.
// That executor cannot run back-references, and the depth-first one has no
// time bound, so natively a pattern with a back-reference is a compile error.
// (libc++ matches iteratively and throws error_complexity on runaway
// backtracking.) Refusals become validation issues, never matches.
//
// Before std::regex sees a pattern, scan() refuses what would reach undefined
// behaviour or runaway time inside it: numbers too large for its int parser
// (a 20-digit bound or back-reference), and stacked quantifiers ("a+*").
#include <algorithm>
#include <cstddef>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "schema/internal/program.hpp"
#include "schema/json_schema.hpp"

namespace agui {
namespace {

constexpr std::size_t kMaxGroupNesting = 64;
// Each bound is a copy of the repeated part in std::regex's automaton.
constexpr std::size_t kMaxQuantifierBound = 100000;

struct Scan {
  std::string unsupported;  // why the default engine cannot take the pattern
  bool backreference = false;
  std::string for_std_regex;  // the pattern with its group names dropped
};

// The value of the decimal digits at `i` (saturating: a bound of 40 digits must
// not overflow here, as it does inside libstdc++'s parser), and how many.
std::pair<std::size_t, std::size_t> number_at(const std::string& text, std::size_t i) {
  std::size_t value = 0, n = 0;
  for (; i + n < text.size() && text[i + n] >= '0' && text[i + n] <= '9'; ++n) {
    value = value > kMaxQuantifierBound ? value : value * 10 + std::size_t(text[i + n] - '0');
  }
  return {value, n};
}

// A `{n}`, `{n,}` or `{n,m}` quantifier at `i`: its length (0 when the brace is
// a literal, as ECMAScript reads "x{" or "{a}") and its largest number.
std::pair<std::size_t, std::size_t> braces_at(const std::string& p, std::size_t i) {
  auto [low, low_digits] = number_at(p, i + 1);
  if (low_digits == 0) return {0, 0};
  std::size_t j = i + 1 + low_digits, largest = low;
  if (j < p.size() && p[j] == ',') {
    auto [high, high_digits] = number_at(p, j + 1);
    j += 1 + high_digits;
    largest = std::max(largest, high);
  }
  // Unclosed ("{8333333333333333333,"), it is a literal in ECMAScript, but
  // libstdc++ reads its digits all the same: the bound still counts.
  if (j >= p.size() || p[j] != '}') return {0, largest};
  return {j + 1 - i, largest};
}

// "(?<name>" at i (not a lookbehind "(?<=" or "(?<!").
bool named_group_at(const std::string& p, std::size_t i) {
  return p.compare(i, 3, "(?<") == 0 && p.compare(i + 3, 1, "=") != 0 &&
         p.compare(i + 3, 1, "!") != 0;
}

std::size_t capture_groups(const std::string& p) {
  std::size_t groups = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (in_class) {
      in_class = p[i] != ']';
    } else if (p[i] == '[') {
      in_class = true;
    } else if (p[i] == '(' && (p.compare(i + 1, 1, "?") != 0 || named_group_at(p, i))) {
      ++groups;
    }
  }
  return groups;
}

bool ascii_identifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
  });
}

// ECMA-262 syntax std::regex lacks or reads differently, reported by name
// rather than as the library's generic parse error (or its undefined
// behaviour); and whether the pattern has back-references.
// Long on purpose: one pass over the pattern, a case per construct, so every
// refusal is next to the syntax it refuses.
Scan scan(const std::string& pattern) {
  Scan out;
  const std::size_t groups = capture_groups(pattern);
  bool in_class = false;
  bool after_quantifier = false;  // the previous token was a quantifier
  std::size_t depth = 0;
  std::vector<std::string> names;  // of named groups
  std::size_t copied = 0;          // of pattern, into out.for_std_regex
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (in_class) {
      if (c == '\\')
        ++i;
      else if (c == ']')
        in_class = false;
      continue;
    }
    // A quantifier, and whether it follows another ("a**", "a+{2}"): JS
    // refuses that as "nothing to repeat"; libstdc++ accepts it and can then
    // backtrack exponentially.
    std::size_t quantifier = 0;
    if (c == '*' || c == '+' || c == '?') {
      quantifier = 1;
    } else if (c == '{') {
      auto [length, largest] = braces_at(pattern, i);
      if (largest > kMaxQuantifierBound) {
        out.unsupported = "a quantifier bound above " + std::to_string(kMaxQuantifierBound) +
                          " (at byte " + std::to_string(i) +
                          ") is not supported by the default regex engine";
        return out;
      }
      quantifier = length;
    }
    if (quantifier != 0) {
      if (after_quantifier) {
        out.unsupported = "a quantifier follows another quantifier (at byte " + std::to_string(i) +
                          "): nothing to repeat";
        return out;
      }
      i += quantifier - 1;
      after_quantifier = true;
      if (i + 1 < pattern.size() && pattern[i + 1] == '?') ++i;  // lazy
      continue;
    }
    after_quantifier = false;
    if (c == '\\') {
      if (next == 'p' || next == 'P') {
        if (i + 2 < pattern.size() && pattern[i + 2] == '{') {
          out.unsupported =
              "Unicode property escapes (\\p{...}) are not supported by the default regex engine";
          return out;
        }
      } else if (next == 'k' && i + 2 < pattern.size() && pattern[i + 2] == '<') {
        out.unsupported =
            "named back-references (\\k<name>) are not supported by the default regex engine";
        return out;
      } else if (next >= '1' && next <= '9') {
        auto [number, length] = number_at(pattern, i + 1);
        if (number > groups) {
          // JS with "u" (ajv) refuses it too; without "u" it is a legacy octal escape.
          out.unsupported = "the back-reference \\" + pattern.substr(i + 1, length) +
                            " names no group (the pattern has " + std::to_string(groups) + ")";
          return out;
        }
        out.backreference = true;
        i += length;
        continue;
      }
      ++i;
      continue;
    }
    if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      if (++depth > kMaxGroupNesting) {
        out.unsupported = "groups nest deeper than " + std::to_string(kMaxGroupNesting) +
                          " in the default regex engine";
        return out;
      }
      if (next == '?' && i + 2 < pattern.size() && pattern[i + 2] == '<') {
        const char kind = i + 3 < pattern.size() ? pattern[i + 3] : '\0';
        if (kind == '=' || kind == '!') {
          out.unsupported =
              "lookbehind assertions ((?<=...), (?<!...)) are not supported by the "
              "default regex engine";
          return out;
        }
        const std::size_t close = pattern.find('>', i + 3);
        const std::string name = pattern.substr(i + 3, close - (i + 3));
        if (close == std::string::npos || !ascii_identifier(name)) {
          out.unsupported =
              "a group name that is not an ASCII identifier is not supported by the default "
              "regex engine";
          return out;
        }
        if (std::find(names.begin(), names.end(), name) != names.end()) {
          out.unsupported = "duplicate group name '" + name + "'";  // as in JS
          return out;
        }
        names.push_back(name);
        // std::regex has no named groups; the name only labels a group.
        out.for_std_regex.append(pattern, copied, i + 1 - copied);
        copied = close + 1;
        i = close;
      }
    } else if (c == ')') {
      if (depth > 0) --depth;
    }
  }
  out.for_std_regex.append(pattern, copied);
#ifdef __GLIBCXX__
  // libstdc++ can run back-references only on its backtracking executor,
  // which has no bound on its time: "(a+)+\\1$" against 30 a's and a b takes
  // minutes. libc++ bounds it and gives up with an issue.
  if (out.backreference) {
    out.unsupported =
        "back-references are not supported natively (libstdc++ can only backtrack them, "
        "without a time bound) by the default regex engine";
  }
#endif
  return out;
}

class StdRegexEngine final : public schema_detail::MatcherFirstEngine {
 protected:
  std::variant<std::shared_ptr<const void>, std::string> compile_behind(
      const std::string& pattern) const override {
    const Scan found = scan(pattern);
    if (!found.unsupported.empty()) return found.unsupported;
    try {
      auto flags = found.backreference ? std::regex::ECMAScript
                                       : std::regex::ECMAScript | std::regex::nosubs;
#ifdef __GLIBCXX__
      if (!found.backreference) flags |= std::regex_constants::__polynomial;
#endif
      return std::shared_ptr<const void>(std::make_shared<std::regex>(found.for_std_regex, flags));
    } catch (const std::regex_error& e) {
      return std::string(e.what());
    }
  }

  bool search_behind(const void* handle, const std::string& subject,
                     std::string& error) const override {
    try {
      return std::regex_search(subject, *static_cast<const std::regex*>(handle));
    } catch (const std::regex_error&) {
      error = "the pattern is too complex to evaluate against this string";
      return false;
    }
  }
};

}  // namespace

// No Unicode tables natively: \p{...} is outside the linear-time subset here.
const schema_detail::UnicodePropertyOracle* schema_detail::default_property_oracle() {
  return nullptr;
}

const RegexEngine& default_regex_engine() {
  static const StdRegexEngine engine;
  return engine;
}

}  // namespace agui
