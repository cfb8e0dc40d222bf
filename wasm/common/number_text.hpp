// Numbers read from text and written as text, without libc's scanners and
// printf. The module links its own strtod, strtoull, strtoll and snprintf on
// these (bindings/libc_numbers.cpp) ahead of musl's: musl's scanner computes in
// 128-bit long double, which wasm does in software, and snprintf brings
// printf's whole engine, for the few plain formats nlohmann_json and the core
// ask for. Natively libc's are used and these are checked against them.
#pragma once

#include <cstdarg>
#include <cstddef>

namespace agui {

// strtol, strtoul, strtoll and strtoull, as Int is long ... unsigned long
// long: leading white space, a sign, base 2 to 36 (0: decimal, 0x... hex or
// 0... octal; 16 takes an optional 0x), errno set to ERANGE and the result
// clamped on overflow, a negative unsigned one negated modulo its range.
template <class Int>
Int read_integer(const char* text, char** end, int base);
extern template long read_integer<long>(const char*, char**, int);
extern template unsigned long read_integer<unsigned long>(const char*, char**, int);
extern template long long read_integer<long long>(const char*, char**, int);
extern template unsigned long long read_integer<unsigned long long>(const char*, char**, int);

// Correctly rounds the text of an unsigned decimal number (digits with an
// optional point, an optional exponent) that read_double could not.
using ExactDecimal = double (*)(const char* text, std::size_t length);

// strtod for decimal text: what it reads, how it rounds and when it sets errno
// to ERANGE (the number is too large, or nonzero and below the normal range)
// are strtod's.
// Hexadecimal floats, "inf" and "nan" are not read (`*end == text`): nothing
// the module reads holds them. Exact arithmetic decides most numbers
// (Clinger's fast path: at most 19 significant digits, a power of ten up to
// 22); `exact` decides the rest.
double read_double(const char* text, char** end, ExactDecimal exact);

// vsnprintf for integers, characters, strings and addresses: the conversions
// d i u o x X c s p and %, with the flags - 0 + and space, a width and a
// precision (either may be *), and the length modifiers hh h l ll j z t. Any
// other conversion (a float, %n) is written as it stands and takes no
// argument. Returns the length of the whole text, of which at most size - 1
// bytes are written, then a NUL.
int format_text(char* out, std::size_t size, const char* format, std::va_list args);

}  // namespace agui
