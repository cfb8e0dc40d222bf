// A linear-time matcher for the subset of ECMAScript patterns that tool
// schemas use ("^[A-Z]{2}$", "^\\d{4}-\\d{2}-\\d{2}$", "^[A-Za-zÀ-ÿ' -]+$"):
// literals, ".", classes and ranges of any code points, \d \w \s and their
// negations, \x and \u escapes, groups, alternation, greedy and lazy
// quantifiers, ^ $ \b \B. It compiles such a pattern to a small NFA program
// and runs it as a Pike VM over the subject's code points: no recursion, no
// backtracking, time proportional to subject length times program size.
// Whether a match exists does not depend on ECMAScript's backtracking order,
// so for this subset the answer is the one JavaScript's RegExp gives with the
// "u" flag, as JSON Schema validators in JS use it: "." is one code point (not
// U+2028 or U+2029), \s includes the Unicode spaces, \d \w \b stay ASCII.
// Tests hold it to the browser's RegExp in the wasm build and to std::regex on
// ASCII natively. Anything outside the subset (back-references, lookaround,
// surrogate escapes, odd syntax) is left to the engine behind it:
// MatcherFirstEngine, at the end, is the part both default engines share.
#include <algorithm>
#include <bitset>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "json_schema_internal.hpp"
#include "utf8.hpp"

namespace agui::schema_detail {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr char32_t kNotACodePoint = 0xFFFD;  // what a decoder makes of invalid bytes

// A set of code points: ASCII as a bitmap, the rest as sorted, disjoint,
// non-adjacent ranges (a class like [À-ÖØ-öø-ÿ] is three).
class CodePointSet {
  using Set = CodePointSet;

 public:
  void add(char32_t lo, char32_t hi) {
    for (; lo <= hi && lo < 0x80; ++lo) ascii_.set(lo);
    if (lo > hi) return;
    // Keep the ranges sorted: those before [lo, hi] stay, those touching it
    // are absorbed into it, and it goes in before the first one after it.
    std::vector<std::pair<char32_t, char32_t>> out;
    out.reserve(wide_.size() + 1);
    bool placed = false;
    for (const auto& r : wide_) {
      if (r.second + 1 < lo) {
        out.push_back(r);
      } else if (hi + 1 < r.first) {
        if (!placed) out.emplace_back(lo, hi);
        placed = true;
        out.push_back(r);
      } else {
        lo = std::min(lo, r.first);
        hi = std::max(hi, r.second);
      }
    }
    if (!placed) out.emplace_back(lo, hi);
    wide_ = std::move(out);
  }
  void add(char32_t c) { add(c, c); }
  Set& operator|=(const Set& other) {
    if (this == &other) return *this;
    ascii_ |= other.ascii_;
    for (const auto& [lo, hi] : other.wide_) add(lo, hi);
    return *this;
  }
  friend Set operator|(Set a, const Set& b) { return a |= b; }
  Set complement() const {
    Set out;
    out.ascii_ = ~ascii_;
    char32_t next = 0x80;
    for (const auto& [lo, hi] : wide_) {
      if (lo > next) out.wide_.emplace_back(next, lo - 1);
      next = hi + 1;
    }
    if (next <= kMaxCodePoint) out.wide_.emplace_back(next, kMaxCodePoint);
    return out;
  }
  bool contains(char32_t c) const {
    if (c < 0x80) return ascii_[c];
    auto it = std::upper_bound(wide_.begin(), wide_.end(), c,
                               [](char32_t v, const auto& r) { return v < r.first; });
    return it != wide_.begin() && c <= std::prev(it)->second;
  }
  // The one code point in the set, if it holds exactly one.
  std::optional<char32_t> single() const {
    const std::size_t n = ascii_.count();
    if (n == 1 && wide_.empty()) {
      for (char32_t c = 0; c < 0x80; ++c) {
        if (ascii_[c]) return c;
      }
    }
    if (n == 0 && wide_.size() == 1 && wide_[0].first == wide_[0].second) return wide_[0].first;
    return std::nullopt;
  }

