// A linear-time matcher for the subset of ECMAScript patterns that tool
// schemas use ("^[A-Z]{2}$", "^\\d{4}-\\d{2}-\\d{2}$", "^[A-Za-zÀ-ÿ' -]+$"):
// literals, ".", classes and ranges of any code points, \d \w \s and their
// negations, \x and \u escapes, \p{...} and \P{...} where a property oracle
// has the Unicode tables (the host's RegExp in wasm), groups (plain,
// non-capturing and named), alternation, greedy and lazy quantifiers,
// counted ones included, and ^ $ \b \B. It compiles such a pattern to a
// bounded NFA program (kMaxRegexProgram instructions: counted repetition is
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

// A character class: code points, Unicode properties (each possibly negated,
// as \P{...} is), and the whole possibly negated ([^...]). finish() answers
// ASCII once; a wider code point in a class with properties asks the oracle.
class ClassSet {
 public:
  CodePointSet points;
  std::vector<std::pair<std::uint32_t, bool>> properties;  // (property, negated)
  bool negated = false;

  void finish(const UnicodePropertyOracle* oracle) {
    oracle_ = oracle;
    for (char32_t c = 0; c < 0x80; ++c) ascii_[c] = contains_wide(c);
  }
  bool contains(char32_t c) const { return c < 0x80 ? ascii_[c] : contains_wide(c); }

 private:
  bool contains_wide(char32_t c) const {
    bool in = points.contains(c);
    for (const auto& [property, negated_property] : properties) {
      if (in) break;
      in = oracle_->contains(property, c) != negated_property;
    }
    return in != negated;
  }

  std::bitset<128> ascii_;
  const UnicodePropertyOracle* oracle_ = nullptr;
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
    std::uint32_t x = 0, y = 0;  // kSet: x is the class in `classes`; kSplit, kJump: targets
  };
  std::vector<Instr> code;
  std::vector<ClassSet> classes;  // shared by every copy a counted repetition makes
  bool anchored = false;          // starts with ^: try position 0 only
};

namespace {

using Set = CodePointSet;
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
  ClassSet set;
  std::vector<Ast> children;
  int min = 0, max = 0;         // kRepeat: max -1 is unbounded
  std::string_view quantifier;  // kRepeat: its text and offset, for messages
  std::size_t at = 0;
};

Ast make(Ast::Kind kind) {
  Ast node;
  node.kind = kind;
  return node;
}

Ast make_set(Set points) {
  Ast node = make(Ast::Kind::kSet);
  node.set.points = std::move(points);
  return node;
}

class Parser {
 public:
  Parser(std::string_view p, const UnicodePropertyOracle* properties, std::string& outside)
      : p_(p), properties_(properties), outside_(outside) {}

  std::optional<Ast> parse() {
    // literal() reads valid UTF-8 only
    if (const auto bad = invalid_utf8_at(p_)) return refuse("bytes that are not UTF-8", *bad);
    auto tree = disjunction(0);
    if (tree && i_ != p_.size()) return refuse("a ')' that closes no group", i_);
    return tree;
  }

 private:
  bool at_end() const { return i_ >= p_.size(); }
  char peek() const { return at_end() ? '\0' : p_[i_]; }
  bool next_is(std::string_view text) const { return p_.substr(i_, text.size()) == text; }

  // Records why the pattern is outside the subset (the first reason found).
  std::nullopt_t refuse(const std::string& what, std::size_t at) {
    if (outside_.empty()) outside_ = what + " (at byte " + std::to_string(at) + ")";
    return std::nullopt;
  }
  std::nullopt_t odd_syntax() { return refuse("syntax beyond the linear-time subset", i_); }

  std::optional<Ast> disjunction(int nesting) {
    if (nesting > kMaxNesting) {
      return refuse("groups nested deeper than " + std::to_string(kMaxNesting), i_);
    }
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
    if (next_is("\\b") || next_is("\\B")) {
      i_ += 2;
      return make(p_[i_ - 1] == 'b' ? Ast::Kind::kWordBoundary : Ast::Kind::kNotWordBoundary);
    }
    auto atom = this->atom(nesting);
    if (!atom) return std::nullopt;
    return quantified(std::move(*atom));
  }

