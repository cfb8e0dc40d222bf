// Key order, end to end: every JSON value keeps its members in the order they
// were registered or received, as JSON.parse then JSON.stringify keep them;
// and parse_json() reads what JSON.parse reads.
#include <gtest/gtest.h>

#include <string>

#include "client/round_driver.hpp"
#include "client/tool_registry.hpp"
#include "common/json.hpp"
#include "common/json_text.hpp"
#include "protocol/json_patch.hpp"
#include "test_support.hpp"

namespace agui {
namespace {

const char* const kThinkThenAnswer =
    R"({"type":"object","properties":{"reasoning":{"type":"string"},"answer":{"type":"string"}},)"
    R"("required":["reasoning","answer"]})";

TEST(JsonOrder, ParsedObjectsKeepTheirKeysInTheOrderWritten) {
  const std::string text =
      R"({"zebra":1,"apple":{"y":true,"b":null,"m":[{"z":0,"a":1}]},"mango":"x"})";
  EXPECT_EQ(json::parse(text).dump(), text);
}

TEST(JsonOrder, ADuplicateKeyKeepsItsFirstPlaceAndTakesTheLastValueAsJsonParseDoes) {
  // JSON.stringify(JSON.parse('{"a":1,"b":2,"a":3}')) === '{"a":3,"b":2}'
  EXPECT_EQ(json::parse(R"({"a":1,"b":2,"a":3})").dump(), R"({"a":3,"b":2})");
}

TEST(JsonOrder, ObjectsAreEqualWhateverTheOrderOfTheirMembers) {
  EXPECT_EQ(json::parse(R"({"a":1,"b":{"c":2,"d":3}})"),
            json::parse(R"({"b":{"d":3,"c":2},"a":1})"));
  EXPECT_NE(json::parse(R"({"a":1,"b":2})"), json::parse(R"({"a":1,"c":2})"));
  EXPECT_NE(json::parse(R"({"a":1})"), json::parse(R"({"a":1,"b":2})"));
}

TEST(JsonOrder, AnObjectOfTenThousandKeysKeepsOrderAndFindsEveryKey) {
  json state = json::object();
  for (int i = 9999; i >= 0; --i) state["k" + std::to_string(i)] = i;
  ASSERT_EQ(state.size(), 10000u);
  EXPECT_EQ(state.begin().key(), "k9999");
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(state.at("k" + std::to_string(i)), i);
  EXPECT_FALSE(state.contains("k10000"));
  // Erasing keeps the order of the rest, and every key is still found.
  for (int i = 0; i < 10000; i += 100) state.erase("k" + std::to_string(i));
  EXPECT_EQ(state.size(), 9900u);
  EXPECT_EQ(state.begin().key(), "k9999");
  for (int i = 0; i < 10000; ++i) {
    ASSERT_EQ(state.contains("k" + std::to_string(i)), i % 100 != 0) << i;
    if (i % 100 != 0) {
      ASSERT_EQ(state.at("k" + std::to_string(i)), i);
    }
  }
  std::string order;
  for (auto it = state.begin(); it != state.end() && order.size() < 24; ++it)
    order += it.key() + ",";
  EXPECT_EQ(order, "k9999,k9998,k9997,k9996,");
  // A copy is an equal, independent object with the same order.
  json copy = state;
  copy["k1"] = -1;
  EXPECT_EQ(state.at("k1"), 1);
  EXPECT_EQ(copy.dump().substr(0, 12), state.dump().substr(0, 12));
}

TEST(JsonOrder, APatchKeepsTheOrderOfTheMembersItLeaves) {
  json patched = json::parse(R"({"z":1,"a":2,"m":3})");
  ASSERT_FALSE(apply_json_patch(
      patched,
      json::parse(
          R"([{"op":"replace","path":"/a","value":20},{"op":"add","path":"/b","value":4},{"op":"remove","path":"/z"}])")));
  EXPECT_EQ(patched.dump(), R"({"a":20,"m":3,"b":4})");
}

TEST(JsonOrder, AThinkThenAnswerSchemaIsAdvertisedInTheOrderRegistered) {
  ToolRegistry registry;
  ToolSpec spec;
  spec.name = "answer";
  spec.description = "Think, then answer.";
  spec.parameters = json::parse(kThinkThenAnswer);
  ASSERT_FALSE(registry.add(std::move(spec)).has_value());
  EXPECT_EQ(registry.advertise()[0]["parameters"].dump(), kThinkThenAnswer);
}

TEST(JsonOrder, TheFollowUpRequestCarriesSchemaStateAndArgumentsInTheOrderReceived) {
  auto registry = test::sample_registry();
  ToolSpec spec;
  spec.name = "answer";
  spec.description = "Think, then answer.";
  spec.parameters = json::parse(kThinkThenAnswer);
  ASSERT_FALSE(registry->add(std::move(spec)).has_value());
  test::Harness h(registry, DriverOptions{});
  h.last_step = h.driver.send(json("go"));
  const std::string args = R"({"reasoning":"r","answer":"a"})";
  const json step = h.play(
      {json::parse(R"({"type":"STATE_SNAPSHOT","snapshot":{"zeta":1,"alpha":{"y":2,"b":3}}})"),
       test::tool_start("c1", "answer"), test::tool_args("c1", args), test::tool_end("c1")});
  ASSERT_TRUE(step.contains("execute")) << step.dump();
  EXPECT_EQ(step["execute"][0]["args"].dump(), args);
  h.last_step = h.driver.submit_result("c1", R"({"z":1,"a":2})");
  const std::string body = h.driver.run_input();
  EXPECT_EQ(body.rfind(R"({"threadId":"t1","runId":)", 0), 0u)
      << "keys as @ag-ui/client sends them: " << body;
  EXPECT_NE(body.find(kThinkThenAnswer), std::string::npos) << body;
  EXPECT_NE(body.find(R"("state":{"zeta":1,"alpha":{"y":2,"b":3}})"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("arguments":"{\"reasoning\":\"r\",\"answer\":\"a\"}")"), std::string::npos)
      << body;
}

TEST(ParseJson, ALoneSurrogateEscapeIsReadAsJsonParseReadsItAndHeldAsUFFFD) {
  EXPECT_EQ(parse_json(R"("A\ud800BCD")"), json("A\xEF\xBF\xBD"
                                                "BCD"));
  EXPECT_EQ(parse_json(R"("a\udc00b")"), json("a\xEF\xBF\xBD"
                                              "b"));
  EXPECT_EQ(parse_json(R"(["x\ud800"])"), json::parse(R"(["x\ufffd"])"));
  // A real pair stays the astral character it encodes.
  EXPECT_EQ(parse_json(R"("\ud83d\ude00")"), json("\xF0\x9F\x98\x80"));
}

TEST(ParseJson, ANumberPastADoubleIsReadAsJsonParseReadsItAndHeldAsJsonStringifyWritesIt) {
  // JSON.stringify(JSON.parse('[1e400,-1e400,1]')) === '[null,null,1]'
  EXPECT_EQ(parse_json("[1e400,-1e400,1]").dump(), "[null,null,1]");
  EXPECT_EQ(parse_json(R"({"e":"1e400","n":1E400})").dump(), R"({"e":"1e400","n":null})");
}

TEST(ParseJson, TextThatIsNotJsonStaysRefused) {
  EXPECT_TRUE(parse_json("{").is_discarded());
  EXPECT_TRUE(parse_json(R"("\ud800)").is_discarded());
  EXPECT_TRUE(parse_json("1e400x").is_discarded());
  EXPECT_TRUE(parse_json("").is_discarded());
}

}  // namespace
}  // namespace agui
