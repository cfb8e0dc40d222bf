// A linear-time matcher for the subset of ECMAScript patterns that tool
// schemas use ("^[A-Z]{2}$", "^\\d{4}-\\d{2}-\\d{2}$", "^[A-Za-zÀ-ÿ' -]+$"):
// literals, ".", classes and ranges of any code points, \d \w \s and their
// negations, \x and \u escapes, \p{...} and \P{...} where a property oracle
// has the Unicode tables (the host's RegExp in wasm), groups (plain,
// non-capturing and named), alternation, greedy and lazy quantifiers,
// counted ones included, and ^ $ \b \B. It compiles such a pattern to a
// bounded NFA program (regex_parse.cpp; kMaxRegexProgram
// instructions: counted repetition is
// expanded into copies, and a pattern that would need more is outside the
// subset) and runs it as a Pike VM over the subject's code points: no
// recursion, no backtracking, at most two steps per instruction per code
// point, charged to the validation's step budget.
// Whether a match exists does not depend on ECMAScript's backtracking order,
// so for this subset the answer is the one JavaScript's RegExp gives with the
// "u" flag, as JSON Schema validators in JS use it: "." is one code point (not
// U+2028 or U+2029), \s includes the Unicode spaces, \d \w \b stay ASCII.
// Tests hold it to the browser's RegExp in the wasm build and to std::regex on
// ASCII natively. Anything outside the subset (back-references, lookaround,
// lone surrogate escapes, odd syntax) is left to the engine behind it, and the
// compiler says why, so that the schema compiler can refuse it by default:
// MatcherFirstEngine, at the end, is the part both default engines share.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "schema/internal/regex_program.hpp"

namespace agui::schema_detail {

namespace {
bool is_word(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::size_t regex_program_size(const RegexProgram& program) { return program.code.size(); }

// Long on purpose: the Pike VM's loop keeps its thread lists and step count in
// locals; split into calls, the innermost loop of every pattern check pays for them.
bool regex_program_search(const RegexProgram& program, std::string_view s, std::size_t* steps_left,
                          std::string* error) {
  using Op = RegexProgram::Op;
  const auto& code = program.code;
  const std::size_t size = code.size();
  // Scratch reused across calls on this thread: no allocation per search.
  thread_local std::vector<std::uint32_t> current, next, stack;
  thread_local std::vector<std::size_t> mark;
  if (mark.size() < size) mark.assign(size, 0);
  thread_local std::size_t generation = 0;
  current.clear();
  next.clear();
  const std::size_t n = s.size();
  std::size_t steps = 0;  // instructions visited and threads stepped, at this position
  // False when the budget is spent: the search stops, undecided.
  auto charge = [&] {
    if (!steps_left) return true;
    if (steps > *steps_left) {
      if (error) {
        *error = "the pattern needs more than the " + std::to_string(kRegexStepsPerValidation) +
                 " matcher steps one validation may take";
      }
      return false;
    }
    *steps_left -= steps;
    steps = 0;
    return true;
  };
  auto word_at = [&](std::size_t pos) {
    return pos < n && is_word(static_cast<unsigned char>(s[pos]));
  };
  // Follows the epsilon transitions from pc at position pos; true on a match.
  auto add = [&](std::vector<std::uint32_t>& list, std::uint32_t start, std::size_t pos) {
    stack.clear();
    stack.push_back(start);
    while (!stack.empty()) {
      const std::uint32_t pc = stack.back();
      stack.pop_back();
      if (mark[pc] == generation) continue;
      mark[pc] = generation;
      ++steps;
      const auto& in = code[pc];
      switch (in.op) {
        case Op::kSet: list.push_back(pc); break;
        case Op::kSplit:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Op::kJump: stack.push_back(in.x); break;
        case Op::kBegin:
          if (pos == 0) stack.push_back(pc + 1);
          break;
        case Op::kEnd:
          if (pos == n) stack.push_back(pc + 1);
          break;
        case Op::kWordBoundary:
        case Op::kNotWordBoundary: {
          const bool boundary = (pos > 0 && word_at(pos - 1)) != word_at(pos);
          if (boundary == (in.op == Op::kWordBoundary)) stack.push_back(pc + 1);
          break;
        }
        case Op::kMatch: return true;
      }
    }
    return false;
  };
  ++generation;
  if (add(current, 0, 0)) return true;
  if (!charge()) return false;
  for (std::size_t pos = 0; pos < n;) {
    if (current.empty() && program.anchored) return false;
    ++generation;
    next.clear();
    const auto [c, length] = code_point_at(s, pos);
    pos += length;
    steps += current.size();
    for (const std::uint32_t pc : current) {
      if (program.classes[code[pc].x].contains(c) && add(next, pc + 1, pos)) return true;
    }
    if (!program.anchored && add(next, 0, pos)) return true;
    current.swap(next);
    if (!charge()) return false;
  }
  return false;
}

namespace {
struct MatcherFirstPattern {
  std::shared_ptr<const void> behind;
  std::shared_ptr<const RegexProgram> program;  // null: outside the subset
  std::string outside;                          // why it is outside
};
}  // namespace

std::variant<std::shared_ptr<const void>, std::string> MatcherFirstEngine::compile(
    const std::string& pattern) const {
  if (pattern.size() > kMaxPatternBytes) {
    return "pattern is longer than " + std::to_string(kMaxPatternBytes) + " bytes";
  }
  auto behind = compile_behind(pattern);
  if (auto* error = std::get_if<std::string>(&behind)) return std::move(*error);
  auto compiled = std::make_shared<MatcherFirstPattern>();
  compiled->behind = std::get<std::shared_ptr<const void>>(std::move(behind));
  compiled->program = compile_regex_program(pattern, default_property_oracle(), &compiled->outside);
  return std::shared_ptr<const void>(std::move(compiled));
}

bool MatcherFirstEngine::search(const void* handle, const std::string& subject,
                                std::string& error) const {
  std::size_t unlimited = static_cast<std::size_t>(-1);
  return search(handle, subject, unlimited, error);
}

bool MatcherFirstEngine::search(const void* handle, const std::string& subject,
                                std::size_t& steps_left, std::string& error) const {
  const auto& compiled = *static_cast<const MatcherFirstPattern*>(handle);
  if (subject.size() > kDefaultRegexMaxSubjectBytes) {
    error = "the string is longer than the default regex engine's limit of " +
            std::to_string(kDefaultRegexMaxSubjectBytes) + " bytes";
    return false;
  }
  if (compiled.program)
    return regex_program_search(*compiled.program, subject, &steps_left, &error);
  return search_behind(compiled.behind.get(), subject, error);
}

std::string MatcherFirstEngine::backtracking_reason(const void* handle) const {
  const auto& compiled = *static_cast<const MatcherFirstPattern*>(handle);
  return compiled.program ? std::string() : compiled.outside;
}

}  // namespace agui::schema_detail
