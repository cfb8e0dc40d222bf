// UTF-8 repair as TextDecoder does it: one U+FFFD per maximal subpart. The
// expected strings are what node's TextDecoder printed for the same bytes.
#include "common/utf8.hpp"

#include <gtest/gtest.h>

namespace agui {
namespace {

const std::string R = "\xEF\xBF\xBD";  // U+FFFD

struct Case {
  std::string bytes, decoded;
  std::size_t replaced;
};

TEST(Utf8, RepairMatchesTextDecoder) {
  const Case cases[] = {
      {"plain ascii", "plain ascii", 0},
      {"\xF0\x9F\x8E\x89 ok", "\xF0\x9F\x8E\x89 ok", 0},
      {"\xFF", R, 1},
      {"\xC3\x28", R + "(", 1},
      {"\xE2\x82", R, 1},  // truncated at the end: one stretch
      {"\xE2\x82\x28", R + "(", 1},
      {"\xF0\x9F\x8E\x78", R + "x", 1},
      {"\xED\xA0\x80", R + R + R, 3},          // a surrogate
      {"\xC0\xAF", R + R, 2},                  // overlong
      {"\xF4\x90\x80\x80", R + R + R + R, 4},  // past U+10FFFF
      {"a\xFF\xC3\x28"
       "b",
       "a" + R + R + "(b", 2},
  };
  for (const auto& c : cases) {
    std::string text = c.bytes;
    EXPECT_EQ(repair_utf8(text), c.replaced) << c.bytes;
    EXPECT_EQ(text, c.decoded) << c.bytes;
    EXPECT_EQ(invalid_utf8_at(c.bytes).has_value(), c.replaced > 0) << c.bytes;
    EXPECT_FALSE(invalid_utf8_at(text).has_value()) << "repaired text is valid: " << c.bytes;
  }
  EXPECT_EQ(invalid_utf8_at("ab\xC3\x28"), 2u);
}

}  // namespace
}  // namespace agui
