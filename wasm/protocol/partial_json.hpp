// Partial JSON: a tool call's arguments while they stream. Fed the text in
// pieces, it keeps the value the text so far implies, as a page draws it:
// open strings, arrays and objects closed; a half-written number or literal
// left out (and with it the member or element it would be); a key without
// its value yet left out; keys in the order they streamed. Each byte is read
// once and the value is grown in place, so a call's arguments cost O(their
// length) in all, however they are split (re-parsing each prefix, as
// partial-json and untruncate-json do, costs O(n^2)).
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

#include "common/json.hpp"

namespace agui {

class PartialJson {
 public:
  explicit PartialJson(std::size_t max_depth = 128) : max_depth_(max_depth) {}
  // It holds pointers into its own value: never copied or moved.
  PartialJson(const PartialJson&) = delete;
  PartialJson& operator=(const PartialJson&) = delete;

  // Reads the next piece. False once the text is not the beginning of one
  // JSON value (then and after: nothing more is read).
  bool feed(std::string_view piece);

  const json& value() const { return root_; }
  // Whether value() changed since the last call (so a step hands it out once).
  bool take_changed() {
    const bool was = changed_;
    changed_ = false;
    return was;
  }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }  // what was wrong, and at which byte
  bool complete() const { return done_ && !failed(); }

 private:
  enum class Expect { kValue, kKeyOrEnd, kKey, kColon, kCommaOrEnd, kValueOrEnd, kNothing };
  enum class Token { kNone, kString, kKeyString, kNumber, kLiteral };
  struct Open {
    json* container;  // an array or object inside root_
    std::string key;  // an object's member waiting for its value
  };

  bool step(char c);
  std::size_t plain_run(std::string_view rest);
  bool begin_value(char c);
  bool string_byte(char c);
  bool escape_byte(char c);
  bool end_scalar(char c);  // a number or literal ends at `c`
  void place(json value);   // where a value begins: root, array element or member
  json* place_open(json value);
  void close_container();
  void after_value();
  void flush_pending_utf8();
  void append_code_point(std::uint32_t cp);
  bool fail(std::string what);

  json root_;
  std::vector<Open> stack_;
  Expect expect_ = Expect::kValue;
  Token token_ = Token::kNone;
  json* string_ = nullptr;  // the value string being read (inside root_)
  std::string text_;        // a key, or a number's or literal's characters so far
  std::string pending_;     // bytes of a UTF-8 character not yet whole
  std::string escape_;      // an escape not yet whole: "\\", "\\u12"...
  std::uint32_t high_ = 0;  // a high surrogate waiting for its low half
  bool done_ = false;
  bool changed_ = false;
  std::size_t offset_ = 0;  // bytes read
  std::size_t max_depth_;
  std::string error_;
};

}  // namespace agui
