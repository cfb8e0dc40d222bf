// The hot path's JSON text helpers, each held to what nlohmann_json does with
// the same text: the flat reader takes only what the parser would take (and
// decodes it the same), the writer writes what dump() writes.
#include "common/json_text.hpp"

#include <gtest/gtest.h>

#include "common/json.hpp"

namespace agui {
namespace {

using json = agui::json;

// The members read, decoded, as a JSON object (empty when the reader declined).
json read(std::string_view text) {
  FlatMember members[4];
  const std::size_t n = read_flat_string_object(text, members, 4);
  json out = json::object();
  for (std::size_t i = 0; i < n; ++i) {
    std::string value;
    if (members[i].escaped) {
      if (!unescape_json_string(members[i].raw, value)) return json{{"undecodable", true}};
    } else {
      value = std::string(members[i].raw);
    }
    out[std::string(members[i].key)] = value;
  }
  return out;
}

TEST(JsonText, ReadsAFlatObjectOfStrings) {
  const std::string text = R"({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"})";
  EXPECT_EQ(read(text), json::parse(text));
  const std::string spaced = " \t{ \"a\" :\r\n \"x\" , \"b\":\"\" }\n";
  EXPECT_EQ(read(spaced), json::parse(spaced));
}

TEST(JsonText, DecodesEscapesAsTheParserDoes) {
  for (const char* text : {
           R"({"d":"quote \" backslash \\ slash \/"})",
           R"({"d":"\b\f\n\r\t"})",
           R"({"d":"\u00e9\u20AC \u0000 end"})",
           R"({"d":"pair \ud83d\ude00 done"})",
           "{\"d\":\"raw UTF-8: \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}",
       }) {
    SCOPED_TRACE(text);
    EXPECT_EQ(read(text), json::parse(text));
  }
}

TEST(JsonText, DeclinesWhatIsNotAFlatStringObject) {
  // Each is either not JSON or not flat strings: the reader must not take it,
  // so that the full parser says what is wrong (or applies it in full).
  for (const char* text : {
           "",
           "{}",
           "[]",
           R"("s")",
           R"({"a":1})",
           R"({"a":"x","b":null})",
           R"({"a":{"b":"c"}})",
           R"({"a":["x"]})",
           R"({"a":"x",})",
           R"({"a":"x"} x)",
           R"({"a":"x"}{})",
           R"({"a" "x"})",
           R"({"a":"x" "b":"y"})",
           R"({a:"x"})",
           R"({"a":"x)",
           R"({"a\u0062":"x"})",
           R"({"a":"x","a":"y"})",
           "{\"a\":\"tab\there\"}",
           "{\"a\":\"nl\nhere\"}",
           R"({"a":"x","b":"y","c":"z","d":"w","e":"v"})",  // over the capacity (4)
           "{\"a\":\"\xc3(\"}",
           "{\"a\":\"\xed\xa0\x80\"}",
           "{\"\xff\":\"x\"}",  // not UTF-8
       }) {
    SCOPED_TRACE(text);
    FlatMember members[4];
    EXPECT_EQ(read_flat_string_object(text, members, 4), 0u);
  }
}

TEST(JsonText, RefusesTheEscapesTheParserRefuses) {
  for (const char* raw : {R"(\x)", R"(\u12)", R"(\u12g4)", R"(\ud83d)", R"(\ud83d\u0041)",
                          R"(\ude00)", R"(\ud83d\n)", "\\"}) {
    SCOPED_TRACE(raw);
    std::string out;
    EXPECT_FALSE(unescape_json_string(raw, out));
    const std::string text = std::string("\"") + raw + "\"";
    EXPECT_TRUE(json::parse(text, nullptr, false).is_discarded());
  }
}

TEST(JsonText, WritesStringsAsDumpDoes) {
  std::string every_ascii;
  for (int c = 0; c < 0x80; ++c) every_ascii += static_cast<char>(c);
  for (const std::string& text :
       {std::string(), std::string("plain"), every_ascii,
        std::string("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \x7f"), std::string("a\0b", 3)}) {
    std::string out;
    EXPECT_TRUE(append_json_string(out, text));
    EXPECT_EQ(out, json(text).dump());
    EXPECT_EQ(json::parse(out), json(text));
  }
}

TEST(JsonText, WritesValuesAsDumpDoes) {
  const json values[] = {
      json::parse(R"({"kind":"tool_result","message":{"content":"{\"rows\":[1,2]}","id":"r1",
                     "role":"tool","toolCallId":"c1"},"n":[1,-2,3.5,1e300,0.1,18446744073709551615,
                     true,false,null,[],{}],"z":"\u00e9\n"})"),
      json("\xff not UTF-8 \xed\xa0\x80 (a surrogate) \xc3"),  // replaced, as dump's replace
                                                               // handler does
      json{{"bad \xfe key", "v"}},
      json(-0.0),
      json(1.0),
      json(123456789012345678),
      json::array(),
      json::object(),
      json(nullptr),
  };
  for (const auto& v : values) {
    const std::string expected = v.dump(-1, ' ', false, json::error_handler_t::replace);
    EXPECT_EQ(dump_json(v), expected);
  }
}

