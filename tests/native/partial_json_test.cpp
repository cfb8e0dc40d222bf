// Partial JSON: the value a prefix of a tool call's arguments implies, kept as
// the text streams in, whatever the split.
#include "protocol/partial_json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/json_text.hpp"

namespace agui {
namespace {

std::string partial(std::string_view text) {
  PartialJson p;
  p.feed(text);
  return dump_json(p.value());
}

// Every string in `part` is a prefix of the one at its place in `whole`, every
// array and object holds a prefix of the members of its place, in order, and
// every other value is the same.
bool subsumed(const json& part, const json& whole) {
  if (part.is_string()) {
    return whole.is_string() &&
           whole.get_ref<const std::string&>().rfind(part.get_ref<const std::string&>(), 0) == 0;
  }
  if (part.is_array()) {
    if (!whole.is_array() || part.size() > whole.size()) return false;
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (!subsumed(part[i], whole[i])) return false;
    }
    return true;
  }
  if (part.is_object()) {
    if (!whole.is_object() || part.size() > whole.size()) return false;
    auto w = whole.begin();
    for (auto it = part.begin(); it != part.end(); ++it, ++w) {
      if (it.key() != w.key() || !subsumed(it.value(), w.value())) return false;
    }
    return true;
  }
  return part == whole;
}

TEST(PartialJson, ClosesWhatIsOpenAndLeavesOutWhatIsHalfWritten) {
  EXPECT_EQ(partial(R"({"reasoning": "I thi)"), R"({"reasoning":"I thi"})");
  EXPECT_EQ(partial(R"({"a": [1, 2, {"b": "x)"), R"({"a":[1,2,{"b":"x"}]})");
  EXPECT_EQ(partial(R"({"a": 12)"), "{}") << "a number may go on";
  EXPECT_EQ(partial(R"({"a": 12,)"), R"({"a":12})");
  EXPECT_EQ(partial(R"({"a": tr)"), "{}");
  EXPECT_EQ(partial(R"({"a": true)"), R"({"a":true})");
  EXPECT_EQ(partial(R"({"a": [nul)"), R"({"a":[]})");
  EXPECT_EQ(partial(R"({"ke)"), "{}") << "a key without its value";
  EXPECT_EQ(partial(R"({"key": )"), "{}");
  EXPECT_EQ(partial(R"({"key": ")"), R"({"key":""})");
  EXPECT_EQ(partial(R"({"key": {)"), R"({"key":{}})");
  EXPECT_EQ(partial(""), "null");
  EXPECT_EQ(partial("  "), "null");
}

TEST(PartialJson, KeepsKeysInTheOrderTheyStreamed) {
  EXPECT_EQ(partial(R"({"reasoning":"r","answer":"a)"), R"({"reasoning":"r","answer":"a"})");
  EXPECT_EQ(partial(R"({"z":1,"a":2,"m":{"y":true,"b":)"), R"({"z":1,"a":2,"m":{"y":true}})");
}

TEST(PartialJson, StringsAreHeldAsJsonParseHoldsThem) {
  EXPECT_EQ(partial(R"("caf\u00e9 \"q\" \\ \/ \n)"), R"("café \"q\" \\ / \n")");
  // A surrogate pair waits for its second half; a lone half is U+FFFD.
  EXPECT_EQ(partial(R"("a\ud83d)"), R"("a")");
  EXPECT_EQ(partial(R"("a\ud83d\ude00)"), "\"a\xF0\x9F\x98\x80\"");
  EXPECT_EQ(partial(R"("a\ud83dx)"), "\"a\xEF\xBF\xBDx\"");
  EXPECT_EQ(partial(R"("a\udc00b)"),
            "\"a\xEF\xBF\xBD"
            "b\"");
  EXPECT_EQ(partial(R"("a\ud83d\n)"), "\"a\xEF\xBF\xBD\\n\"");
  EXPECT_EQ(partial(R"("a\ud83d")"), "\"a\xEF\xBF\xBD\"");
  // A number past a double's range, as JSON.stringify(JSON.parse(...)) writes it.
  EXPECT_EQ(partial(R"([1e400,)"), "[null]");
}

TEST(PartialJson, ACharacterSplitAcrossPiecesAppearsWhole) {
  PartialJson p;
  p.feed("\"caf\xC3");
  EXPECT_EQ(dump_json(p.value()), R"("caf")");
  p.feed("\xA9\"");
  EXPECT_EQ(dump_json(p.value()), R"("café")");
  EXPECT_TRUE(p.complete());
}

// For every prefix of each text and every piece size, the value is the same as
// for the prefix read whole, it is subsumed by the final value, and the whole
// text gives what parse_json gives, key order included.
TEST(PartialJson, TheSplitNeverChangesTheValue) {
  const std::vector<std::string> texts = {
      R"({"reasoning":"think \"twice\"","answer":42,"tags":["a","b\u00e9"],"ok":true,"none":null})",
      R"([1,-2.5e3,0,{"x":[[],{}]},"\ud83d\ude00 caf\u00e9",false,"\u0041"])",
      "{ \"nested\" : { \"deep\" : [ 1 , [ 2 , [ 3 ] ] ] } , \"s\" : \"multi\xC3\xA9 byte "
      "\xF0\x9F\x98\x80\" }",
      R"("just a string")",
      R"({"z":1,"a":2,"z2":{"b":0.5,"a":-0}})",
  };
  for (const auto& text : texts) {
    const json whole = parse_json(text);
    ASSERT_FALSE(whole.is_discarded()) << text;
    for (std::size_t k = 0; k <= text.size(); ++k) {
      const std::string_view prefix(text.data(), k);
      PartialJson at_once;
      ASSERT_TRUE(at_once.feed(prefix)) << text << " @" << k << ": " << at_once.error();
      EXPECT_TRUE(at_once.value().is_null() || subsumed(at_once.value(), whole))
          << text << " @" << k << ": " << dump_json(at_once.value());
      for (std::size_t size : {1u, 2u, 3u, 7u}) {
        PartialJson pieces;
        for (std::size_t i = 0; i < k; i += size) pieces.feed(prefix.substr(i, size));
        EXPECT_EQ(dump_json(pieces.value()), dump_json(at_once.value()))
            << text << " @" << k << " in pieces of " << size;
      }
    }
    PartialJson all;
    all.feed(text);
    EXPECT_EQ(dump_json(all.value()), dump_json(whole)) << text;
    EXPECT_TRUE(all.complete() || whole.is_number()) << text;
  }
}

TEST(PartialJson, TextThatStopsBeingJsonIsReportedOnceAndTheValueStops) {
  PartialJson p;
  EXPECT_TRUE(p.feed(R"({"a": "x", "b": tx)") == false);
  EXPECT_EQ(p.error(), "not a JSON literal ('tx') at byte 17");
  EXPECT_EQ(dump_json(p.value()), R"({"a":"x"})");
  EXPECT_FALSE(p.feed(R"(rue})"));
  EXPECT_EQ(dump_json(p.value()), R"({"a":"x"})") << "nothing more is read";
  for (const char* bad : {R"({"a" 1})", R"([1,])", R"({"a":1,})", "\"a\x01\"", R"({"a":1}x)",
                          R"("\q")", R"("\u12g4")", R"([1 2])", R"({1:2})", R"([1-2,])"}) {
    PartialJson q;
    EXPECT_FALSE(q.feed(bad)) << bad;
    EXPECT_TRUE(q.failed()) << bad;
  }
}

TEST(PartialJson, NestingPastTheLimitIsRefused) {
  PartialJson p(4);
  EXPECT_TRUE(p.feed("[[[["));
  EXPECT_FALSE(p.feed("["));
  EXPECT_EQ(p.error(), "arguments nest arrays and objects deeper than 4 levels at byte 4");
}

TEST(PartialJson, SaysWhenTheValueChanged) {
  PartialJson p;
  p.feed("{");
  EXPECT_TRUE(p.take_changed());
  p.feed(" \"ke");
  EXPECT_FALSE(p.take_changed()) << "a key alone changes nothing";
  p.feed("y\": 1");
  EXPECT_FALSE(p.take_changed()) << "nor a number that may go on";
  p.feed("2, \"s\": \"");
  EXPECT_TRUE(p.take_changed());
  p.feed("abc");
  EXPECT_TRUE(p.take_changed());
  p.feed("\\ud83d");
  EXPECT_FALSE(p.take_changed()) << "half a surrogate pair shows nothing yet";
}

}  // namespace
}  // namespace agui
