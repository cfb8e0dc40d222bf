// common/number_text.hpp: the strtod, strtoull, strtoll and snprintf the
// module links instead of musl's (bindings/libc_numbers.cpp, libc_printf.cpp),
// each checked against the libc of the build that runs it: glibc natively,
// musl in the wasm suite (which links libc's, not the module's).
#include "common/number_text.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int exact_calls = 0;

// The fallback as a native caller would give it: libc's strtod on the text.
double libc_exact(const char* text, std::size_t length) {
  ++exact_calls;
  return std::strtod(std::string(text, length).c_str(), nullptr);
}

struct Read {
  double value;
  std::ptrdiff_t used;
  int error;
};

Read ours(const char* text) {
  char* end = nullptr;
  errno = 0;
  const double v = agui::read_double(text, &end, libc_exact);
  return {v, end - text, errno};
}

std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

void expect_decimal(const char* text, double expected, std::ptrdiff_t used, int error = 0) {
  SCOPED_TRACE(text);
  const Read r = ours(text);
  EXPECT_EQ(bits(r.value), bits(expected)) << r.value << " != " << expected;
  EXPECT_EQ(r.used, used);
  EXPECT_EQ(r.error, error);
}

TEST(NumberText, DecimalsRoundAsTheCompilerDoes) {
  expect_decimal("0", 0.0, 1);
  expect_decimal("-0", -0.0, 2);
  expect_decimal("3.14", 3.14, 4);
  expect_decimal("  -2.5e-3,", -2.5e-3, 9);
  expect_decimal("+.5", 0.5, 3);
  expect_decimal("5.", 5.0, 2);
  expect_decimal("1e22", 1e22, 4);
  expect_decimal("1e23", 1e23, 4);  // not exact: the fallback rounds it
  expect_decimal("9007199254740993", 9007199254740993.0, 16);
  expect_decimal("0.1", 0.1, 3);
  expect_decimal("123456789012345678901234567890", 123456789012345678901234567890.0, 30);
  expect_decimal("2.2250738585072011e-308", 2.2250738585072011e-308, 23, ERANGE);  // subnormal
  expect_decimal("4.9406564584124654e-324", 4.9406564584124654e-324, 23, ERANGE);  // subnormal
  expect_decimal("1.7976931348623157e308", 1.7976931348623157e308, 22);
  expect_decimal("0.000000000000000000000000000001", 1e-30, 32);
  expect_decimal("1.000000000000000000000000000", 1.0, 29);
  expect_decimal("12e", 12.0, 2);  // an exponent without digits is not read
  expect_decimal("12e+", 12.0, 2);
  expect_decimal("0e999999999", 0.0, 11);
}

TEST(NumberText, DecimalsOutOfRangeSetErange) {
  expect_decimal("1e400", HUGE_VAL, 5, ERANGE);
  expect_decimal("-1e999999999999", -HUGE_VAL, 15, ERANGE);
  expect_decimal("1e-400", 0.0, 6, ERANGE);
  expect_decimal("0e-400", 0.0, 6);
}

TEST(NumberText, WhatIsNotADecimalIsNotRead) {
  for (const char* text : {"", " ", "-", "+.", ".", "e5", "x1", "inf", "nan", "0x1p3"}) {
    SCOPED_TRACE(text);
    const Read r = ours(text);
    // "0x1p3": strtod reads hex; ours reads the "0" and stops, as JSON does.
    if (std::strcmp(text, "0x1p3") == 0) {
      EXPECT_EQ(r.used, 1);
      continue;
    }
    EXPECT_EQ(r.used, 0);
    EXPECT_EQ(r.value, 0.0);
  }
}

TEST(NumberText, ExactArithmeticDecidesTheCommonNumbers) {
  exact_calls = 0;
  for (const char* text :
       {"3.14", "-0.5", "37.7749", "-122.4194", "1e10", "12345.678e-3", "0.0001", "100", "1.5e300"})
    ours(text);
  EXPECT_EQ(exact_calls, 1);  // 1.5e300 alone: its power of ten is not exact
}

