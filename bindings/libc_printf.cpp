// The module's snprintf, vsnprintf and sprintf, linked ahead of musl's. Two
// calls in the module format text, both hexadecimal code units: nlohmann_json's
// lexer ("<U+%.4X>") and serializer ("\u%04x"); a third, embind's sprintf("%p"),
// writes a type's address into an error that names an unbound type. musl's
// would bring printf's whole engine with its float and long double paths; ours
// (common/number_text.hpp) knows integers, characters, strings and addresses.
// Only the module links this file: the wasm GoogleTest suite prints through
// libc's.
#include <climits>
#include <cstdarg>
#include <cstddef>

#include "common/number_text.hpp"

extern "C" {

int vsnprintf(char* out, std::size_t size, const char* format, std::va_list args) {
  return agui::format_text(out, size, format, args);
}

int snprintf(char* out, std::size_t size, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const int n = agui::format_text(out, size, format, args);
  va_end(args);
  return n;
}

// sprintf, and siprintf, Emscripten's name for it when the format takes no
// float: embind's error path calls it. Defined here so that musl's member,
// which reaches its vsnprintf through internal names, is not linked.
int sprintf(char* out, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const int n = agui::format_text(out, INT_MAX, format, args);
  va_end(args);
  return n;
}

int siprintf(char* out, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const int n = agui::format_text(out, INT_MAX, format, args);
  va_end(args);
  return n;
}

}  // extern "C"
