// Compiles an ECMAScript pattern in the linear-time subset (see
// regex_vm.cpp) to a RegexProgram: a parser to a tree, then an
// emitter that expands counted repetition by copying its body's code, within
// kMaxRegexProgram instructions. A pattern outside the subset gets a reason
// naming the construct and its byte offset.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schema/internal/regex_program.hpp"

namespace agui::schema_detail {

namespace {

using Set = CodePointSet;
constexpr int kMaxNesting = 32;

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
        return make_set(
            (range(U'\n', U'\n') | range(U'\r', U'\r') | range(0x2028, 0x2029)).complement());
      case '(': return group(nesting);
      case '[': return klass();
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
      case 'd': return digits();
      case 'D': return digits().complement();
      case 'w': return words();
      case 'W': return words().complement();
      case 's': return spaces();
      case 'S': return spaces().complement();
      case 't': s.add(U'\t'); return s;
      case 'n': s.add(U'\n'); return s;
      case 'r': s.add(U'\r'); return s;
      case 'f': s.add(U'\f'); return s;
      case 'v': s.add(U'\v'); return s;
      case 'b':
        if (!in_class) return odd_syntax();
        s.add(U'\b');
        return s;
      case 'x':
      case 'u': return hex_escape(c, start);
      case 'k': return refuse("a named back-reference \\k<...>", start);
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
      if (!value)
        return refuse(std::string("the escape \\") + c + " without its hex digits", start);
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
      case Ast::Kind::kBegin: code.push_back({Op::kBegin}); return true;
      case Ast::Kind::kEnd: code.push_back({Op::kEnd}); return true;
      case Ast::Kind::kWordBoundary: code.push_back({Op::kWordBoundary}); return true;
      case Ast::Kind::kNotWordBoundary: code.push_back({Op::kNotWordBoundary}); return true;
      case Ast::Kind::kConcat:
        for (const Ast& child : node.children) {
          if (!emit(child, code)) return false;
        }
        return true;
      case Ast::Kind::kAlternate: return alternate(node, code);
      case Ast::Kind::kRepeat: return repeat(node, code);
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
      if (outside_.empty())
        outside_ = "a quantified assertion (at byte " + std::to_string(node.at) + ")";
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

}  // namespace agui::schema_detail