// Random decimals of every shape against libc's strtod, bit for bit.
TEST(NumberText, DecimalsAgreeWithLibcStrtod) {
  std::mt19937_64 random(20261206);
  for (int n = 0; n < 200000; ++n) {
    std::string text = random() % 4 == 0 ? "-" : "";
    const int digits = 1 + static_cast<int>(random() % 25);
    const int point = static_cast<int>(random() % (digits + 1));
    for (int i = 0; i < digits; ++i) {
      if (i == point && i > 0) text += '.';
      text += static_cast<char>('0' + random() % 10);
    }
    if (random() % 2 == 0) text += "e" + std::to_string(static_cast<int>(random() % 700) - 350);
    char* end = nullptr;
    errno = 0;
    const double expected = std::strtod(text.c_str(), &end);
    const int expected_error = errno;
    SCOPED_TRACE(text);
    const Read r = ours(text.c_str());
    ASSERT_EQ(bits(r.value), bits(expected));
    ASSERT_EQ(r.used, end - text.c_str());
    // ERANGE on a subnormal result is the libc's choice (C17 7.22.1.3): glibc
    // and ours set it, musl not always. On overflow and underflow to 0 all do.
    if (std::isinf(expected) || expected == 0) {
      ASSERT_EQ(r.error, expected_error);
    }
  }
}

// "0x" with no hex digit after it: C17 7.22.1.4 reads the "0" alone, as glibc
// and ours do; musl leaves `end` after the "x".
bool bare_hex_prefix(const char* text, int base) {
  while (*text == ' ' || (*text >= '\t' && *text <= '\r')) ++text;
  return (base == 0 || base == 16) && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') &&
         !std::isxdigit(static_cast<unsigned char>(text[2]));
}

template <class Int>
void expect_integer_as_libc(const char* text, int base, Int (*libc)(const char*, char**, int)) {
  if (bare_hex_prefix(text, base)) {
    char* end = nullptr;
    EXPECT_EQ(agui::read_integer<Int>(text, &end, base), Int{0});
    EXPECT_EQ(end, std::strchr(text, '0') + 1);
    return;
  }
  char* theirs_end = nullptr;
  char* ours_end = nullptr;
  errno = 0;
  const Int theirs = libc(text, &theirs_end, base);
  const int their_error = errno;
  errno = 0;
  EXPECT_EQ(agui::read_integer<Int>(text, &ours_end, base), theirs);
  EXPECT_EQ(errno, their_error);
  EXPECT_EQ(ours_end, theirs_end);
}

TEST(NumberText, IntegersAgreeWithLibc) {
  const char* texts[] = {"",
                         " ",
                         "+",
                         "-",
                         "0",
                         "42",
                         "-42",
                         "  +17x",
                         "0x1f",
                         "0X",
                         "0x",
                         "0xg",
                         "077",
                         "089",
                         "zz",
                         "1_000",
                         "18446744073709551615",
                         "18446744073709551616",
                         "99999999999999999999999",
                         "-18446744073709551615",
                         "-9223372036854775808",
                         "-9223372036854775809",
                         "9223372036854775807",
                         "9223372036854775808",
                         "2147483647",
                         "2147483648",
                         "-2147483648",
                         "-2147483649",
                         "4294967295",
                         "4294967296",
                         "-4294967295",
                         "\t\n 12"};
  for (const char* text : texts) {
    for (const int base : {0, 2, 8, 10, 16, 36}) {
      SCOPED_TRACE(std::string(text) + " base " + std::to_string(base));
      expect_integer_as_libc<long>(text, base, std::strtol);
      expect_integer_as_libc<unsigned long>(text, base, std::strtoul);
      expect_integer_as_libc<long long>(text, base, std::strtoll);
      expect_integer_as_libc<unsigned long long>(text, base, std::strtoull);
    }
  }
}

// format_text and the libc's vsnprintf, on the same arguments.
struct Formatted {
  std::string text;
  int length;
};

Formatted format_with(bool use_ours, std::size_t size, const char* format, ...) {
  std::vector<char> out(size + 1, '#');
  std::va_list args;
  va_start(args, format);
  const int n = use_ours ? agui::format_text(out.data(), size, format, args)
                         : std::vsnprintf(out.data(), size, format, args);
  va_end(args);
  return {std::string(out.data(), out.size()), n};
}