TEST(JsonText, TheWordAtATimeScanSeesEveryByteAtEveryOffset) {
  // Both the writer and the flat reader skip eight plain bytes at a time: put
  // each kind of byte they must stop at (and some they must not) at every
  // offset of strings around a word long, and hold both to nlohmann.
  const std::string marks[] = {
      std::string(1, '\0'), "\x1f", " ",   "\"", "\\", "\x7f", "~", "\xc3\xa9", "\xe2\x82\xac",
      "\xf0\x9f\x98\x80",   "\xff", "\xc3"};
  for (std::size_t len = 0; len <= 20; ++len) {
    for (std::size_t pos = 0; pos <= len; ++pos) {
      for (const auto& mark : marks) {
        const std::string text = std::string(pos, 'a') + mark + std::string(len - pos, 'b');
        const json parsed = json::parse("\"" + text + "\"", nullptr, false);
        std::string out;
        const bool valid = append_json_string(out, text);
        SCOPED_TRACE(::testing::Message()
                     << "len " << len << " pos " << pos << " mark "
                     << json(mark).dump(-1, ' ', false, json::error_handler_t::replace));
        if (!valid) {
          EXPECT_EQ(out, "");
          // nlohmann's decoder finds the same text invalid (strict dump() would
          // throw, which the core, built without exceptions, never lets it do).
          EXPECT_NE(
              json(text).dump(-1, ' ', false, json::error_handler_t::replace).find("\xEF\xBF\xBD"),
              std::string::npos);
          continue;
        }
        EXPECT_EQ(out, json(text).dump());
        // The reader takes the raw text exactly when the parser does.
        const std::string object = R"({"k":")" + text + R"("})";
        if (parsed.is_discarded()) {
          EXPECT_EQ(read(object), json::object());
        } else {
          EXPECT_EQ(read(object), (json{{"k", parsed}}));
        }
        // And it reads back what was written.
        EXPECT_EQ(read(R"({"k":)" + out + "}"), (json{{"k", text}}));
      }
    }
  }
}

TEST(JsonText, RefusesToWriteTextThatIsNotUtf8) {
  std::string out = "kept";
  EXPECT_FALSE(append_json_string(out, "ok \xc3("));
  EXPECT_EQ(out, "kept");  // nothing appended
}

TEST(JsonText, RefusesANulByteOrALeadingBomAsJsonParseDoes) {
  // nlohmann stops at the NUL and reads the first value; it skips the BOM.
  constexpr char kNul[] = "{\"amount\":1}\0{\"amount\":1000000}";
  EXPECT_TRUE(parse_json(std::string_view(kNul, sizeof kNul - 1)).is_discarded());
  EXPECT_TRUE(parse_json(std::string_view("{\"a\":1}\0", 8)).is_discarded());
  EXPECT_TRUE(parse_json("\xEF\xBB\xBF{\"amount\":1}").is_discarded());
  // An escaped NUL is text, and a BOM inside a string is a character.
  EXPECT_EQ(parse_json(R"({"a":"\u0000"})")["a"], std::string(1, '\0'));
  EXPECT_EQ(parse_json("[\"\xEF\xBB\xBF\"]")[0], "\xEF\xBB\xBF");
}

TEST(JsonText, FindsAStringMemberAtTheTopLevelOnly) {
  const char* text =
      R"({"m":{"delta":"no"},"n":[1,"delta",{"a":"}"}],"k":2, "delta" : "y\"es","z":true})";
  EXPECT_EQ(raw_string_member(text, "delta"), std::optional<std::string_view>(R"(y\"es)"));
  EXPECT_EQ(raw_string_member(R"({"delta":"a","delta":"b"})", "delta"),
            std::optional<std::string_view>("b"));
  EXPECT_EQ(raw_string_member(R"({"delta":5})", "delta"), std::nullopt);
  EXPECT_EQ(raw_string_member(R"(["delta","x"])", "delta"), std::nullopt);
}

TEST(JsonText, SeesTheLoneHalvesAtAStringsEdges) {
  auto edges = lone_surrogate_edges(R"(\ude00abc\ud83d)");
  EXPECT_EQ(edges.leading_low, 0xDE00u);
  EXPECT_EQ(edges.trailing_high, 0xD83Du);
  edges = lone_surrogate_edges(R"(\ud83d\ude00)");  // a whole pair: no lone half at either edge
  EXPECT_EQ(edges.leading_low, 0u);
  EXPECT_EQ(edges.trailing_high, 0u);
  EXPECT_EQ(lone_surrogate_edges(R"(a\\ud83d)").trailing_high, 0u);  // an escaped backslash
  EXPECT_EQ(lone_surrogate_edges(R"(a\\\ud83d)").trailing_high, 0xD83Du);
}

}  // namespace
}  // namespace agui
