#include "common/number_text.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>

namespace agui {
namespace {

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A character's value as a digit of any base up to 36, or 36 for none.
int digit_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 36;
}

const char* skip_sign(const char* p, bool* negative) {
  *negative = *p == '-';
  return *p == '-' || *p == '+' ? p + 1 : p;
}

// An integer's magnitude and sign as strtoull reads it; `end` is the first
// byte not read, or the text itself when no digit was.
struct ScannedInteger {
  const char* end;
  unsigned long long magnitude;
  bool negative;
  bool overflow;  // the magnitude is more than unsigned long long holds
};

ScannedInteger scan_integer(const char* text, int base) {
  ScannedInteger out{text, 0, false, false};
  const char* p = text;
  while (is_space(*p)) ++p;
  p = skip_sign(p, &out.negative);
  const bool hex_prefix = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && digit_value(p[2]) < 16;
  if ((base == 0 || base == 16) && hex_prefix) {
    p += 2;
    base = 16;
  } else if (base == 0) {
    base = *p == '0' ? 8 : 10;
  }
  if (base < 2 || base > 36) return out;
  const auto b = static_cast<unsigned long long>(base);
  const unsigned long long cutoff = std::numeric_limits<unsigned long long>::max() / b;
  const auto cutlim = static_cast<int>(std::numeric_limits<unsigned long long>::max() % b);
  const char* first = p;
  for (int d = digit_value(*p); d < base; d = digit_value(*++p)) {
    if (out.magnitude > cutoff || (out.magnitude == cutoff && d > cutlim)) out.overflow = true;
    out.magnitude = out.magnitude * b + static_cast<unsigned long long>(d);
  }
  if (p != first) out.end = p;
  return out;
}

}  // namespace

template <class Int>
Int read_integer(const char* text, char** end, int base) {
  using limits = std::numeric_limits<Int>;
  const ScannedInteger n = scan_integer(text, base);
  if (end != nullptr) *end = const_cast<char*>(n.end);
  const bool below = limits::is_signed && n.negative;
  const unsigned long long most = below ? 0 - static_cast<unsigned long long>(limits::min())
                                        : static_cast<unsigned long long>(limits::max());
  if (n.overflow || n.magnitude > most) {
    errno = ERANGE;
    return below ? limits::min() : limits::max();
  }
  if (!n.negative || n.magnitude == 0) return static_cast<Int>(n.magnitude);
  if (limits::is_signed) return static_cast<Int>(-static_cast<Int>(n.magnitude - 1) - 1);
  return static_cast<Int>(0 - n.magnitude);
}
template long read_integer<long>(const char*, char**, int);
template unsigned long read_integer<unsigned long>(const char*, char**, int);
template long long read_integer<long long>(const char*, char**, int);
template unsigned long long read_integer<unsigned long long>(const char*, char**, int);

namespace {

// The powers of ten a double holds exactly.
constexpr double kExactPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr int kMaxExactPower = 22;
constexpr std::uint64_t kExactMantissa = std::uint64_t{1} << 53;

// A decimal's significant digits (at most 19 of them, as an integer) and its
// power of ten; `dropped` when a nonzero digit did not fit.
struct Decimal {
  std::uint64_t digits = 0;
  int taken = 0;
  long power = 0;
  bool dropped = false;
  bool any = false;  // the mantissa has a digit at all
};

// Reads digits into `d`; `fraction` when they follow the point. Leading
// zeros are not significant; a digit past the 19th only moves the power.
const char* read_digits(const char* p, bool fraction, Decimal* d) {
  for (; is_digit(*p); ++p) {
    d->any = true;
    const int digit = *p - '0';
    if (d->taken < 19 && (d->taken > 0 || digit != 0)) {
      d->digits = d->digits * 10 + static_cast<std::uint64_t>(digit);
      ++d->taken;
      if (fraction) --d->power;
    } else if (d->taken == 0) {
      if (fraction) --d->power;  // a leading zero
    } else {
      d->dropped = d->dropped || digit != 0;
      if (!fraction) ++d->power;
    }
  }
  return p;
}

// Reads an exponent ("e-12") at p into *power, or leaves both when there is
// none. Exponents beyond any double's are clamped: the result is 0 or inf.
const char* read_exponent(const char* p, long* power) {
  if (*p != 'e' && *p != 'E') return p;
  bool negative = false;
  const char* q = skip_sign(p + 1, &negative);
  if (!is_digit(*q)) return p;
  long e = 0;
  for (; is_digit(*q); ++q) e = e < 100000 ? e * 10 + (*q - '0') : e;
  *power += negative ? -e : e;
  return q;
}

// The value by exact arithmetic (one correctly rounded operation), or false.
bool exact_value(Decimal d, double* value) {
  if (d.dropped) return false;
  if (d.digits == 0) {
    *value = 0;
    return true;
  }
  while (d.power > kMaxExactPower && d.digits <= kExactMantissa / 10) {
    d.digits *= 10;
    --d.power;
  }
  if (d.digits > kExactMantissa || d.power > kMaxExactPower || d.power < -kMaxExactPower)
    return false;
  const auto m = static_cast<double>(d.digits);
  *value = d.power >= 0 ? m * kExactPowers[d.power] : m / kExactPowers[-d.power];
  return true;
}

}  // namespace

