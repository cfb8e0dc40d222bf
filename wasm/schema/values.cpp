// JSON values as JSON Schema sees them: the seven type names, numbers compared
// exactly across nlohmann's integer/unsigned/float kinds, multipleOf with
// floating-point care, and depth-bounded equality and hashing (1 == 1.0).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "schema/internal/program.hpp"

namespace agui::schema_detail {

std::uint8_t type_bits(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return kNullBit;
    case json::value_t::boolean: return kBooleanBit;
    case json::value_t::object: return kObjectBit;
    case json::value_t::array: return kArrayBit;
    case json::value_t::string: return kStringBit;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return kNumberBit | kIntegerBit;
    case json::value_t::number_float: {
      const double d = value.get<double>();
      return std::isfinite(d) && std::floor(d) == d ? kNumberBit | kIntegerBit : kNumberBit;
    }
    default: return 0;  // binary, discarded: never valid
  }
}

std::string describe_types(std::uint8_t bits) {
  // "number" covers "integer": say only the wider one.
  if (bits & kNumberBit) bits = static_cast<std::uint8_t>(bits & ~kIntegerBit);
  static constexpr std::pair<std::uint8_t, const char*> kNames[] = {
      {kArrayBit, "array"},   {kBooleanBit, "boolean"}, {kIntegerBit, "integer"},
      {kNumberBit, "number"}, {kObjectBit, "object"},   {kStringBit, "string"},
      {kNullBit, "null"},  // last: "string or null" reads best
  };
  std::vector<const char*> names;
  for (const auto& [bit, name] : kNames) {
    if (bits & bit) names.push_back(name);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

const char* type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::object: return "object";
    case json::value_t::array: return "array";
    case json::value_t::string: return "string";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "number";
    default: return "binary";
  }
}

Num Num::of(const json& number) {
  Num n;
  if (number.is_number_unsigned()) {
    n.kind = Kind::kUint;
    n.u = number.get<std::uint64_t>();
    n.d = static_cast<double>(n.u);
  } else if (number.is_number_integer()) {
    n.kind = Kind::kInt;
    n.i = number.get<std::int64_t>();
    n.d = static_cast<double>(n.i);
  } else {
    n.kind = Kind::kFloat;
    n.d = number.get<double>();
  }
  return n;
}

