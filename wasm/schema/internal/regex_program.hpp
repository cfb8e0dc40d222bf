// The linear-time regex matcher's program (regex_parse.cpp builds
// it, regex_vm.cpp runs it): sets of code points, character
// classes, and the NFA's instructions. Nothing here is public API.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "common/utf8.hpp"
#include "schema/internal/program.hpp"

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
// The code point at s[pos], and how many bytes it takes. An invalid stretch
// is one U+FFFD, as TextDecoder (the host's RegExp's view) reads it.
inline std::pair<char32_t, std::size_t> code_point_at(std::string_view s, std::size_t pos) {
  const auto lead = static_cast<unsigned char>(s[pos]);
  if (lead < 0x80) return {lead, 1};
  const Utf8Sequence seq = utf8_sequence_at(s, pos);
  if (!seq.valid) return {kNotACodePoint, seq.length};
  char32_t cp = lead & (0x7F >> seq.length);
  for (std::size_t k = 1; k < seq.length; ++k) cp = cp << 6 | (s[pos + k] & 0x3F);
  return {cp, seq.length};
}

}  // namespace agui::schema_detail
