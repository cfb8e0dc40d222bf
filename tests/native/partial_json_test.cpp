// Partial JSON: the value a prefix of a tool call's arguments implies, kept as
// the text streams in, whatever the split.
#include "protocol/partial_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/json_text.hpp"
#include "test_support.hpp"

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

// The changes of one kind among `changes`.
json of_kind(const json& changes, const std::string& kind) {
  json out = json::array();
  for (const auto& c : changes) {
    if (c["kind"] == kind) out.push_back(c);
  }
  return out;
}

TEST(PartialArguments, EachStepHandsOutOnePartialValuePerCallHoweverManyDeltas) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  const std::string id = h.run_id();
  h.driver.take_changes();
  // One chunk with many small deltas: one tool_call_partial, the value so far.
  std::vector<json> events = {test::run_started("t1", id), test::tool_start("c1", "get_weather")};
  for (const char* d : {"{\"ci", "ty\": ", "\"Par", "is", "\", \"days\": [1"})
    events.push_back(test::tool_args("c1", d));
  h.driver.feed(id, test::sse(events));
  json partials = of_kind(h.driver.take_changes(), "tool_call_partial");
  ASSERT_EQ(partials.size(), 1u) << partials;
  EXPECT_EQ(dump_json(partials[0]["args"]), R"({"city":"Paris","days":[]})");
  // The next chunk: the value grows; its end comes before tool_call_ended.
  h.driver.feed(id, test::sse({test::tool_args("c1", ",2]}"), test::tool_end("c1")}));
  json changes = h.driver.take_changes();
  partials = of_kind(changes, "tool_call_partial");
  ASSERT_EQ(partials.size(), 1u);
  EXPECT_EQ(dump_json(partials[0]["args"]), R"({"city":"Paris","days":[1,2]})");
  std::vector<std::string> order;
  for (const auto& c : changes) order.push_back(c["kind"]);
  EXPECT_LT(std::find(order.begin(), order.end(), "tool_call_partial") - order.begin(),
            std::find(order.begin(), order.end(), "tool_call_ended") - order.begin());
}

TEST(PartialArguments, ArgumentsThatStopBeingJsonAreReportedOnceAndTheCallIsRefusedAsBefore) {
  test::Harness h;
  h.last_step = h.driver.send("weather?");
  const std::string id = h.run_id();
  h.driver.feed(id, test::sse({test::run_started("t1", id), test::tool_start("c1", "get_weather"),
                               test::tool_args("c1", R"({"city": "Rome", x)")}));
  json partials = of_kind(h.driver.take_changes(), "tool_call_partial");
  ASSERT_EQ(partials.size(), 1u);
  EXPECT_EQ(dump_json(partials[0]["args"]), R"({"city":"Rome"})");
  EXPECT_EQ(partials[0]["invalid"], "expected a member name in quotes at byte 17");
  h.driver.feed(id, test::sse({test::tool_args("c1", R"(: 1})"), test::tool_end("c1")}));
  EXPECT_TRUE(of_kind(h.driver.take_changes(), "tool_call_partial").empty()) << "reported once";
  h.driver.feed(id, test::sse({test::run_finished("t1", id)}));
  h.last_step = h.driver.end_of_stream(id);
  const json tools = test::tool_messages(h.driver);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(test::error_of(tools[0]).rfind("arguments are not valid JSON", 0), 0u) << tools[0];
}

}  // namespace
}  // namespace agui
