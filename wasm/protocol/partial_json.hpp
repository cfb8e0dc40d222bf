// Partial JSON: a tool call's arguments while they stream. Fed the text in
// pieces, it says how the value the text so far implies grows, as a page draws
// it: open strings, arrays and objects closed; a half-written number or
// literal left out (and with it the member or element it would be); a key
// without its value yet left out; keys in the order they streamed.
//
// That value only ever grows on its right edge: a container opens, a value is
// placed in the innermost open container, the open string gets more text, the
// innermost container closes. So what changed since the last look is a short
// list of such operations (take_ops()), and the host replays them onto the
// value it holds: each byte is read once and crosses to the host once, so a
// call's arguments cost O(their length) in all, however they are split and
// however often they are looked at (re-parsing each prefix, as partial-json
// and untruncate-json do, costs O(n^2); handing out the whole value at each
// look costs the same).
//
// The operations, as a JSON array of arrays; `key` is there exactly when the
// innermost open container is an object:
//   ["{", key?]  ["[", key?]   open an object or an array, which becomes the innermost
//   ["v", key?, value]         place a number, true, false or null
//   ["s", key?, text]          place a string, which becomes the open string
//   ["+", text]                append to the open string
//   ["}"]  ["]"]               close the innermost container
//
// Text that stops being a JSON prefix is reported once (error()), and the
// value stays as it was before it. Strings are held as JSON.parse then
// JSON.stringify would hold them: a lone surrogate escape becomes U+FFFD, and
// a character split across pieces appears when its last byte does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agui {

class PartialJson {
 public:
  explicit PartialJson(std::size_t max_depth = 128) : max_depth_(max_depth) {}

  // Reads the next piece. False once the text is not the beginning of one
  // JSON value (then and after: nothing more is read).
  bool feed(std::string_view piece);

  // Whether the value grew since take_ops() last ran.
  bool has_ops() const { return !ops_.empty() || string_op_ == StringOp::kStart || !tail_.empty(); }
  // The operations since the last take, as a JSON array's text ("[]" for none).
  std::string take_ops();
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }  // what was wrong, and at which byte
  bool complete() const { return done_ && !failed(); }

 private:
  enum class Expect { kValue, kKeyOrEnd, kKey, kColon, kCommaOrEnd, kValueOrEnd, kNothing };
  enum class Token { kNone, kString, kKeyString, kNumber, kLiteral };
  struct Open {
    bool object;
    std::string key;  // an object's member waiting for its value
  };
  // The open string's operation not yet written: its "s" (with the text so
  // far), or a "+" of what it gained since the last take.
  enum class StringOp { kNone, kStart, kAppend };

  bool step(char c);
  std::size_t plain_run(std::string_view rest);
  bool begin_value(char c);
  bool string_byte(char c);
  bool escape_byte(char c);
  bool end_scalar(char c);         // a number or literal ends at `c`
  void op(std::string_view name);  // starts an operation: ["name", key?
  void flush_string_op();
  void close_container(char c);
  std::string& string_target();
  void after_value();
  void flush_pending_utf8();
  void append_code_point(std::uint32_t cp);
  bool fail(std::string what);

  std::string ops_;  // the operations written since the last take, comma-separated
  StringOp string_op_ = StringOp::kNone;
  std::string tail_;  // the open string's text not yet written to ops_
  std::vector<Open> stack_;
  Expect expect_ = Expect::kValue;
  Token token_ = Token::kNone;
  std::string text_;        // a key, or a number's or literal's characters so far
  std::string pending_;     // bytes of a UTF-8 character not yet whole
  std::string escape_;      // an escape not yet whole: "\\", "\\u12"...
  std::uint32_t high_ = 0;  // a high surrogate waiting for its low half
  bool done_ = false;
  std::size_t offset_ = 0;  // bytes read
  std::size_t max_depth_;
  std::string error_;
};

}  // namespace agui
