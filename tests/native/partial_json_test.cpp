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

// The value the operations build, replayed as a host does (see partial_json.hpp):
// fed the operations of each take in turn.
class Replay {
 public:
  void apply(const std::string& ops_text) {
    const json ops = parse_json(ops_text);
    ASSERT_TRUE(ops.is_array()) << ops_text;
    for (const json& op : ops) apply_one(op);
  }
  // Takes what `p` has and replays it.
  void take(PartialJson& p) { apply(p.take_ops()); }
  const json& value() const { return root_; }

 private:
  void apply_one(const json& op) {
    const std::string name = op.at(0).get<std::string>();
    if (name == "}" || name == "]") {
      open_.pop_back();
      return;
    }
    if (name == "+") {
      slot(string_) = slot(string_).get<std::string>() + op.at(1).get<std::string>();
      return;
    }
    const bool keyed = !open_.empty() && slot(open_.back()).is_object();
    const std::size_t at = keyed ? 2 : 1;
    json placed = name == "{"      ? json::object()
                  : name == "["    ? json::array()
                  : op.size() > at ? op[at]
                                   : json();
    std::vector<json> where;
    if (!open_.empty()) {
      where = open_.back();
      json& container = slot(where);
      where.push_back(keyed ? op.at(1) : json(container.size()));
    }
    slot(where) = std::move(placed);
    if (name == "{" || name == "[") open_.push_back(where);
    if (name == "s") string_ = where;
  }
  // The value at a path of keys and indexes from the root.
  json& slot(const std::vector<json>& path) {
    json* at = &root_;
    for (const json& step : path) {
      at = step.is_string() ? &(*at)[step.get<std::string>()] : &(*at)[step.get<std::size_t>()];
    }
    return *at;
  }
  json root_;
  std::vector<std::vector<json>> open_;  // the open containers' paths, innermost last
  std::vector<json> string_;             // the open string's path
};

std::string partial(std::string_view text) {
  PartialJson p;
  p.feed(text);
  Replay r;
  r.take(p);
  return dump_json(r.value());
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
  Replay r;
  p.feed("\"caf\xC3");
  r.take(p);
  EXPECT_EQ(dump_json(r.value()), R"("caf")");
  p.feed("\xA9\"");
  r.take(p);
  EXPECT_EQ(dump_json(r.value()), R"("café")");
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
      Replay once;
      once.take(at_once);
      EXPECT_TRUE(once.value().is_null() || subsumed(once.value(), whole))
          << text << " @" << k << ": " << dump_json(once.value());
      for (std::size_t size : {1u, 2u, 3u, 7u}) {
        // Taken after every piece, and only at the end.
        PartialJson each, last;
        Replay each_replay, last_replay;
        for (std::size_t i = 0; i < k; i += size) {
          each.feed(prefix.substr(i, size));
          last.feed(prefix.substr(i, size));
          each_replay.take(each);
          EXPECT_FALSE(each.has_ops()) << "a take leaves nothing behind";
        }
        last_replay.take(last);
        EXPECT_EQ(dump_json(each_replay.value()), dump_json(once.value()))
            << text << " @" << k << " in pieces of " << size << ", taken after each";
        EXPECT_EQ(dump_json(last_replay.value()), dump_json(once.value()))
            << text << " @" << k << " in pieces of " << size;
      }
    }
    PartialJson all;
    all.feed(text);
    Replay all_replay;
    all_replay.take(all);
    EXPECT_EQ(dump_json(all_replay.value()), dump_json(whole)) << text;
    EXPECT_TRUE(all.complete() || whole.is_number()) << text;
  }
}

TEST(PartialJson, TextThatStopsBeingJsonIsReportedOnceAndTheValueStops) {
  PartialJson p;
  Replay r;
  EXPECT_TRUE(p.feed(R"({"a": "x", "b": tx)") == false);
  EXPECT_EQ(p.error(), "not a JSON literal ('tx') at byte 17");
  r.take(p);
  EXPECT_EQ(dump_json(r.value()), R"({"a":"x"})");
  EXPECT_FALSE(p.feed(R"(rue})"));
  EXPECT_FALSE(p.has_ops()) << "nothing more is read";
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

// What each take hands over: only what is new, an open string's text once.
TEST(PartialJson, EachTakeHandsOverOnlyWhatGrew) {
  PartialJson p;
  p.feed("{");
  EXPECT_EQ(p.take_ops(), R"([["{"]])");
  p.feed(" \"ke");
  EXPECT_FALSE(p.has_ops()) << "a key alone changes nothing";
  p.feed("y\": 1");
  EXPECT_FALSE(p.has_ops()) << "nor a number that may go on";
  p.feed("2, \"s\": \"");
  EXPECT_EQ(p.take_ops(), R"([["v","key",12],["s","s",""]])");
  p.feed("abc");
  p.feed("d");
  EXPECT_EQ(p.take_ops(), R"([["+","abcd"]])") << "appends in one take are one";
  p.feed("\\ud83d");
  EXPECT_FALSE(p.has_ops()) << "half a surrogate pair shows nothing yet";
  p.feed("\\ude00\", \"a\": [true, \"x\"]}");
  EXPECT_EQ(
      p.take_ops(),
      "[[\"+\",\"\xF0\x9F\x98\x80\"],[\"[\",\"a\"],[\"v\",true],[\"s\",\"x\"],[\"]\"],[\"}\"]]");
  EXPECT_EQ(p.take_ops(), "[]");
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
  Replay args;
  args.apply(dump_json(partials[0]["ops"]));
  EXPECT_EQ(dump_json(args.value()), R"({"city":"Paris","days":[]})");
  // The next chunk: the value grows; its end comes before tool_call_ended.
  h.driver.feed(id, test::sse({test::tool_args("c1", ",2]}"), test::tool_end("c1")}));
  json changes = h.driver.take_changes();
  partials = of_kind(changes, "tool_call_partial");
  ASSERT_EQ(partials.size(), 1u);
  EXPECT_EQ(dump_json(partials[0]["ops"]), R"([["v",1],["v",2],["]"],["}"]])") << "what grew";
  args.apply(dump_json(partials[0]["ops"]));
  EXPECT_EQ(dump_json(args.value()), R"({"city":"Paris","days":[1,2]})");
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
  Replay args;
  args.apply(dump_json(partials[0]["ops"]));
  EXPECT_EQ(dump_json(args.value()), R"({"city":"Rome"})");
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