double read_double(const char* text, char** end, ExactDecimal exact) {
  if (end != nullptr) *end = const_cast<char*>(text);
  const char* start = text;
  while (is_space(*start)) ++start;
  bool negative = false;
  const char* unsigned_start = skip_sign(start, &negative);
  Decimal d;
  const char* p = read_digits(unsigned_start, false, &d);
  if (*p == '.') p = read_digits(p + 1, true, &d);
  if (!d.any) return 0;
  p = read_exponent(p, &d.power);
  if (end != nullptr) *end = const_cast<char*>(p);
  double magnitude = 0;
  if (!exact_value(d, &magnitude))
    magnitude = exact(unsigned_start, static_cast<std::size_t>(p - unsigned_start));
  if (magnitude == std::numeric_limits<double>::infinity() ||
      (magnitude < std::numeric_limits<double>::min() && d.digits != 0))
    errno = ERANGE;
  return negative ? -magnitude : magnitude;
}

namespace {

// The bytes written so far, and how many would have been.
struct Sink {
  char* out;
  std::size_t size;
  std::size_t length = 0;
  void put(char c) {
    if (length + 1 < size) out[length] = c;
    ++length;
  }
  void put(const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) put(s[i]);
  }
  void pad(char c, int n) {
    for (; n > 0; --n) put(c);
  }
};

// One conversion's flags, width and precision (-1: none).
struct Spec {
  bool left = false, zero = false, plus = false, space = false;
  int width = 0, precision = -1;
  char length = 0;  // 'H' hh, 'h', 'l', 'L' ll (and j), 'z' (and t)
};

const char* read_spec(const char* f, std::va_list& args, Spec* s) {
  for (;; ++f) {
    if (*f == '-')
      s->left = true;
    else if (*f == '0')
      s->zero = true;
    else if (*f == '+')
      s->plus = true;
    else if (*f == ' ')
      s->space = true;
    else
      break;
  }
  if (*f == '*') {
    s->width = va_arg(args, int);
    if (s->width < 0) s->left = true, s->width = -s->width;
    ++f;
  }
  for (; is_digit(*f); ++f) s->width = s->width * 10 + (*f - '0');
  if (*f == '.') {
    ++f;
    s->precision = 0;
    if (*f == '*') {
      s->precision = va_arg(args, int);
      ++f;
    }
    for (; is_digit(*f); ++f) s->precision = s->precision * 10 + (*f - '0');
  }
  if (*f == 'h' || *f == 'l') {
    s->length = f[1] == *f ? (*f == 'h' ? 'H' : 'L') : *f;
    f += f[1] == *f ? 2 : 1;
  } else if (*f == 'j' || *f == 'z' || *f == 't') {
    s->length = *f == 'j' ? 'L' : 'z';
    ++f;
  }
  return f;
}

bool is_signed(char conversion) { return conversion == 'd' || conversion == 'i'; }

