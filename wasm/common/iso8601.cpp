// ISO 8601 date-times into epoch milliseconds. See iso8601.hpp.
#include "common/iso8601.hpp"

#include <cstdint>

namespace agui {

namespace {

// Reads exactly `n` digits at text[i], advancing i.
std::optional<int> digits(std::string_view text, std::size_t& i, std::size_t n) {
  if (text.size() < i + n) return std::nullopt;
  int value = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const char c = text[i + k];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  i += n;
  return value;
}

bool take(std::string_view text, std::size_t& i, char c) {
  if (i < text.size() && text[i] == c) return ++i, true;
  return false;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<std::int64_t> year(std::string_view text, std::size_t& i) {
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    const bool negative = text[i++] == '-';
    const auto y = digits(text, i, 6);
    if (!y || (negative && *y == 0)) return std::nullopt;  // -000000 is not a year
    return negative ? -*y : *y;
  }
  return digits(text, i, 4);
}

// "Z", "+HH:MM" or "-HH:MM" in minutes east of UTC; nothing: UTC.
std::optional<int> offset_minutes(std::string_view text, std::size_t& i) {
  if (i == text.size()) return 0;
  if (take(text, i, 'Z') || take(text, i, 'z')) return 0;
  if (text[i] != '+' && text[i] != '-') return std::nullopt;
  const int sign = text[i++] == '-' ? -1 : 1;
  const auto h = digits(text, i, 2);
  if (!h || !take(text, i, ':')) return std::nullopt;
  const auto m = digits(text, i, 2);
  if (!m || *h > 23 || *m > 59) return std::nullopt;
  return sign * (*h * 60 + *m);
}

}  // namespace

std::optional<double> parse_iso8601_ms(std::string_view text) {
  std::size_t i = 0;
  const auto y = year(text, i);
  if (!y) return std::nullopt;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0;
  if (take(text, i, '-')) {
    const auto m = digits(text, i, 2);
    if (!m || *m < 1 || *m > 12) return std::nullopt;
    month = *m;
    if (take(text, i, '-')) {
      const auto d = digits(text, i, 2);
      if (!d || *d < 1 || *d > 31) return std::nullopt;
      day = *d;
    }
  }
  int offset = 0;
  if (take(text, i, 'T') || take(text, i, 't')) {
    const auto h = digits(text, i, 2);
    if (!h || !take(text, i, ':')) return std::nullopt;
    const auto m = digits(text, i, 2);
    if (!m || *h > 24 || *m > 59) return std::nullopt;
    hour = *h;
    minute = *m;
    if (take(text, i, ':')) {
      const auto s = digits(text, i, 2);
      if (!s || *s > 59) return std::nullopt;
      second = *s;
      if (take(text, i, '.')) {
        std::size_t n = 0;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++n) {
          if (n < 3) millis = millis * 10 + (text[i] - '0');
        }
        if (n == 0) return std::nullopt;
        for (; n < 3; ++n) millis *= 10;
      }
    }
    if (hour == 24 && (minute != 0 || second != 0 || millis != 0)) return std::nullopt;
    const auto o = offset_minutes(text, i);
    if (!o) return std::nullopt;
    offset = *o;
  }
  if (i != text.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(*y, month, day);
  const std::int64_t ms =
      ((days * 24 + hour) * 60 + minute - offset) * 60000 + std::int64_t{second} * 1000 + millis;
  return static_cast<double>(ms);
}

}  // namespace agui