 private:
  std::bitset<128> ascii_;
  std::vector<std::pair<char32_t, char32_t>> wide_;
};

struct RegexProgram {
  enum class Op : std::uint8_t {
    kSet,
    kSplit,
    kJump,
    kBegin,
    kEnd,
    kWordBoundary,
    kNotWordBoundary,
    kMatch
  };
  struct Instr {
    Op op = Op::kMatch;
    std::uint32_t x = 0, y = 0;
    CodePointSet set{};  // kSet: the code points it accepts
  };
  std::vector<Instr> code;
  bool anchored = false;  // starts with ^: try position 0 only
};

namespace {

using Set = CodePointSet;
constexpr std::size_t kMaxProgram = 4000;
constexpr int kMaxNesting = 32;

bool is_word(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

Set range(char32_t lo, char32_t hi) {
  Set s;
  s.add(lo, hi);
  return s;
}

Set digits() { return range('0', '9'); }
Set words() { return range('a', 'z') | range('A', 'Z') | range('0', '9') | range('_', '_'); }
Set spaces() {  // ECMAScript's WhiteSpace and LineTerminator
  Set s;
  for (const char32_t c : {U' ', U'\t', U'\n', U'\v', U'\f', U'\r', U'\u00A0', U'\u1680', U'\u2028',
                           U'\u2029', U'\u202F', U'\u205F', U'\u3000', U'\uFEFF'}) {
    s.add(c);
  }
  s.add(0x2000, 0x200A);
  return s;
}

// The code point at s[pos], and how many bytes it takes. An invalid stretch
// is one U+FFFD, as TextDecoder (the host's RegExp's view) reads it.
std::pair<char32_t, std::size_t> code_point_at(std::string_view s, std::size_t pos) {
  const auto lead = static_cast<unsigned char>(s[pos]);
  if (lead < 0x80) return {lead, 1};
  const Utf8Sequence seq = utf8_sequence_at(s, pos);
  if (!seq.valid) return {kNotACodePoint, seq.length};
  char32_t cp = lead & (0x7F >> seq.length);
  for (std::size_t k = 1; k < seq.length; ++k) cp = cp << 6 | (s[pos + k] & 0x3F);
  return {cp, seq.length};
}

// The pattern as a tree, before it becomes code.
struct Ast {
  enum class Kind : std::uint8_t {
    kSet,
    kConcat,
    kAlternate,
    kRepeat,
    kBegin,
    kEnd,
    kWordBoundary,
    kNotWordBoundary
  };
  Kind kind = Kind::kSet;
  Set set;
  std::vector<Ast> children;
  int min = 0, max = 0;  // kRepeat: max -1 is unbounded
};

Ast make(Ast::Kind kind) {
  Ast node;
  node.kind = kind;
  return node;
}

class Parser {
 public:
  explicit Parser(std::string_view p) : p_(p) {}

  std::optional<Ast> parse() {
    if (invalid_utf8_at(p_)) return std::nullopt;  // literal() reads valid UTF-8 only
    auto tree = disjunction(0);
    if (!tree || i_ != p_.size()) return std::nullopt;
    return tree;
  }

 private:
  bool at_end() const { return i_ >= p_.size(); }
  char peek() const { return at_end() ? '\0' : p_[i_]; }

  std::optional<Ast> disjunction(int nesting) {
    if (nesting > kMaxNesting) return std::nullopt;
    Ast alt = make(Ast::Kind::kAlternate);
    for (;;) {
      auto seq = alternative(nesting);
      if (!seq) return std::nullopt;
      alt.children.push_back(std::move(*seq));
      if (peek() != '|') break;
      ++i_;
    }
    if (alt.children.size() == 1) return std::move(alt.children[0]);
    return alt;
  }

  std::optional<Ast> alternative(int nesting) {
    Ast seq = make(Ast::Kind::kConcat);
    while (!at_end() && peek() != '|' && peek() != ')') {
      auto term = this->term(nesting);
      if (!term) return std::nullopt;
      seq.children.push_back(std::move(*term));
    }
    return seq;
  }

  std::optional<Ast> term(int nesting) {
    const char c = p_[i_];
    if (c == '^' || c == '$') {
      ++i_;
      return make(c == '^' ? Ast::Kind::kBegin : Ast::Kind::kEnd);
    }
    if (c == '\\' && i_ + 1 < p_.size() && (p_[i_ + 1] == 'b' || p_[i_ + 1] == 'B')) {
      i_ += 2;
      return make(p_[i_ - 1] == 'b' ? Ast::Kind::kWordBoundary : Ast::Kind::kNotWordBoundary);
    }
    auto atom = this->atom(nesting);
    if (!atom) return std::nullopt;
    return quantified(std::move(*atom));
  }

  std::optional<Ast> quantified(Ast atom) {
    int min = 0;
    int max = 0;
    const char c = peek();
    if (c == '*') {
      min = 0, max = -1, ++i_;
    } else if (c == '+') {
      min = 1, max = -1, ++i_;
    } else if (c == '?') {
      min = 0, max = 1, ++i_;
    } else if (c == '{') {
      ++i_;
      const auto lo = number();
      if (!lo) return std::nullopt;
      min = max = *lo;
      if (peek() == ',') {
        ++i_;
        if (peek() == '}') {
          max = -1;
        } else {
          const auto hi = number();
          if (!hi || *hi < min) return std::nullopt;
          max = *hi;
        }
      }
      if (peek() != '}') return std::nullopt;
      ++i_;
    } else {
      return atom;
    }
    if (peek() == '?') ++i_;  // lazy: the same set of matches
    if (peek() == '*' || peek() == '+' || peek() == '?' || peek() == '{') return std::nullopt;
    Ast repeat = make(Ast::Kind::kRepeat);
    repeat.min = min;
    repeat.max = max;
    repeat.children.push_back(std::move(atom));
    return repeat;
  }

  std::optional<int> number() {
    int value = 0;
    const std::size_t start = i_;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      value = value * 10 + (peek() - '0');
      if (value > 1000) return std::nullopt;
      ++i_;
    }
    if (i_ == start) return std::nullopt;
    return value;
  }

  std::optional<Ast> atom(int nesting) {
    const char c = p_[i_];
    Ast set = make(Ast::Kind::kSet);
    switch (c) {
      case '.':
        ++i_;
        set.set = range(U'\n', U'\n') | range(U'\r', U'\r') | range(0x2028, 0x2029);
        set.set = set.set.complement();  // "." is every code point but a line terminator
        return set;
      case '(': {
        ++i_;
        if (peek() == '?') {
          if (i_ + 1 >= p_.size() || p_[i_ + 1] != ':') return std::nullopt;  // lookaround
          i_ += 2;
        }
        auto inner = disjunction(nesting + 1);
        if (!inner || peek() != ')') return std::nullopt;
        ++i_;
        return inner;
      }
      case '[':
        return klass();
      case '\\': {
        ++i_;
        const auto escaped = escape(false);
        if (!escaped) return std::nullopt;
        set.set = *escaped;
        return set;
      }
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
      case ']':
      case ')':
      case '|':
        return std::nullopt;  // errors with "u", or read differently by std::regex: leave them
      default:
        set.set.add(literal());
        return set;
    }
  }

  // One code point of the pattern's text (valid UTF-8: parse() checked).
  char32_t literal() {
    const auto [cp, length] = code_point_at(p_, i_);
    i_ += length;
    return cp;
  }

  // After a backslash.
  std::optional<Set> escape(bool in_class) {
    if (at_end()) return std::nullopt;
    const char c = p_[i_++];
    Set s;
    switch (c) {
      case 'd':
        return digits();
      case 'D':
        return digits().complement();
      case 'w':
        return words();
      case 'W':
        return words().complement();
      case 's':
        return spaces();
      case 'S':
        return spaces().complement();
      case 't':
        s.add(U'\t');
        return s;
      case 'n':
        s.add(U'\n');
        return s;
      case 'r':
        s.add(U'\r');
        return s;
      case 'f':
        s.add(U'\f');
        return s;
      case 'v':
        s.add(U'\v');
        return s;
      case 'b':
        if (!in_class) return std::nullopt;
        s.add(U'\b');
        return s;
      case 'x':
      case 'u': {
        const std::size_t digits_needed = c == 'x' ? 2 : 4;
        if (i_ + digits_needed > p_.size()) return std::nullopt;
        unsigned value = 0;
        for (std::size_t k = 0; k < digits_needed; ++k) {
          const char h = p_[i_ + k];
          const int d = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
          if (d < 0) return std::nullopt;
          value = value * 16 + static_cast<unsigned>(d);
        }
        // A surrogate half: \uD83D\uDE00 is one code point with "u"; leave those.
        if (value >= 0xD800 && value <= 0xDFFF) return std::nullopt;
        i_ += digits_needed;
        s.add(value);
        return s;
      }
      default:
        // Identity escapes of ASCII punctuation ("\.", "\/", "\-"); letters,
        // digits (back-references) and the rest go to the engine behind.
        if ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '^') ||
            (c >= '{' && c <= '}') || c == '`') {
          s.add(static_cast<unsigned char>(c));
          return s;
        }
        return std::nullopt;
    }
  }