// The next argument of an integer conversion, as its magnitude and sign.
unsigned long long integer_arg(char conversion, const Spec& s, std::va_list& args, bool* negative) {
  if (!is_signed(conversion)) {
    unsigned long long u = s.length == 'L'   ? va_arg(args, unsigned long long)
                           : s.length == 'l' ? va_arg(args, unsigned long)
                           : s.length == 'z' ? va_arg(args, std::size_t)
                                             : va_arg(args, unsigned);
    if (s.length == 'H') u = static_cast<unsigned char>(u);
    if (s.length == 'h') u = static_cast<unsigned short>(u);
    *negative = false;
    return u;
  }
  long long v = s.length == 'L'   ? va_arg(args, long long)
                : s.length == 'l' ? va_arg(args, long)
                : s.length == 'z' ? va_arg(args, std::ptrdiff_t)
                                  : va_arg(args, int);
  if (s.length == 'H') v = static_cast<signed char>(v);
  if (s.length == 'h') v = static_cast<short>(v);
  *negative = v < 0;
  return *negative ? 0 - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
}

void put_integer(Sink& out, char conversion, const Spec& s, std::va_list& args) {
  bool negative = false;
  unsigned long long value = integer_arg(conversion, s, args, &negative);
  const unsigned base = conversion == 'o' ? 8 : (conversion == 'x' || conversion == 'X') ? 16 : 10;
  const char* digits = conversion == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  char buffer[24];
  int n = 0;
  for (; value != 0; value /= base) buffer[n++] = digits[value % base];
  const int shown = s.precision < 0 ? (n > 0 ? n : 1) : (n > s.precision ? n : s.precision);
  char sign = 0;
  if (negative)
    sign = '-';
  else if (is_signed(conversion) && s.plus)
    sign = '+';
  else if (is_signed(conversion) && s.space)
    sign = ' ';
  const int padding = s.width - shown - (sign != 0 ? 1 : 0);
  const bool zeros = s.zero && !s.left && s.precision < 0;
  if (!s.left && !zeros) out.pad(' ', padding);
  if (sign != 0) out.put(sign);
  if (zeros) out.pad('0', padding);
  out.pad('0', shown - n);
  while (n > 0) out.put(buffer[--n]);
  if (s.left) out.pad(' ', padding);
}

void put_text(Sink& out, const char* text, std::size_t n, const Spec& s) {
  const int padding = s.width - static_cast<int>(n);
  if (!s.left) out.pad(' ', padding);
  out.put(text, n);
  if (s.left) out.pad(' ', padding);
}

// %p: "0x" and the address in lowercase hex, as glibc and musl write it
// (a null pointer too: "0x0", where glibc writes "(nil)").
void put_pointer(Sink& out, const Spec& s, const void* pointer) {
  char text[2 + 2 * sizeof(std::uintptr_t)];
  auto value = reinterpret_cast<std::uintptr_t>(pointer);
  std::size_t n = sizeof text;
  do {
    text[--n] = "0123456789abcdef"[value % 16];
    value /= 16;
  } while (value != 0);
  text[--n] = 'x';
  text[--n] = '0';
  put_text(out, text + n, sizeof text - n, s);
}

}  // namespace

int format_text(char* out_bytes, std::size_t size, const char* format, std::va_list args_in) {
  std::va_list args;
  va_copy(args, args_in);
  Sink out{out_bytes, size};
  for (const char* f = format; *f != '\0'; ++f) {
    if (*f != '%') {
      out.put(*f);
      continue;
    }
    const char* start = f;
    Spec spec;
    f = read_spec(f + 1, args, &spec);
    if (*f == '%') {
      out.put('%');
    } else if (std::strchr("diuoxX", *f) != nullptr && *f != '\0') {
      put_integer(out, *f, spec, args);
    } else if (*f == 'c') {
      const char c = static_cast<char>(va_arg(args, int));
      put_text(out, &c, 1, spec);
    } else if (*f == 'p') {
      put_pointer(out, spec, va_arg(args, const void*));
    } else if (*f == 's') {
      const char* s = va_arg(args, const char*);
      std::size_t n = 0;
      while ((spec.precision < 0 || n < static_cast<std::size_t>(spec.precision)) && s[n] != '\0')
        ++n;
      put_text(out, s, n, spec);
    } else {  // not a conversion this formatter knows: written as it stands
      out.put(start, static_cast<std::size_t>(f - start) + (*f != '\0' ? 1 : 0));
      if (*f == '\0') break;
    }
  }
  va_end(args);
  if (size > 0) out_bytes[out.length < size ? out.length : size - 1] = '\0';
  return static_cast<int>(out.length);
}

}  // namespace agui
