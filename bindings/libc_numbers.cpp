// The module's strtod and integer scanners, linked ahead of musl's (objects of
// the module, bindings/CMakeLists.txt). musl reads every number through one
// scanner that computes in 128-bit long double, which wasm does in software:
// with the compiler-rt arithmetic it brings, 11 KB of the
// gzipped module together with printf (docs/size.md), for nlohmann_json's
// lexer and json_pointer, the only callers. Ours (common/number_text.hpp) read
// a decimal by exact arithmetic when one correctly rounded operation decides
// it, as it does nearly every number a stream holds, and otherwise ask the
// host's Number(). ECMA-262 asks that to round correctly up to 20 significant
// digits; V8, SpiderMonkey and JavaScriptCore round every decimal correctly.
// The wasm GoogleTest suite keeps musl's and checks number_text against it;
// the node tests check the module's numbers against JSON.parse.
#include <emscripten.h>

#include <cstddef>
#include <cstdlib>

#include "common/number_text.hpp"

// The text is a decimal's ASCII bytes, read as they are.
// clang-format off
EM_JS(double, agui_host_number, (const char* text, int length), {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(HEAPU8[text + i]);
  return Number(s);
});
// clang-format on

namespace {

double host_number(const char* text, std::size_t length) {
  return agui_host_number(text, static_cast<int>(length));
}

}  // namespace

extern "C" {

double strtod(const char* text, char** end) { return agui::read_double(text, end, host_number); }

unsigned long long strtoull(const char* text, char** end, int base) {
  return agui::read_integer<unsigned long long>(text, end, base);
}

long long strtoll(const char* text, char** end, int base) {
  return agui::read_integer<long long>(text, end, base);
}

// The rest of what musl's strtol.o and strtod.o define that the module can
// reference (libc++'s string.o, which std::to_string brings, names them all
// for its std::stoi ... std::stold): were one left to musl, its member would
// be linked, and it defines the ones above too. Nothing in the module calls
// these, so the linker drops them, and the size table shows they are gone.
long strtol(const char* text, char** end, int base) {
  return agui::read_integer<long>(text, end, base);
}

unsigned long strtoul(const char* text, char** end, int base) {
  return agui::read_integer<unsigned long>(text, end, base);
}

// Reading a float or a long double needs its own rounding, which only
// std::stof and std::stold would ask for: refused rather than rounded twice.
float strtof(const char*, char**) { std::abort(); }
long double strtold(const char*, char**) { std::abort(); }

}  // extern "C"