  std::optional<Ast> klass() {
    ++i_;  // '['
    Ast node = make(Ast::Kind::kSet);
    bool negate = false;
    if (peek() == '^') {
      negate = true;
      ++i_;
    }
    if (peek() == ']') return std::nullopt;  // "[]" and "[^]": leave them
    while (!at_end() && peek() != ']') {
      // One member: a single character (possibly the start of a range) or a class escape.
      std::optional<char32_t> lo;
      if (peek() == '\\') {
        ++i_;
        const std::size_t before = i_;
        const auto escaped = escape(true);
        if (!escaped) return std::nullopt;
        lo = escaped->single();
        if (!lo || p_[before] == 'd' || p_[before] == 'w' || p_[before] == 's') {
          if (peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') return std::nullopt;
          node.set |= *escaped;
          continue;
        }
      } else if (peek() == '[') {
        return std::nullopt;  // "[[:alpha:]]" and friends differ between engines
      } else {
        lo = literal();
      }
      if (peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        std::optional<char32_t> hi;
        if (peek() == '\\') {
          ++i_;
          const auto escaped = escape(true);
          if (escaped) hi = escaped->single();
        } else if (peek() != '[') {
          hi = literal();
        }
        if (!hi || *hi < *lo) return std::nullopt;
        node.set.add(*lo, *hi);
      } else {
        node.set.add(*lo);
      }
    }
    if (peek() != ']') return std::nullopt;
    ++i_;
    if (negate) node.set = node.set.complement();
    return node;
  }

  std::string_view p_;
  std::size_t i_ = 0;
};

class Emitter {
 public:
  bool emit(const Ast& node, std::vector<RegexProgram::Instr>& code) {
    using Op = RegexProgram::Op;
    if (code.size() > kMaxProgram) return false;
    switch (node.kind) {
      case Ast::Kind::kSet:
        code.push_back({Op::kSet, 0, 0, node.set});
        return true;
      case Ast::Kind::kBegin:
        code.push_back({Op::kBegin});
        return true;
      case Ast::Kind::kEnd:
        code.push_back({Op::kEnd});
        return true;
      case Ast::Kind::kWordBoundary:
        code.push_back({Op::kWordBoundary});
        return true;
      case Ast::Kind::kNotWordBoundary:
        code.push_back({Op::kNotWordBoundary});
        return true;
      case Ast::Kind::kConcat:
        for (const Ast& child : node.children) {
          if (!emit(child, code)) return false;
        }
        return true;
      case Ast::Kind::kAlternate: {
        // split L1, next; L1: a; jump end; next: split L2, next2; ...
        std::vector<std::size_t> jumps;
        for (std::size_t k = 0; k < node.children.size(); ++k) {
          const bool last = k + 1 == node.children.size();
          std::size_t split = 0;
          if (!last) {
            split = code.size();
            code.push_back({Op::kSplit});
            code[split].x = static_cast<std::uint32_t>(code.size());
          }
          if (!emit(node.children[k], code)) return false;
          if (!last) {
            jumps.push_back(code.size());
            code.push_back({Op::kJump});
            code[split].y = static_cast<std::uint32_t>(code.size());
          }
        }
        for (const std::size_t j : jumps) code[j].x = static_cast<std::uint32_t>(code.size());
        return true;
      }
      case Ast::Kind::kRepeat: {
        const Ast& body = node.children[0];
        if (body.kind >= Ast::Kind::kBegin) return false;  // a quantified assertion
        for (int k = 0; k < node.min; ++k) {
          if (!emit(body, code)) return false;
        }
        if (node.max < 0) {  // L: split body, end; body; jump L
          const std::size_t split = code.size();
          code.push_back({Op::kSplit});
          code[split].x = static_cast<std::uint32_t>(code.size());
          if (!emit(body, code)) return false;
          code.push_back({Op::kJump, static_cast<std::uint32_t>(split)});
          code[split].y = static_cast<std::uint32_t>(code.size());
          return true;
        }
        std::vector<std::size_t> splits;
        for (int k = node.min; k < node.max; ++k) {  // nested optionals
          splits.push_back(code.size());
          code.push_back({Op::kSplit});
          code[splits.back()].x = static_cast<std::uint32_t>(code.size());
          if (!emit(body, code)) return false;
        }
        for (const std::size_t s : splits) code[s].y = static_cast<std::uint32_t>(code.size());
        return true;
      }
    }
    return false;
  }
};

}  // namespace

