// The module's snprintf and vsnprintf, linked ahead of musl's. Two calls in
// the module format text, both hexadecimal code units: nlohmann_json's lexer
// ("<U+%.4X>") and serializer ("\u%04x"). musl's snprintf would bring printf's
// whole engine with its float and long double paths; ours
// (common/number_text.hpp) knows integers, characters and strings. Only the
// module links this file: the wasm GoogleTest suite prints through libc's.
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

}  // extern "C"