  std::optional<Ast> quantified(Ast atom) {
    const std::size_t start = i_;
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
          if (!hi) return std::nullopt;
          if (*hi < min) return odd_syntax();
          max = *hi;
        }
      }
      if (peek() != '}') return odd_syntax();
      ++i_;
    } else {
      return atom;
    }
    Ast repeat = make(Ast::Kind::kRepeat);
    repeat.quantifier = p_.substr(start, i_ - start);
    repeat.at = start;
    if (peek() == '?') ++i_;  // lazy: the same set of matches
    if (peek() == '*' || peek() == '+' || peek() == '?' || peek() == '{') return odd_syntax();
    repeat.min = min;
    repeat.max = max;
    repeat.children.push_back(std::move(atom));
    return repeat;
  }

  // A repetition count. Past kMaxRegexProgram no body fits that many copies.
  std::optional<int> number() {
    int value = 0;
    const std::size_t start = i_;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      value = value * 10 + (peek() - '0');
      if (value > static_cast<int>(kMaxRegexProgram)) {
        return refuse("a repetition count above " + std::to_string(kMaxRegexProgram), start);
      }
      ++i_;
    }
    if (i_ == start) return odd_syntax();
    return value;
  }

  std::optional<Ast> atom(int nesting) {
    const char c = p_[i_];
    switch (c) {
      case '.':
        ++i_;  // "." is every code point but a line terminator
        return make_set((range(U'\n', U'\n') | range(U'\r', U'\r') | range(0x2028, 0x2029))
                            .complement());
      case '(':
        return group(nesting);
      case '[':
        return klass();
      case '\\': {
        if (auto property = this->property()) {
          Ast node = make(Ast::Kind::kSet);
          node.set.properties.push_back(*property);
          return node;
        }
        if (!outside_.empty()) return std::nullopt;
        ++i_;
        const auto escaped = escape(false);
        if (!escaped) return std::nullopt;
        return make_set(*escaped);
      }
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
      case ']':
      case ')':
      case '|':
        return odd_syntax();  // errors with "u", or read differently by std::regex: leave them
      default: {
        Set literal;
        literal.add(this->literal());
        return make_set(std::move(literal));
      }
    }
  }

  // "(", "(?:" and "(?<name>" are groups alike here: the matcher keeps no captures.
  std::optional<Ast> group(int nesting) {
    const std::size_t start = i_++;
    if (next_is("?=") || next_is("?!")) return refuse("a lookahead (?=...) or (?!...)", start);
    if (next_is("?<=") || next_is("?<!")) return refuse("a lookbehind (?<=...) or (?<!...)", start);
    if (next_is("?:")) {
      i_ += 2;
    } else if (next_is("?<")) {
      i_ += 2;
      if (!group_name()) return refuse("a group name beyond ASCII letters, digits, _ and $", start);
    } else if (peek() == '?') {
      return odd_syntax();
    }
    auto inner = disjunction(nesting + 1);
    if (!inner) return std::nullopt;
    if (peek() != ')') return odd_syntax();
    ++i_;
    return inner;
  }

  // The name of a named group, up to its '>'. The engine behind checks
  // duplicates; names outside ASCII (and \u escapes in them) are left to it.
  bool group_name() {
    const std::size_t start = i_;
    auto ascii_id = [](char c, bool first) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
             (!first && c >= '0' && c <= '9');
    };
    while (!at_end() && ascii_id(peek(), i_ == start)) ++i_;
    if (i_ == start || peek() != '>') return false;
    ++i_;
    return true;
  }

  // \p{name} or \P{name} at i_, as (property, negated), when the oracle knows
  // the name; nullopt otherwise (with a reason when it is a property escape).
  std::optional<std::pair<std::uint32_t, bool>> property() {
    if (!next_is("\\p{") && !next_is("\\P{")) return std::nullopt;
    const std::size_t start = i_;
    const std::size_t close = p_.find('}', i_ + 3);
    if (close == std::string_view::npos) return odd_syntax();
    if (!properties_) {
      return refuse("a Unicode property escape \\p{...}, which needs the host's Unicode tables",
                    start);
    }
    const auto found = properties_->find(p_.substr(i_ + 3, close - i_ - 3));
    if (!found) return refuse("a Unicode property the host does not know", start);
    const bool negated = p_[i_ + 1] == 'P';
    i_ = close + 1;
    return std::make_pair(*found, negated);
  }

  // One code point of the pattern's text (valid UTF-8: parse() checked).
  char32_t literal() {
    const auto [cp, length] = code_point_at(p_, i_);
    i_ += length;
    return cp;
  }

  // After a backslash.
  std::optional<Set> escape(bool in_class) {
    if (at_end()) return odd_syntax();
    const std::size_t start = i_ - 1;
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
        if (!in_class) return odd_syntax();
        s.add(U'\b');
        return s;
      case 'x':
      case 'u':
        return hex_escape(c, start);
      case 'k':
        return refuse("a named back-reference \\k<...>", start);
      case '0':  // NUL; "\01" is an error with "u"
        if (peek() >= '0' && peek() <= '9') return odd_syntax();
        s.add(0);
        return s;
      case 'c': {  // a control letter: "\cJ" is a line feed
        const char letter = peek();
        if (!((letter >= 'a' && letter <= 'z') || (letter >= 'A' && letter <= 'Z'))) {
          return odd_syntax();
        }
        ++i_;
        s.add(static_cast<char32_t>(letter % 32));
        return s;
      }
      default:
        if (c >= '1' && c <= '9') return refuse("a back-reference \\" + std::string(1, c), start);
        // Identity escapes of ASCII punctuation ("\.", "\/", "\-"); letters,
        // digits and the rest go to the engine behind.
        if ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '^') ||
            (c >= '{' && c <= '}') || c == '`') {
          s.add(static_cast<unsigned char>(c));
          return s;
        }
        return refuse(std::string("the escape \\") + c, start);
    }
  }

  // After "\x" or "\u": two or four hex digits, "\u{...}", or a surrogate
  // pair "\uD83D\uDE00", which is one code point with "u".
  std::optional<Set> hex_escape(char c, std::size_t start) {
    std::optional<char32_t> value;
    if (c == 'u' && peek() == '{') {
      const std::size_t close = p_.find('}', i_);
      if (close == std::string_view::npos) return odd_syntax();
      value = hex(i_ + 1, close - i_ - 1);
      if (!value) return odd_syntax();
      i_ = close + 1;
    } else {
      const std::size_t digits = c == 'x' ? 2 : 4;
      value = hex(i_, digits);
      if (!value) return refuse(std::string("the escape \\") + c + " without its hex digits", start);
      i_ += digits;
      const auto low = c == 'u' && next_is("\\u") ? hex(i_ + 2, 4) : std::nullopt;
      if (*value >= 0xD800 && *value <= 0xDBFF && low && *low >= 0xDC00 && *low <= 0xDFFF) {
        value = 0x10000 + ((*value - 0xD800) << 10) + (*low - 0xDC00);
        i_ += 6;
      }
    }
    // A lone surrogate: no UTF-8 subject holds one; leave it to the engine behind.
    if (*value >= 0xD800 && *value <= 0xDFFF) return refuse("a lone surrogate escape", start);
    Set s;
    s.add(*value);
    return s;
  }

  // The value of `length` hex digits at `at`, if they are that and name a code point.
  std::optional<char32_t> hex(std::size_t at, std::size_t length) const {
    if (length == 0 || at + length > p_.size()) return std::nullopt;
    char32_t value = 0;
    for (std::size_t k = 0; k < length; ++k) {
      const char h = p_[at + k];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) return std::nullopt;
      value = value * 16 + static_cast<char32_t>(d);
      if (value > kMaxCodePoint) return std::nullopt;
    }
    return value;
  }

  std::optional<Ast> klass() {
    ++i_;  // '['
    Ast node = make(Ast::Kind::kSet);
    if (peek() == '^') {
      node.set.negated = true;
      ++i_;
    }
    while (!at_end() && peek() != ']') {
      if (!class_member(node.set)) return std::nullopt;
    }
    if (peek() != ']') return odd_syntax();
    ++i_;
    return node;
  }

  // One member of a class: a single character (possibly the start of a
  // range), a class escape or a property escape.
  bool class_member(ClassSet& set) {
    std::optional<char32_t> lo;
    if (auto property = this->property()) {
      if (peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        odd_syntax();
        return false;
      }
      set.properties.push_back(*property);
      return true;
    }
    if (!outside_.empty()) return false;
    if (peek() == '\\') {
      ++i_;
      const std::size_t before = i_;
      const auto escaped = escape(true);
      if (!escaped) return false;
      lo = escaped->single();
      if (!lo || p_[before] == 'd' || p_[before] == 'w' || p_[before] == 's') {
        if (peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        odd_syntax();
        return false;
      }
        set.points |= *escaped;
        return true;
      }
    } else if (peek() == '[') {
      refuse("a '[' inside a class", i_);  // "[[:alpha:]]" differs between engines
      return false;
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
      if (!hi || *hi < *lo) {
        odd_syntax();
        return false;
      }
      set.points.add(*lo, *hi);
    } else {
      set.points.add(*lo);
    }
    return true;
  }

  std::string_view p_;
  const UnicodePropertyOracle* properties_;
  std::string& outside_;
  std::size_t i_ = 0;
};

