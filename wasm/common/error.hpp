// Errors as values. Every failure the core reports carries one of these codes, a
// message that names what was wrong and where, and never crosses the boundary as
// an exception. The codes are defined here once; the JS and .d.ts mirrors are
// checked against this list by a test.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace agui {

// X(enumerator, "wire name")
#define AGUI_ERROR_CODES(X)                 \
  X(kInvalidTool, "invalid_tool")           \
  X(kDuplicateTool, "duplicate_tool")       \
  X(kUnknownTool, "unknown_tool")           \
  X(kInvalidSchema, "invalid_schema")       \
  X(kInvalidJson, "invalid_json")           \
  X(kInvalidArgument, "invalid_argument")   \
  X(kInvalidState, "invalid_state")         \
  X(kWrongThread, "wrong_thread")           \
  X(kUnknownToolCall, "unknown_tool_call")  \
  X(kUnknownInterrupt, "unknown_interrupt") \
  X(kAlreadyAnswered, "already_answered")   \
  X(kLimitExceeded, "limit_exceeded")       \
  X(kProtocol, "protocol")                  \
  X(kTransport, "transport")                \
  X(kInternal, "internal")                  \
  X(kStorageFailed, "storage_failed") /* the shim's: a thread store failed */

enum class ErrorCode {
#define AGUI_X(id, wire) id,
  AGUI_ERROR_CODES(AGUI_X)
#undef AGUI_X
};

constexpr std::string_view to_string(ErrorCode code) {
  switch (code) {
#define AGUI_X(id, wire) \
  case ErrorCode::id: return wire;
    AGUI_ERROR_CODES(AGUI_X)
#undef AGUI_X
  }
  return "internal";
}

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};

inline Error make_error(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

// The result of an operation that either succeeds or fails with an Error.
using Status = std::optional<Error>;
inline constexpr std::nullopt_t kOk = std::nullopt;

}  // namespace agui
