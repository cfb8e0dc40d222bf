// Partial JSON, one byte at a time. See partial_json.hpp.
#include "protocol/partial_json.hpp"

#include "common/json_text.hpp"
#include "common/utf8.hpp"

namespace agui {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool in_number(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}
int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
// Bytes of the UTF-8 character a lead byte starts (1 for anything else: passed on as it is).
std::size_t utf8_length(unsigned char lead) {
  return lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
}
constexpr std::uint32_t kReplacement = 0xFFFD;

}  // namespace

bool PartialJson::feed(std::string_view piece) {
  if (failed()) return false;
  for (std::size_t i = 0; i < piece.size();) {
    if (const std::size_t run = plain_run(piece.substr(i))) {
      i += run;
      offset_ += run;
      continue;
    }
    if (!step(piece[i])) return false;
    ++i;
    ++offset_;
  }
  return true;
}

// Inside a string with nothing pending, the bytes up to the next quote,
// backslash or control byte are text: appended at once, but for a character
// the piece cuts short, which waits in pending_. Returns the bytes taken.
std::size_t PartialJson::plain_run(std::string_view rest) {
  if ((token_ != Token::kString && token_ != Token::kKeyString) || !escape_.empty() ||
      !pending_.empty() || high_ != 0)
    return 0;
  std::size_t n = 0;
  while (n < rest.size()) {
    const auto b = static_cast<unsigned char>(rest[n]);
    if (b == '"' || b == '\\' || b < 0x20) break;
    ++n;
  }
  // Back off to the start of a character the run cuts short.
  std::size_t whole = n;
  for (std::size_t k = 1; k <= 3 && k <= n; ++k) {
    const auto b = static_cast<unsigned char>(rest[n - k]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    if (b >= 0xC0 && utf8_length(b) > k) whole = n - k;
    break;
  }
  if (whole == 0) return 0;
  string_target().append(rest.data(), whole);
  return whole;
}

bool PartialJson::fail(std::string what) {
  error_ = std::move(what) + " at byte " + std::to_string(offset_);
  return false;
}

bool PartialJson::step(char c) {
  switch (token_) {
    case Token::kString:
    case Token::kKeyString: return string_byte(c);
    case Token::kNumber:
      if (in_number(c)) return text_ += c, true;
      return end_scalar(c);
    case Token::kLiteral: {
      text_ += c;
      const std::string_view word = text_[0] == 't' ? "true" : text_[0] == 'f' ? "false" : "null";
      if (word.substr(0, text_.size()) != text_)
        return fail("not a JSON literal ('" + text_ + "')");
      if (text_.size() == word.size()) {
        token_ = Token::kNone;
        op("v");
        ops_ += ',';
        ops_ += text_;
        ops_ += ']';
        after_value();
      }
      return true;
    }
    case Token::kNone: break;
  }
  if (is_space(c)) return true;
  switch (expect_) {
    case Expect::kValueOrEnd:
      if (c == ']') return close_container(c), true;
      return begin_value(c);
    case Expect::kValue: return begin_value(c);
    case Expect::kKeyOrEnd:
      if (c == '}') return close_container(c), true;
      [[fallthrough]];
    case Expect::kKey:
      if (c != '"') return fail("expected a member name in quotes");
      token_ = Token::kKeyString;
      text_.clear();
      return true;
    case Expect::kColon:
      if (c != ':') return fail("expected ':' after a member name");
      expect_ = Expect::kValue;
      return true;
    case Expect::kCommaOrEnd: {
      const bool object = stack_.back().object;
      if (c == ',') {
        expect_ = object ? Expect::kKey : Expect::kValue;
        return true;
      }
      if (c == (object ? '}' : ']')) return close_container(c), true;
      return fail(std::string("expected ',' or '") + (object ? '}' : ']') + "'");
    }
    case Expect::kNothing: return fail("text after the value");
  }
  return true;
}

bool PartialJson::begin_value(char c) {
  switch (c) {
    case '{':
    case '[':
      if (stack_.size() >= max_depth_) {
        return fail("arguments nest arrays and objects deeper than " + std::to_string(max_depth_) +
                    " levels");
      }
      op(c == '{' ? "{" : "[");
      ops_ += ']';
      stack_.push_back(Open{c == '{', {}});
      expect_ = c == '{' ? Expect::kKeyOrEnd : Expect::kValueOrEnd;
      return true;
    case '"':
      flush_string_op();
      string_op_ = StringOp::kStart;
      token_ = Token::kString;
      return true;
    case 't':
    case 'f':
    case 'n':
      token_ = Token::kLiteral;
      text_.assign(1, c);
      return true;
    default:
      if (c == '-' || (c >= '0' && c <= '9')) {
        token_ = Token::kNumber;
        text_.assign(1, c);
        return true;
      }
      return fail(std::string("unexpected character '") + c + "'");
  }
}

bool PartialJson::end_scalar(char c) {
  json number = parse_json(text_);
  if (number.is_discarded() || !(number.is_number() || number.is_null()))
    return fail("not a JSON number ('" + text_ + "')");
  token_ = Token::kNone;
  op("v");
  ops_ += ',';
  write_json(ops_, number);  // (null: a number past a double's range, as JSON.stringify writes it)
  ops_ += ']';
  after_value();
  return step(c);  // the byte that ended it is read as what comes next
}

// Writes `["name"` and, inside an object, `,"key"`; the caller writes the rest.
void PartialJson::op(std::string_view name) {
  flush_string_op();
  if (!ops_.empty()) ops_ += ',';
  ops_ += "[\"";
  ops_ += name;
  ops_ += '"';
  if (!stack_.empty() && stack_.back().object) {
    ops_ += ',';
    write_json_string(ops_, stack_.back().key);
  }
}

// The open (or just closed) string's pending operation, written out.
void PartialJson::flush_string_op() {
  if (string_op_ == StringOp::kNone || (string_op_ == StringOp::kAppend && tail_.empty())) return;
  if (string_op_ == StringOp::kStart) {
    string_op_ = StringOp::kNone;  // (so op() does not flush again)
    op("s");
  } else {
    if (!ops_.empty()) ops_ += ',';
    ops_ += "[\"+\"";
  }
  ops_ += ',';
  write_json_string(ops_, tail_);
  ops_ += ']';
  tail_.clear();
  string_op_ = token_ == Token::kString ? StringOp::kAppend : StringOp::kNone;
}

std::string PartialJson::take_ops() {
  flush_string_op();
  std::string out;
  out.reserve(ops_.size() + 2);
  out += '[';
  out += ops_;
  out += ']';
  ops_.clear();
  return out;
}

void PartialJson::close_container(char c) {
  flush_string_op();
  if (!ops_.empty()) ops_ += ',';
  ops_ += c == '}' ? "[\"}\"]" : "[\"]\"]";
  stack_.pop_back();
  after_value();
}

std::string& PartialJson::string_target() { return token_ == Token::kKeyString ? text_ : tail_; }

void PartialJson::after_value() {
  if (stack_.empty()) {
    done_ = true;
    expect_ = Expect::kNothing;
  } else {
    expect_ = Expect::kCommaOrEnd;
  }
}

bool PartialJson::string_byte(char c) {
  if (!escape_.empty()) return escape_byte(c);
  if (high_ != 0 && c != '\\') {  // a lone high surrogate
    high_ = 0;
    append_code_point(kReplacement);
  }
  const bool continuation = (static_cast<unsigned char>(c) & 0xC0) == 0x80;
  if (!pending_.empty() && !continuation) {  // a character cut short
    pending_.clear();
    append_code_point(kReplacement);
  }
  if (c == '\\') {
    escape_.assign(1, c);
    return true;
  }
  if (c == '"') {
    if (token_ == Token::kKeyString) {
      stack_.back().key = std::move(text_);
      expect_ = Expect::kColon;
    } else {
      token_ = Token::kNone;
      flush_string_op();
      after_value();
    }
    token_ = Token::kNone;
    return true;
  }
  if (static_cast<unsigned char>(c) < 0x20) return fail("a control character in a string");
  pending_ += c;
  if (pending_.size() >= utf8_length(static_cast<unsigned char>(pending_[0]))) flush_pending_utf8();
  return true;
}

bool PartialJson::escape_byte(char c) {
  if (escape_.size() == 1) {  // after the backslash
    if (c == 'u') return escape_ += c, true;
    if (high_ != 0) {
      high_ = 0;
      append_code_point(kReplacement);
    }
    static constexpr std::string_view from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
    const auto at = from.find(c);
    if (at == std::string_view::npos) return fail(std::string("bad escape '\\") + c + "'");
    escape_.clear();
    append_code_point(static_cast<unsigned char>(to[at]));
    return true;
  }
  if (hex(c) < 0) return fail("bad \\u escape");
  escape_ += c;
  if (escape_.size() < 6) return true;
  std::uint32_t cp = 0;
  for (std::size_t i = 2; i < 6; ++i) cp = cp * 16 + static_cast<std::uint32_t>(hex(escape_[i]));
  escape_.clear();
  const bool low = cp >= 0xDC00 && cp <= 0xDFFF;
  if (high_ != 0) {
    const std::uint32_t high = high_;
    high_ = 0;
    if (low) {
      append_code_point(0x10000 + ((high - 0xD800) << 10) + (cp - 0xDC00));
      return true;
    }
    append_code_point(kReplacement);
  }
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    high_ = cp;  // shown once its low half (or its absence) is known
  } else {
    append_code_point(low ? kReplacement : cp);
  }
  return true;
}

void PartialJson::flush_pending_utf8() {
  string_target() += pending_;
  pending_.clear();
}

void PartialJson::append_code_point(std::uint32_t cp) { append_utf8(string_target(), cp); }

}  // namespace agui