// The whole program past the limit (the first reason found); false.
bool too_big(std::string& outside) {
  if (outside.empty()) {
    outside = "the pattern needs more than the linear-time matcher's " +
              std::to_string(kMaxRegexProgram) + " instructions";
  }
  return false;
}

class Emitter {
  using Instr = RegexProgram::Instr;
  using Op = RegexProgram::Op;

 public:
  Emitter(RegexProgram& program, std::string& outside) : program_(program), outside_(outside) {}

  // Appends the code of `node` to `code`; false (with a reason) when the
  // program would outgrow kMaxRegexProgram.
  bool emit(const Ast& node, std::vector<Instr>& code) {
    if (code.size() >= kMaxRegexProgram) return too_big(outside_);
    switch (node.kind) {
      case Ast::Kind::kSet:
        code.push_back({Op::kSet, static_cast<std::uint32_t>(program_.classes.size())});
        program_.classes.push_back(node.set);
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
      case Ast::Kind::kAlternate:
        return alternate(node, code);
      case Ast::Kind::kRepeat:
        return repeat(node, code);
    }
    return false;
  }

 private:
  static std::uint32_t here(const std::vector<Instr>& code) {
    return static_cast<std::uint32_t>(code.size());
  }

  bool repetition_too_big(const std::string& what, std::size_t at) {
    if (outside_.empty()) {
      outside_ = what + " (at byte " + std::to_string(at) +
                 ") needs more than the linear-time matcher's " + std::to_string(kMaxRegexProgram) +
                 " instructions";
    }
    return false;
  }