std::shared_ptr<const RegexProgram> compile_regex_program(std::string_view pattern) {
  auto tree = Parser(pattern).parse();
  if (!tree) return nullptr;
  auto program = std::make_shared<RegexProgram>();
  if (!Emitter().emit(*tree, program->code) || program->code.size() > kMaxProgram) return nullptr;
  program->code.push_back({RegexProgram::Op::kMatch});
  program->anchored = program->code.front().op == RegexProgram::Op::kBegin;
  return program;
}

bool regex_program_search(const RegexProgram& program, std::string_view s) {
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
      const auto& in = code[pc];
      switch (in.op) {
        case Op::kSet:
          list.push_back(pc);
          break;
        case Op::kSplit:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Op::kJump:
          stack.push_back(in.x);
          break;
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
        case Op::kMatch:
          return true;
      }
    }
    return false;
  };
  ++generation;
  if (add(current, 0, 0)) return true;
  for (std::size_t pos = 0; pos < n;) {
    if (current.empty() && program.anchored) return false;
    ++generation;
    next.clear();
    const auto [c, length] = code_point_at(s, pos);
    pos += length;
    for (const std::uint32_t pc : current) {
      if (code[pc].set.contains(c) && add(next, pc + 1, pos)) return true;
    }
    if (!program.anchored && add(next, 0, pos)) return true;
    current.swap(next);
  }
  return false;
}

namespace {
struct MatcherFirstPattern {
  std::shared_ptr<const void> behind;
  std::shared_ptr<const RegexProgram> program;  // null: outside the subset
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
  compiled->program = compile_regex_program(pattern);
  return std::shared_ptr<const void>(std::move(compiled));
}

bool MatcherFirstEngine::search(const void* handle, const std::string& subject) const {
  const auto& compiled = *static_cast<const MatcherFirstPattern*>(handle);
  if (subject.size() > kDefaultRegexMaxSubjectBytes) {
    throw std::length_error("the string is longer than the default regex engine's limit of " +
                            std::to_string(kDefaultRegexMaxSubjectBytes) + " bytes");
  }
  if (compiled.program) return regex_program_search(*compiled.program, subject);
  return search_behind(compiled.behind.get(), subject);
}

}  // namespace agui::schema_detail