namespace {

template <typename T>
int three_way(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// An int64 against a double, exactly (no rounding of i to double).
int compare_int_double(std::int64_t i, double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  const double f = std::floor(d);
  const auto fi = static_cast<std::int64_t>(f);
  if (i != fi) return three_way(i, fi);
  return f == d ? 0 : -1;
}

int compare_uint_double(std::uint64_t u, double d) {
  if (std::isnan(d)) return 0;
  if (d < 0) return 1;
  if (d >= 18446744073709551616.0) return -1;
  const double f = std::floor(d);
  const auto fu = static_cast<std::uint64_t>(f);
  if (u != fu) return three_way(u, fu);
  return f == d ? 0 : -1;
}

}  // namespace

int compare(const Num& a, const Num& b) {
  using K = Num::Kind;
  if (a.kind == K::kFloat && b.kind == K::kFloat) return three_way(a.d, b.d);
  if (a.kind == K::kFloat) return -compare(b, a);
  // a is an integer.
  if (b.kind == K::kFloat) {
    return a.kind == K::kInt ? compare_int_double(a.i, b.d) : compare_uint_double(a.u, b.d);
  }
  if (a.kind == K::kInt && b.kind == K::kInt) return three_way(a.i, b.i);
  if (a.kind == K::kUint && b.kind == K::kUint) return three_way(a.u, b.u);
  if (a.kind == K::kInt) return a.i < 0 ? -1 : three_way(static_cast<std::uint64_t>(a.i), b.u);
  return b.i < 0 ? 1 : three_way(a.u, static_cast<std::uint64_t>(b.i));
}

bool is_multiple_of(const Num& value, const Num& divisor) {
  using K = Num::Kind;
  if (value.kind != K::kFloat && divisor.kind != K::kFloat) {
    // Exact: |value| % divisor (divisor > 0 was checked at compile time).
    const std::uint64_t magnitude = value.kind == K::kUint ? value.u
                                    : value.i < 0 ? static_cast<std::uint64_t>(-(value.i + 1)) + 1
                                                  : static_cast<std::uint64_t>(value.i);
    const std::uint64_t d =
        divisor.kind == K::kUint ? divisor.u : static_cast<std::uint64_t>(divisor.i);
    return d != 0 && magnitude % d == 0;
  }
  // Both decimal literals were rounded to doubles (half an ulp each) and the
  // division adds half an ulp: a true multiple gives a quotient within a few
  // ulps of an integer. 0.0075 / 0.0001 is 74.99999999999999, which passes;
  // 0.00751 / 0.0001 is 75.1, which does not. A quotient that overflows
  // (1e308 / 0.123) is no multiple.
  const double q = value.d / divisor.d;
  if (!std::isfinite(q)) return false;
  const double r = std::nearbyint(q);
  return std::fabs(q - r) <= 8 * DBL_EPSILON * std::fabs(q);
}

int json_equal(const json& a, const json& b, std::size_t max_depth) {
  if (a.is_number() && b.is_number()) return compare(Num::of(a), Num::of(b)) == 0 ? 1 : 0;
  if (a.type() != b.type()) return 0;
  switch (a.type()) {
    case json::value_t::array: {
      if (a.size() != b.size()) return 0;
      if (a.empty()) return 1;
      if (max_depth == 0) return -1;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const int eq = json_equal(a[i], b[i], max_depth - 1);
        if (eq != 1) return eq;
      }
      return 1;
    }
    case json::value_t::object: {
      if (a.size() != b.size()) return 0;
      if (a.empty()) return 1;
      if (max_depth == 0) return -1;
      // Objects keep their members in the order received: equal objects may
      // list them differently, so each member of a is looked up in b.
      for (auto ia = a.begin(); ia != a.end(); ++ia) {
        const auto ib = b.find(ia.key());
        if (ib == b.end()) return 0;
        const int eq = json_equal(ia.value(), ib.value(), max_depth - 1);
        if (eq != 1) return eq;
      }
      return 1;
    }
    case json::value_t::string:
      return a.get_ref<const std::string&>() == b.get_ref<const std::string&>() ? 1 : 0;
    case json::value_t::boolean: return a.get<bool>() == b.get<bool>() ? 1 : 0;
    case json::value_t::null: return 1;
    default: return a == b ? 1 : 0;
  }
}

std::size_t json_hash(const json& value, std::size_t max_depth) {
  auto mix = [](std::size_t seed, std::size_t h) {
    return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  };
  switch (value.type()) {
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: {
      // Hash every number by its double value so that 1 and 1.0 collide; large
      // integers that round alike are told apart by json_equal.
      const double d = Num::of(value).d;
      return std::hash<double>{}(d == 0 ? 0.0 : d);
    }
    case json::value_t::string:
      return std::hash<std::string>{}(value.get_ref<const std::string&>());
    case json::value_t::boolean: return value.get<bool>() ? 0x51 : 0x50;
    case json::value_t::null: return 0x4e;
    case json::value_t::array: {
      std::size_t seed = 0x41 + value.size();
      if (max_depth == 0) return seed;
      for (const auto& item : value) seed = mix(seed, json_hash(item, max_depth - 1));
      return seed;
    }
    case json::value_t::object: {
      // Member order does not make objects unequal, so it must not change the
      // hash: each member is hashed on its own and the sum taken.
      std::size_t seed = 0x4f + value.size();
      if (max_depth == 0) return seed;
      std::size_t members = 0;
      for (auto it = value.begin(); it != value.end(); ++it) {
        members += mix(std::hash<std::string>{}(it.key()), json_hash(it.value(), max_depth - 1));
      }
      return mix(seed, members);
    }
    default: return 0;
  }
}

std::size_t json_depth(const json& value, std::size_t limit) {
  if (!value.is_structured() || value.empty()) return value.is_structured() ? 1 : 0;
  if (limit == 0) return 1;
  std::size_t deepest = 0;
  for (const auto& child : value) {
    const std::size_t d = json_depth(child, limit - 1);
    if (d > deepest) deepest = d;
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

void append_pointer_token(std::string& out, std::string_view token) {
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

}  // namespace agui::schema_detail