  // split L1, next; L1: a; jump end; next: split L2, next2; ...
  bool alternate(const Ast& node, std::vector<Instr>& code) {
    std::vector<std::size_t> jumps;
    for (std::size_t k = 0; k < node.children.size(); ++k) {
      const bool last = k + 1 == node.children.size();
      std::size_t split = 0;
      if (!last) {
        split = code.size();
        code.push_back({Op::kSplit});
        code[split].x = here(code);
      }
      if (!emit(node.children[k], code)) return false;
      if (!last) {
        jumps.push_back(code.size());
        code.push_back({Op::kJump});
        code[split].y = here(code);
      }
    }
    for (const std::size_t j : jumps) code[j].x = here(code);
    return true;
  }

  // The body is emitted once and copied (its jumps moved), so its classes are
  // shared and the size of the result is known before it is built.
  bool repeat(const Ast& node, std::vector<Instr>& code) {
    const Ast& body = node.children[0];
    if (body.kind >= Ast::Kind::kBegin) {  // "^*": an error with "u"
      if (outside_.empty()) outside_ = "a quantified assertion (at byte " + std::to_string(node.at) + ")";
      return false;
    }
    std::vector<Instr> once;
    if (!emit(body, once)) return false;
    if (once.empty()) return true;  // an empty body, repeated, is empty
    const std::size_t min = static_cast<std::size_t>(node.min);
    const bool unbounded = node.max < 0;
    const std::size_t optional = unbounded ? 1 : static_cast<std::size_t>(node.max) - min;
    const std::size_t needed = (min + optional) * once.size() + optional + (unbounded ? 1 : 0);
    if (code.size() + needed > kMaxRegexProgram) {
      return repetition_too_big("the repetition " + std::string(node.quantifier), node.at);
    }
    for (std::size_t k = 0; k < min; ++k) append(once, code);
    if (unbounded) {  // L: split body, end; body; jump L
      const std::size_t split = code.size();
      code.push_back({Op::kSplit, here(code) + 1});
      append(once, code);
      code.push_back({Op::kJump, static_cast<std::uint32_t>(split)});
      code[split].y = here(code);
      return true;
    }
    std::vector<std::size_t> splits;  // nested optionals: split body, end; body; split ...
    for (std::size_t k = 0; k < optional; ++k) {
      splits.push_back(code.size());
      code.push_back({Op::kSplit, here(code) + 1});
      append(once, code);
    }
    for (const std::size_t s : splits) code[s].y = here(code);
    return true;
  }