#define EXPECT_FORMATS_AS_LIBC(size, ...)                      \
  do {                                                         \
    const Formatted o = format_with(true, size, __VA_ARGS__);  \
    const Formatted t = format_with(false, size, __VA_ARGS__); \
    EXPECT_EQ(o.text, t.text) << #__VA_ARGS__;                 \
    EXPECT_EQ(o.length, t.length) << #__VA_ARGS__;             \
  } while (0)

TEST(NumberText, FormatsAsLibcDoes) {
  EXPECT_FORMATS_AS_LIBC(64, "<U+%.4X>", 0x1fu);  // nlohmann's lexer
  EXPECT_FORMATS_AS_LIBC(64, "\\u%04x", 0x1f);    // nlohmann's serializer
  EXPECT_FORMATS_AS_LIBC(64, "\\u%04x\\u%04x", 0xd83d, 0xde00);
  EXPECT_FORMATS_AS_LIBC(64, "%.2hhX", 0x1ab);
  EXPECT_FORMATS_AS_LIBC(64, "%d|%i|%d|%d", 0, -1, INT_MIN, INT_MAX);
  EXPECT_FORMATS_AS_LIBC(64, "%5d|%-5d|%05d|%+d|% d|%+05d|%-+5d|", 42, 42, -42, 42, 42, -7, 7);
  EXPECT_FORMATS_AS_LIBC(64, "%.3d|%.0d|%5.3d|%05.3d|%.0x", 7, 0, -7, 7, 0u);
  EXPECT_FORMATS_AS_LIBC(64, "%u|%o|%x|%X", 4000000000u, 8u, 0xbeefu, 0xbeefu);
  EXPECT_FORMATS_AS_LIBC(64, "%ld|%lu|%lld|%llu", LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX);
  EXPECT_FORMATS_AS_LIBC(64, "%zu|%zd|%jd|%td", std::size_t{123}, std::ptrdiff_t{-5},
                         std::intmax_t{-6}, std::ptrdiff_t{9});
  EXPECT_FORMATS_AS_LIBC(64, "%hd|%hu|%hhd|%hhu", 70000, 70000, 300, 300);
  EXPECT_FORMATS_AS_LIBC(64, "%c|%3c|%-3c|", 'a', 'b', 'c');
  EXPECT_FORMATS_AS_LIBC(64, "%s|%5s|%-5s|%.2s|%*s|%-*s|%.*s", "abc", "ab", "ab", "abc", 4, "x", 4,
                         "y", 1, "zz");
  EXPECT_FORMATS_AS_LIBC(64, "%*d|%*d|%.*d", 4, 1, -4, 2, 3, 5);
  EXPECT_FORMATS_AS_LIBC(64, "100%% and %%d");
  EXPECT_FORMATS_AS_LIBC(5, "%s", "truncated");
  EXPECT_FORMATS_AS_LIBC(1, "%d", 12345);
  EXPECT_FORMATS_AS_LIBC(0, "%x", 0xabcu);
}

// %p is the libc's to choose (C17 7.21.6.1): ours writes "0x" and the address
// in hex, as glibc does for a non-null one; musl pads it to the pointer's width.
TEST(NumberText, AddressesAreWrittenInHex) {
  int here = 0;
  void* p = &here;
  const auto hex = format_with(
      false, 64, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
  const std::string want = hex.text.c_str();
  EXPECT_EQ(std::string(format_with(true, 64, "%p", p).text.c_str()), want);
  EXPECT_EQ(std::string(format_with(true, 64, "%-20p|", p).text.c_str()),
            want + std::string(20 - want.size(), ' ') + "|");
  EXPECT_EQ(std::string(format_with(true, 64, "%p", nullptr).text.c_str()), "0x0");
}

TEST(NumberText, AFormatItDoesNotKnowIsWrittenAsItStands) {
  const Formatted f = format_with(true, 64, "a %f b %5.2g c %n %", 1.5, 2.5, nullptr);
  EXPECT_EQ(std::string(f.text.c_str()), "a %f b %5.2g c %n %");
  EXPECT_EQ(f.length, 19);
}

}  // namespace
