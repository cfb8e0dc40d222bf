// The core's JSON Patch applier (RFC 6902): the RFC's own examples, and each
// failure reported as text with the target left as it was.
#include "protocol/json_patch.hpp"

#include <gtest/gtest.h>

namespace agui {
namespace {

json applied(json target, const char* patch) {
  const auto err = apply_json_patch(target, json::parse(patch));
  EXPECT_FALSE(err) << *err;
  return target;
}

// The failure's text; the target must come back unchanged.
std::string failure(const char* target_text, const char* patch) {
  json target = json::parse(target_text);
  const json before = target;
  const auto err = apply_json_patch(target, json::parse(patch));
  EXPECT_EQ(target, before);
  return err ? *err : "(applied)";
}

TEST(JsonPatch, AppliesTheRfcExamples) {
  EXPECT_EQ(
      applied(json::parse(R"({"foo":"bar"})"), R"([{"op":"add","path":"/baz","value":"qux"}])"),
      json::parse(R"({"foo":"bar","baz":"qux"})"));
  EXPECT_EQ(applied(json::parse(R"({"foo":["bar","baz"]})"),
                    R"([{"op":"add","path":"/foo/1","value":"qux"}])"),
            json::parse(R"({"foo":["bar","qux","baz"]})"));
  EXPECT_EQ(applied(json::parse(R"({"foo":["bar"]})"),
                    R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])"),
            json::parse(R"({"foo":["bar",["abc","def"]]})"));
  EXPECT_EQ(
      applied(json::parse(R"({"baz":"qux","foo":"bar"})"), R"([{"op":"remove","path":"/baz"}])"),
      json::parse(R"({"foo":"bar"})"));
  EXPECT_EQ(applied(json::parse(R"({"foo":["bar","qux","baz"]})"),
                    R"([{"op":"remove","path":"/foo/1"}])"),
            json::parse(R"({"foo":["bar","baz"]})"));
  EXPECT_EQ(applied(json::parse(R"({"baz":"qux","foo":"bar"})"),
                    R"([{"op":"replace","path":"/baz","value":"boo"}])"),
            json::parse(R"({"baz":"boo","foo":"bar"})"));
  EXPECT_EQ(applied(json::parse(R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})"),
                    R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])"),
            json::parse(R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"));
  EXPECT_EQ(applied(json::parse(R"({"foo":["all","grass","cows","eat"]})"),
                    R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])"),
            json::parse(R"({"foo":["all","cows","eat","grass"]})"));
  EXPECT_EQ(applied(json::parse(R"({"a/b":{"m~n":1}})"),
                    R"([{"op":"copy","from":"/a~1b/m~0n","path":"/c"},
                        {"op":"test","path":"/c","value":1}])"),
            json::parse(R"({"a/b":{"m~n":1},"c":1})"));
  EXPECT_EQ(applied(json::parse("[1]"), R"([{"op":"replace","path":"","value":{"x":2}}])"),
            json::parse(R"({"x":2})"));
}

TEST(JsonPatch, AReplacedMemberKeepsItsPlace) {
  EXPECT_EQ(
      applied(json::parse(R"({"a":1,"b":2})"), R"([{"op":"add","path":"/a","value":3}])").dump(),
      R"({"a":3,"b":2})");
}

TEST(JsonPatch, FailuresNameTheOperationAndLeaveTheTargetAsItWas) {
  EXPECT_EQ(failure(R"({"a":1})", R"({"op":"add"})"), "patch must be an array of operations");
  EXPECT_EQ(
      failure(R"({"a":1})", R"([{"op":"add","path":"/b","value":1},{"op":"remove","path":"/x"}])"),
      "operation 1 (remove at '/x'): nothing is there");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"test","path":"/a","value":2}])"),
            "operation 0 (test at '/a'): the value there is not the one tested");
  EXPECT_EQ(failure(R"({"a":[1]})", R"([{"op":"add","path":"/a/2","value":1}])"),
            "operation 0 (add at '/a/2'): array index '2' is out of range");
  EXPECT_EQ(failure(R"({"a":[1]})", R"([{"op":"add","path":"/a/01","value":1}])"),
            "operation 0 (add at '/a/01'): array index '01' is out of range");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"add","path":"/x/y","value":1}])"),
            "operation 0 (add at '/x/y'): its parent does not exist");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"add","path":"/a/y","value":1}])"),
            "operation 0 (add at '/a/y'): its parent is not an object or an array");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"replace","path":"/b"}])"),
            "operation 0 (replace at '/b'): it has no 'value'");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"move","from":"/a","path":"/a/b"}])"),
            "operation 0 (move at '/a/b'): a value cannot move into itself");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"copy","path":"/b"}])"),
            "operation 0 (copy at '/b'): it has no string 'from'");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"copy","from":"/z","path":"/b"}])"),
            "operation 0 (copy at '/b'): nothing is at 'from'");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"jump","path":"/a"}])"),
            "operation 0 (jump at '/a'): 'jump' is not an operation");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"remove","path":"a"}])"),
            "operation 0 (remove): 'a' is not a JSON Pointer");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"remove","path":"/~2"}])"),
            "operation 0 (remove): '/~2' is not a JSON Pointer");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"op":"remove","path":""}])"),
            "operation 0 (remove at ''): the whole document cannot be removed");
  EXPECT_EQ(failure(R"({"a":1})", R"([3])"), "operation 0 is not an object");
  EXPECT_EQ(failure(R"({"a":1})", R"([{"path":"/a"}])"), "operation 0 has no string 'op'");
}

}  // namespace
}  // namespace agui