  // A copy of body's code at the end of code, its jump targets moved along.
  static void append(const std::vector<Instr>& body, std::vector<Instr>& code) {
    const std::uint32_t base = here(code);
    for (Instr in : body) {
      if (in.op == Op::kSplit || in.op == Op::kJump) in.x += base;
      if (in.op == Op::kSplit) in.y += base;
      code.push_back(in);
    }
  }

  RegexProgram& program_;
  std::string& outside_;
};

}  // namespace

std::shared_ptr<const RegexProgram> compile_regex_program(std::string_view pattern,
                                                          const UnicodePropertyOracle* properties,
                                                          std::string* outside) {
  std::string why;
  auto tree = Parser(pattern, properties, why).parse();
  auto program = std::make_shared<RegexProgram>();
  if (tree && Emitter(*program, why).emit(*tree, program->code) &&
      (program->code.size() < kMaxRegexProgram || !too_big(why))) {
    program->code.push_back({RegexProgram::Op::kMatch});
    program->anchored = program->code.front().op == RegexProgram::Op::kBegin;
    for (ClassSet& set : program->classes) set.finish(properties);
    return program;
  }
  if (outside) *outside = why.empty() ? "syntax beyond the linear-time subset" : std::move(why);
  return nullptr;
}

std::size_t regex_program_size(const RegexProgram& program) { return program.code.size(); }

bool regex_program_search(const RegexProgram& program, std::string_view s,
                          std::size_t* steps_left) {
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
  auto charge = [&] {
    if (!steps_left) return;
    if (steps > *steps_left) {
      throw std::length_error("the pattern needs more than the " +
                              std::to_string(kRegexStepsPerValidation) +
                              " matcher steps one validation may take");
    }
    *steps_left -= steps;
    steps = 0;
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
  charge();
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
    charge();
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

bool MatcherFirstEngine::search(const void* handle, const std::string& subject) const {
  std::size_t unlimited = static_cast<std::size_t>(-1);
  return search(handle, subject, unlimited);
}

bool MatcherFirstEngine::search(const void* handle, const std::string& subject,
                                std::size_t& steps_left) const {
  const auto& compiled = *static_cast<const MatcherFirstPattern*>(handle);
  if (subject.size() > kDefaultRegexMaxSubjectBytes) {
    throw std::length_error("the string is longer than the default regex engine's limit of " +
                            std::to_string(kDefaultRegexMaxSubjectBytes) + " bytes");
  }
  if (compiled.program) return regex_program_search(*compiled.program, subject, &steps_left);
  return search_behind(compiled.behind.get(), subject);
}

std::string MatcherFirstEngine::backtracking_reason(const void* handle) const {
  const auto& compiled = *static_cast<const MatcherFirstPattern*>(handle);
  return compiled.program ? std::string() : compiled.outside;
}

}  // namespace agui::schema_detail
