// Unit tests of the JSON Schema validator: each keyword with its message and
// paths, compile errors (keyword and schema path of each kind), references,
// limits, 2020-12 spellings, and the default regex engine. The same file runs
// natively, where that engine is std::regex, and in wasm, where it is the
// host's RegExp (bindings/regexp_engine.cpp); where the two differ the test
// says what each does. Both run the linear-time matcher on its subset.
#include "schema/json_schema.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "schema/internal/program.hpp"  // the linear-time regex matcher

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
#include <regex>
#endif

namespace {

using agui::CompiledSchema;
using agui::json;
using agui::SchemaCompileError;
using agui::SchemaIssue;
using agui::SchemaOptions;

std::shared_ptr<const CompiledSchema> compiled(const json& schema,
                                               const SchemaOptions& options = {}) {
  auto result = CompiledSchema::compile(schema, options);
  if (const auto* error = std::get_if<SchemaCompileError>(&result)) {
    ADD_FAILURE() << "does not compile: " << error->keyword << " at '" << error->schema_path
                  << "': " << error->message;
    return nullptr;
  }
  return std::get<std::shared_ptr<const CompiledSchema>>(result);
}

SchemaCompileError compile_error(const json& schema, const SchemaOptions& options = {}) {
  auto result = CompiledSchema::compile(schema, options);
  if (const auto* error = std::get_if<SchemaCompileError>(&result)) return *error;
  ADD_FAILURE() << "compiled, but should not have: " << schema.dump();
  return {};
}

// validate() and is_valid() must always agree.
std::vector<SchemaIssue> issues(const json& schema, const json& instance,
                                const SchemaOptions& options = {}) {
  const auto s = compiled(schema, options);
  if (!s) return {SchemaIssue{"", "", "schema did not compile"}};
  auto found = s->validate(instance);
  EXPECT_EQ(found.empty(), s->is_valid(instance))
      << "validate and is_valid disagree on " << instance.dump();
  return found;
}

bool valid(const json& schema, const json& instance) { return issues(schema, instance).empty(); }

// The only issue, checked field by field.
void expect_issue(const json& schema, const json& instance, const std::string& instance_path,
                  const std::string& schema_path, const std::string& message) {
  const auto found = issues(schema, instance);
  ASSERT_EQ(found.size(), 1u) << instance.dump() << (found.empty() ? "" : ": " + found[0].message);
  EXPECT_EQ(found[0].instance_path, instance_path);
  EXPECT_EQ(found[0].schema_path, schema_path);
  EXPECT_EQ(found[0].message, message);
}

void expect_compile_error(const json& schema, const std::string& keyword,
                          const std::string& schema_path, const std::string& message_part) {
  const auto error = compile_error(schema);
  EXPECT_EQ(error.keyword, keyword) << schema.dump();
  EXPECT_EQ(error.schema_path, schema_path) << schema.dump();
  EXPECT_NE(error.message.find(message_part), std::string::npos) << error.message;
}

// ---- type, enum, const ----------------------------------------------------

TEST(JsonSchemaType, NamesExpectedAndActual) {
  expect_issue({{"type", "string"}}, 5, "", "/type", "expected string, got number");
  expect_issue({{"type", {"string", "null"}}}, true, "", "/type",
               "expected string or null, got boolean");
  expect_issue({{"type", "object"}}, json::array(), "", "/type", "expected object, got array");
}

TEST(JsonSchemaType, IntegerAcceptsWholeFloats) {
  const json schema = {{"type", "integer"}};
  EXPECT_TRUE(valid(schema, 1.0));  // a float with no fraction is an integer
  EXPECT_TRUE(valid(schema, -7));
  EXPECT_TRUE(valid(schema, 18446744073709551615ULL));
  expect_issue(schema, 1.5, "", "/type", "expected integer, got number");
  EXPECT_TRUE(valid({{"type", "number"}}, 3));
}

TEST(JsonSchemaEnum, ListsTheAllowedValues) {
  expect_issue({{"enum", {"a", "b"}}}, "c", "", "/enum", R"(must be one of: "a", "b")");
  EXPECT_TRUE(valid({{"enum", {1, "x", nullptr}}}, 1.0));  // 1 == 1.0
  EXPECT_TRUE(valid({{"enum", {json::object({{"a", 1}})}}}, {{"a", 1.0}}));
  EXPECT_FALSE(valid({{"enum", json::array()}}, 1));
}

TEST(JsonSchemaConst, UsesJsonEquality) {
  const json schema = {{"const", {{"unit", "metric"}, {"n", 1}}}};
  EXPECT_TRUE(valid(schema, {{"n", 1.0}, {"unit", "metric"}}));
  // The const in the order the schema wrote it; equal whatever the instance's order.
  expect_issue(schema, {{"n", 2}, {"unit", "metric"}}, "", "/const",
               R"(must be {"unit":"metric","n":1})");
  EXPECT_FALSE(valid({{"const", false}}, 0));
  EXPECT_FALSE(valid({{"const", nullptr}}, 0));
}

// ---- strings ------------------------------------------------------------------

TEST(JsonSchemaString, LengthsInCodePoints) {
  const json schema = {{"properties", {{"name", {{"minLength", 3}, {"maxLength", 4}}}}}};
  expect_issue(schema, {{"name", "a"}}, "/name", "/properties/name/minLength",
               "must be at least 3 characters, got 1");
  expect_issue(schema, {{"name", "abcde"}}, "/name", "/properties/name/maxLength",
               "must be at most 4 characters, got 5");
  EXPECT_TRUE(valid(
      schema, {{"name", "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"}}));  // é€😀: 3 code points, 9 bytes
  EXPECT_FALSE(valid({{"maxLength", 2}}, "\xC3\xA9\xC3\xA9\xC3\xA9"));  // 3 code points
  expect_issue({{"minLength", 1}}, "", "", "/minLength", "must be at least 1 character, got 0");
  EXPECT_TRUE(valid({{"minLength", 5}}, 12345));  // only strings are measured
}

TEST(JsonSchemaString, Pattern) {
  const json schema = {{"pattern", "^[a-z]+$"}};
  EXPECT_TRUE(valid(schema, "abc"));
  expect_issue(schema, "ab1", "", "/pattern", "must match pattern '^[a-z]+$'");
  EXPECT_TRUE(valid({{"pattern", "b"}}, "abc"));  // unanchored search
}

TEST(JsonSchemaString, FormatIsAnAnnotation) {
  EXPECT_TRUE(valid({{"format", "email"}}, "not an email"));
  EXPECT_TRUE(valid({{"format", "date-time"}}, "yesterday"));
  EXPECT_TRUE(valid({{"format", "made-up-format"}}, "x"));
}

// ---- numbers ------------------------------------------------------------------

TEST(JsonSchemaNumber, Bounds) {
  expect_issue({{"minimum", 5}}, 3, "", "/minimum", "must be >= 5, got 3");
  expect_issue({{"maximum", 2.5}}, 3, "", "/maximum", "must be <= 2.5, got 3");
  expect_issue({{"exclusiveMinimum", 0}}, 0, "", "/exclusiveMinimum", "must be > 0, got 0");
  expect_issue({{"exclusiveMaximum", 10}}, 10.0, "", "/exclusiveMaximum", "must be < 10, got 10.0");
  EXPECT_TRUE(valid({{"minimum", 5}, {"maximum", 5}}, 5.0));
  EXPECT_TRUE(valid({{"minimum", 5}}, "3"));  // only numbers are compared
}

TEST(JsonSchemaNumber, ComparesIntegersExactly) {
  // 2^53 + 1 rounds to 2^53 as a double; the comparison must not.
  EXPECT_FALSE(valid({{"maximum", 9007199254740992LL}}, 9007199254740993LL));
  EXPECT_FALSE(valid({{"maximum", 9007199254740992.0}}, 9007199254740993LL));
  EXPECT_TRUE(valid({{"minimum", -1}}, 18446744073709551615ULL));
  EXPECT_FALSE(valid({{"maximum", -1}}, 18446744073709551615ULL));
  EXPECT_TRUE(valid({{"exclusiveMaximum", 1.5}}, 1));
}

TEST(JsonSchemaNumber, MultipleOfWithFloatingPointCare) {
  EXPECT_TRUE(valid({{"multipleOf", 0.0001}}, 0.0075));  // 74.99999999999999 as a double quotient
  EXPECT_FALSE(valid({{"multipleOf", 0.0001}}, 0.00751));
  EXPECT_TRUE(valid({{"multipleOf", 0.1}}, 0.3));
  EXPECT_TRUE(valid({{"multipleOf", 0.1}}, 10));
  EXPECT_TRUE(valid({{"multipleOf", 0.01}}, 19.99));
  EXPECT_TRUE(valid({{"multipleOf", 1.5}}, 4.5));
  EXPECT_FALSE(valid({{"multipleOf", 1.5}}, 35));
  EXPECT_TRUE(valid({{"multipleOf", 3}}, -9));
  EXPECT_TRUE(valid({{"multipleOf", 3}}, 9007199254740993LL));  // exact integer arithmetic
  EXPECT_FALSE(valid({{"multipleOf", 2}}, 9007199254740993LL));
  EXPECT_FALSE(valid({{"multipleOf", 0.123456789}}, 1e308));  // the quotient overflows
  EXPECT_FALSE(valid({{"multipleOf", 1}}, 1e-10));
  expect_issue({{"multipleOf", 2}}, 7, "", "/multipleOf", "must be a multiple of 2, got 7");
}

// ---- arrays -------------------------------------------------------------------

TEST(JsonSchemaArray, ItemsAndTuples) {
  expect_issue({{"items", {{"type", "integer"}}}}, {1, "x", 3}, "/1", "/items/type",
               "expected integer, got string");
  const json tuple = {{"items", {{{"type", "string"}}, {{"type", "number"}}}},
                      {"additionalItems", false}};
  EXPECT_TRUE(valid(tuple, {"a", 1}));
  EXPECT_TRUE(valid(tuple, {"a"}));
  expect_issue(tuple, {"a", 1, 2}, "", "/additionalItems", "must have at most 2 items, got 3");
  expect_issue({{"items", {{{"type", "string"}}}}, {"additionalItems", {{"type", "boolean"}}}},
               {"a", true, 3}, "/2", "/additionalItems/type", "expected boolean, got number");
  // additionalItems does nothing without an items array.
  EXPECT_TRUE(valid({{"additionalItems", false}}, {1, 2}));
}

TEST(JsonSchemaArray, PrefixItems2020) {
  const json schema = {{"prefixItems", {{{"type", "string"}}, {{"type", "number"}}}},
                       {"items", false}};
  EXPECT_TRUE(valid(schema, {"a", 1}));
  expect_issue(schema, {"a", 1, true}, "", "/items", "must have at most 2 items, got 3");
  expect_issue({{"prefixItems", {{{"type", "string"}}}}, {"items", {{"type", "number"}}}},
               {"a", 1, "b"}, "/2", "/items/type", "expected number, got string");
}

TEST(JsonSchemaArray, CountsContainsAndUniqueness) {
  expect_issue({{"minItems", 2}}, {1}, "", "/minItems", "must have at least 2 items, got 1");
  expect_issue({{"maxItems", 1}}, {1, 2}, "", "/maxItems", "must have at most 1 item, got 2");
  expect_issue({{"contains", {{"const", 5}}}}, {1, 2}, "", "/contains",
               "must contain at least one item that matches the 'contains' schema");
  EXPECT_TRUE(valid({{"contains", {{"const", 5}}}}, {1, 5}));
  expect_issue({{"uniqueItems", true}}, {1, 2, 1.0}, "", "/uniqueItems",
               "must not contain duplicate items (items 0 and 2 are equal)");
  EXPECT_FALSE(valid({{"uniqueItems", true}}, {{{"a", 1}}, {{"a", 1.0}}}));
  EXPECT_TRUE(
      valid({{"uniqueItems", true}}, {1, true, "1", nullptr, json::array(), json::object()}));
  json many = json::array();
  for (int i = 0; i < 20000; ++i) many.push_back(i);
  EXPECT_TRUE(valid({{"uniqueItems", true}}, many));  // hashed: linear, not quadratic
  many.push_back(19999.0);
  EXPECT_FALSE(valid({{"uniqueItems", true}}, many));
}

// ---- objects ------------------------------------------------------------------

TEST(JsonSchemaObject, RequiredAndAdditional) {
  const json schema = {
      {"type", "object"},
      {"properties", {{"city", {{"type", "string"}}}, {"units", {{"enum", {"c", "f"}}}}}},
      {"required", {"city", "units"}},
      {"additionalProperties", false}};
  EXPECT_TRUE(valid(schema, {{"city", "Oslo"}, {"units", "c"}}));
  expect_issue(schema, {{"units", "c"}}, "", "/required", "missing required property 'city'");
  expect_issue(schema, {{"city", "Oslo"}, {"units", "c"}, {"foo", 1}}, "/foo",
               "/additionalProperties", "property 'foo' is not allowed");
  // Every issue is reported, in a stable order.
  const auto found = issues(schema, {{"city", 3}, {"units", "k"}, {"zzz", 0}});
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].instance_path, "/city");
  EXPECT_EQ(found[1].instance_path, "/units");
  EXPECT_EQ(found[2].message, "property 'zzz' is not allowed");
  const auto missing = issues(schema, json::object());
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[1].message, "missing required property 'units'");
}

TEST(JsonSchemaObject, PatternPropertiesAndNames) {
  const json schema = {{"patternProperties", {{"^x-", {{"type", "string"}}}}},
                       {"additionalProperties", false}};
  EXPECT_TRUE(valid(schema, {{"x-a", "s"}}));
  expect_issue(schema, {{"x-a", "s"}, {"b", 1}}, "/b", "/additionalProperties",
               "property 'b' is not allowed");
  expect_issue(schema, {{"x-a", 1}}, "/x-a", "/patternProperties/^x-/type",
               "expected string, got number");
  expect_issue({{"propertyNames", {{"pattern", "^[a-z]+$"}}}}, {{"Foo", 1}}, "/Foo",
               "/propertyNames/pattern",
               "invalid property name 'Foo': must match pattern '^[a-z]+$'");
  expect_issue({{"propertyNames", false}}, {{"a", 1}}, "/a", "/propertyNames",
               "property 'a' is not allowed");
  expect_issue({{"minProperties", 1}}, json::object(), "", "/minProperties",
               "must have at least 1 property, got 0");
  expect_issue({{"maxProperties", 1}}, {{"a", 1}, {"b", 2}}, "", "/maxProperties",
               "must have at most 1 property, got 2");
}

TEST(JsonSchemaObject, Dependencies) {
  expect_issue({{"dependencies", {{"card", {"billing"}}}}}, {{"card", 1}}, "", "/dependencies/card",
               "property 'billing' is required when property 'card' is present");
  EXPECT_TRUE(valid({{"dependencies", {{"card", {"billing"}}}}}, {{"billing", 1}}));
  expect_issue({{"dependencies", {{"card", {{"required", {"cvv"}}}}}}}, {{"card", 1}}, "",
               "/dependencies/card/required", "missing required property 'cvv'");
  // 2020-12 spellings.
  expect_issue({{"dependentRequired", {{"card", {"billing"}}}}}, {{"card", 1}}, "",
               "/dependentRequired/card",
               "property 'billing' is required when property 'card' is present");
  expect_issue({{"dependentSchemas", {{"card", {{"maxProperties", 1}}}}}}, {{"card", 1}, {"x", 2}},
               "", "/dependentSchemas/card/maxProperties", "must have at most 1 property, got 2");
}

TEST(JsonSchemaObject, PointerEscapingAndLimits) {
  expect_issue({{"properties", {{"a/b~c", {{"type", "string"}}}}}}, {{"a/b~c", 1}}, "/a~1b~0c",
               "/properties/a~1b~0c/type", "expected string, got number");
  const auto s = compiled({{"additionalProperties", false}});
  json many = json::object();
  for (int i = 0; i < 10; ++i) many["k" + std::to_string(i)] = i;
  EXPECT_EQ(s->validate(many).size(), 10u);
  EXPECT_EQ(s->validate(many, 3).size(), 3u);
  EXPECT_EQ(s->validate(many, 0).size(), 1u);  // at least one: empty always means valid
}

// ---- applicators ----------------------------------------------------------

TEST(JsonSchemaApplicators, AnyOfOneOfGiveOneClearIssue) {
  expect_issue(
      {{"anyOf", {{{"type", "string"}}, {{"type", "null"}}}}}, 3, "", "/anyOf",
      "must match at least one of the 2 schemas in anyOf: expected string or null, got number");
  expect_issue({{"oneOf", {{{"type", "integer"}}, {{"type", "string"}}}}}, 1.5, "", "/oneOf",
               "must match exactly one of the 2 schemas in oneOf, matched 0: expected integer or "
               "string, got number");
  expect_issue({{"oneOf", {{{"type", "integer"}}, {{"minimum", 0}}}}}, 5, "", "/oneOf",
               "must match exactly one of the 2 schemas in oneOf, matched 2 (oneOf/0 and oneOf/1)");
  expect_issue({{"anyOf", {{{"minimum", 10}}, {{"maximum", 0}}}}}, 5, "", "/anyOf",
               "must match at least one of the 2 schemas in anyOf");  // a tie: no branch is closest
}

TEST(JsonSchemaApplicators, ClosestBranchOfADiscriminatedUnion) {
  auto shape = [](const char* kind, const char* field) {
    return json{{"type", "object"},
                {"properties", {{"kind", {{"const", kind}}}, {field, {{"type", "number"}}}}},
                {"required", {"kind", field}}};
  };
  const json schema = {{"oneOf", {shape("circle", "r"), shape("square", "side")}}};
  EXPECT_TRUE(valid(schema, {{"kind", "circle"}, {"r", 2}}));
  const auto found = issues(schema, {{"kind", "circle"}, {"r", "big"}});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].schema_path, "/oneOf");
  EXPECT_EQ(found[0].message,
            "must match exactly one of the 2 schemas in oneOf, matched 0; the closest is oneOf/0, "
            "which fails with the issues that follow");
  EXPECT_EQ(found[1].instance_path, "/r");
  EXPECT_EQ(found[1].schema_path, "/oneOf/0/properties/r/type");
  EXPECT_EQ(found[1].message, "expected number, got string");
}

TEST(JsonSchemaApplicators, AllOfNotIfThenElse) {
  const auto found = issues({{"allOf", {{{"minimum", 1}}, {{"multipleOf", 2}}}}}, -1);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].schema_path, "/allOf/0/minimum");
  EXPECT_EQ(found[1].schema_path, "/allOf/1/multipleOf");
  expect_issue({{"not", {{"type", "string"}}}}, "x", "", "/not",
               "must not match the schema in 'not'");
  const json conditional = {{"if", {{"properties", {{"country", {{"const", "US"}}}}}}},
                            {"then", {{"required", {"zip"}}}},
                            {"else", {{"required", {"postcode"}}}}};
  expect_issue(conditional, {{"country", "US"}}, "", "/then/required",
               "missing required property 'zip'");
  expect_issue(conditional, {{"country", "NO"}}, "", "/else/required",
               "missing required property 'postcode'");
  EXPECT_TRUE(valid({{"then", false}}, 1));  // then without if does nothing
}

// ---- boolean schemas ------------------------------------------------------

TEST(JsonSchemaBoolean, TrueAndFalseAnywhere) {
  EXPECT_TRUE(valid(true, {{"anything", {1, 2}}}));
  expect_issue(false, 1, "", "", "no value is allowed here (the schema is false)");
  expect_issue({{"properties", {{"a", false}}}}, {{"a", 1}}, "/a", "/properties/a",
               "property 'a' is not allowed");
  expect_issue({{"items", false}}, {1}, "", "/items", "must have at most 0 items, got 1");
  expect_issue({{"items", {true, false}}}, {1, 2}, "/1", "/items/1", "item 1 is not allowed");
  EXPECT_FALSE(valid({{"allOf", {true, false}}}, 1));
  EXPECT_TRUE(valid({{"anyOf", {false, true}}}, 1));
  EXPECT_TRUE(valid({{"not", false}}, 1));
}

// ---- references -----------------------------------------------------------

TEST(JsonSchemaRef, DefinitionsDefsAndPointers) {
  expect_issue({{"$defs", {{"pos", {{"type", "integer"}, {"minimum", 1}}}}},
                {"properties", {{"n", {{"$ref", "#/$defs/pos"}}}}}},
               {{"n", 0}}, "/n", "/$defs/pos/minimum", "must be >= 1, got 0");
  EXPECT_FALSE(valid(
      {{"definitions", {{"s", {{"type", "string"}}}}}, {"items", {{"$ref", "#/definitions/s"}}}},
      {"a", 1}));
  const json pointer = {
      {"properties", {{"foo", {{"type", "integer"}}}, {"bar", {{"$ref", "#/properties/foo"}}}}}};
  EXPECT_FALSE(valid(pointer, {{"bar", "x"}}));
  const json escaped = {
      {"definitions", {{"a/b", {{"type", "integer"}}}, {"c%d", {{"type", "string"}}}}},
      {"properties",
       {{"x", {{"$ref", "#/definitions/a~1b"}}}, {"y", {{"$ref", "#/definitions/c%25d"}}}}}};
  EXPECT_TRUE(valid(escaped, {{"x", 1}, {"y", "s"}}));
  EXPECT_FALSE(valid(escaped, {{"x", "1"}}));
  EXPECT_FALSE(valid(escaped, {{"y", 1}}));
  // Sibling keywords of $ref are ignored in draft 7.
  EXPECT_TRUE(valid({{"definitions", {{"s", {{"type", "string"}}}}},
                     {"properties", {{"a", {{"$ref", "#/definitions/s"}, {"maxLength", 1}}}}}},
                    {{"a", "long"}}));
  // An enum value that looks like a reference is a value.
  EXPECT_TRUE(valid({{"enum", {{{"$ref", "#/nowhere"}}}}}, {{"$ref", "#/nowhere"}}));
}

TEST(JsonSchemaRef, IdsAndBaseUris) {
  const json plain_name = {{"$id", "http://example.com/root.json"},
                           {"definitions", {{"A", {{"$id", "#foo"}, {"type", "integer"}}}}},
                           {"properties", {{"a", {{"$ref", "#foo"}}}}}};
  EXPECT_TRUE(valid(plain_name, {{"a", 1}}));
  EXPECT_FALSE(valid(plain_name, {{"a", "x"}}));
  const json relative = {{"$id", "http://example.com/schemas/root.json"},
                         {"definitions", {{"B", {{"$id", "types/b.json"}, {"type", "string"}}}}},
                         {"properties",
                          {{"b", {{"$ref", "types/b.json"}}},
                           {"c", {{"$ref", "http://example.com/schemas/types/b.json"}}}}}};
  EXPECT_TRUE(valid(relative, {{"b", "x"}, {"c", "y"}}));
  EXPECT_FALSE(valid(relative, {{"c", 1}}));
  // A $ref beside an $id resolves against the parent's base: draft 7 ignores that $id.
  const json sibling_id = {
      {"$id", "http://localhost:1234/sibling_id/base/"},
      {"definitions",
       {{"foo", {{"$id", "http://localhost:1234/sibling_id/foo.json"}, {"type", "string"}}},
        {"base_foo", {{"$id", "foo.json"}, {"type", "number"}}}}},
      {"allOf", {{{"$id", "http://localhost:1234/sibling_id/"}, {"$ref", "foo.json"}}}}};
  EXPECT_TRUE(valid(sibling_id, 5));
  EXPECT_FALSE(valid(sibling_id, "a"));
  const json urn = {
      {"$id", "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"},
      {"minimum", 30},
      {"properties", {{"foo", {{"$ref", "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"}}}}}};
  EXPECT_TRUE(valid(urn, {{"foo", 37}}));
  EXPECT_FALSE(valid(urn, {{"foo", 12}}));
  const json anchor2020 = {{"$defs", {{"n", {{"$anchor", "num"}, {"type", "number"}}}}},
                           {"$ref", "#num"}};
  EXPECT_FALSE(valid(anchor2020, "x"));
  const json quote = {{"properties", {{"foo\"bar", {{"$ref", "#/definitions/foo%22bar"}}}}},
                      {"definitions", {{"foo\"bar", {{"type", "number"}}}}}};
  EXPECT_FALSE(valid(quote, {{"foo\"bar", "1"}}));
  const json nearest_parent = {
      {"$id", "http://example.com/a.json"},
      {"definitions",
       {{"x",
         {{"$id", "http://example.com/b/c.json"},
          {"not", {{"definitions", {{"y", {{"$id", "d.json"}, {"type", "number"}}}}}}}}}}},
      {"allOf", {{{"$ref", "http://example.com/b/d.json"}}}}};
  EXPECT_TRUE(valid(nearest_parent, 1));
  EXPECT_FALSE(valid(nearest_parent, "a"));
}

TEST(JsonSchemaRef, RecursiveSchemas) {
  const json tree = {{"type", "object"},
                     {"properties",
                      {{"value", {{"type", "number"}}},
                       {"children", {{"type", "array"}, {"items", {{"$ref", "#"}}}}}}},
                     {"required", {"value"}}};
  const json good = {
      {"value", 1}, {"children", {{{"value", 2}}, {{"value", 3}, {"children", {{{"value", 4}}}}}}}};
  EXPECT_TRUE(valid(tree, good));
  json bad = good;
  bad["children"][1]["children"][0]["value"] = "four";
  expect_issue(tree, bad, "/children/1/children/0/value", "/properties/value/type",
               "expected number, got string");
}

TEST(JsonSchemaRef, BuiltInDraft7Metaschema) {
  const json schema = {{"$ref", "http://json-schema.org/draft-07/schema#"}};
  EXPECT_TRUE(valid(schema, {{"type", "string"}, {"minLength", 2}}));
  const auto found = issues(schema, {{"type", 1}});
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].instance_path, "/type");
}

// ---- compile errors: the keyword and its JSON Pointer -------------------------

TEST(JsonSchemaCompileError, WrongKeywordValues) {
  expect_compile_error({{"minLength", -1}}, "minLength", "/minLength",
                       "minLength must be a non-negative integer, got number -1");
  expect_compile_error({{"properties", {{"a", {{"type", 3}}}}}}, "type", "/properties/a/type",
                       "type must be a type name or an array of type names");
  expect_compile_error({{"type", "strin"}}, "type", "/type", "type 'strin' is not one of");
  expect_compile_error({{"required", "x"}}, "required", "/required", "required must be an array");
  expect_compile_error({{"required", {"a", 1}}}, "required", "/required",
                       "must contain only strings");
  expect_compile_error({{"items", 3}}, "items", "/items",
                       "a schema must be an object or a boolean, got number 3");
  expect_compile_error({{"maxItems", 1.5}}, "maxItems", "/maxItems", "non-negative integer");
  expect_compile_error({{"multipleOf", 0}}, "multipleOf", "/multipleOf", "greater than 0");
  expect_compile_error({{"exclusiveMinimum", true}}, "exclusiveMinimum", "/exclusiveMinimum",
                       "draft 4 boolean form");
  expect_compile_error({{"anyOf", json::array()}}, "anyOf", "/anyOf", "non-empty array");
  expect_compile_error({{"enum", 3}}, "enum", "/enum", "enum must be an array");
  expect_compile_error({{"uniqueItems", "yes"}}, "uniqueItems", "/uniqueItems",
                       "must be a boolean");
  expect_compile_error({{"dependencies", {{"a", 3}}}}, "dependencies", "/dependencies/a",
                       "array of property names or a schema");
  expect_compile_error({{"properties", {{"a", {{"$ref", 5}}}}}}, "$ref", "/properties/a/$ref",
                       "must be a string");
  expect_compile_error({{"prefixItems", {json::object()}}, {"items", {json::object()}}}, "items",
                       "/items", "must be a schema when prefixItems is present");
  expect_compile_error({{"definitions", {{"unused", {{"maxLength", "3"}}}}}}, "maxLength",
                       "/definitions/unused/maxLength", "non-negative integer");
  expect_compile_error("string", "", "", "a schema must be an object or a boolean, got string");
}

TEST(JsonSchemaCompileError, InvalidRegexesNameThePattern) {
  expect_compile_error({{"pattern", "(a"}}, "pattern", "/pattern",
                       "pattern '(a' is not a valid regular expression");
  expect_compile_error({{"patternProperties", {{"[a", json::object()}}}}, "patternProperties",
                       "/patternProperties/[a", "pattern '[a'");
  expect_compile_error({{"pattern", 5}}, "pattern", "/pattern", "pattern must be a string");
}

TEST(JsonSchemaCompileError, References) {
  expect_compile_error({{"$ref", "#/definitions/missing"}}, "$ref", "/$ref",
                       "$ref '#/definitions/missing' resolves nowhere");
  expect_compile_error({{"properties", {{"a", {{"$ref", "#nope"}}}}}}, "$ref", "/properties/a/$ref",
                       "no schema has $id '#nope'");
  const auto remote =
      compile_error({{"properties", {{"a", {{"$ref", "http://example.com/x.json"}}}}}});
  EXPECT_EQ(remote.keyword, "$ref");
  EXPECT_EQ(remote.schema_path, "/properties/a/$ref");
  EXPECT_EQ(
      remote.message,
      "remote $ref 'http://example.com/x.json' is not supported (refs are resolved inside the "
      "schema only)");
  EXPECT_EQ(
      compile_error({{"$ref", "other.json#/a"}}).message,
      "remote $ref 'other.json#/a' is not supported (refs are resolved inside the schema only)");
  expect_compile_error({{"definitions", {{"a", {{"$id", "#x"}}}, {"b", {{"$id", "#x"}}}}}}, "$id",
                       "/definitions/b/$id", "names two schemas");
}

TEST(JsonSchemaCompileError, RefCyclesWithoutProgress) {
  const auto root = compile_error({{"$ref", "#"}});
  EXPECT_EQ(root.keyword, "$ref");
  EXPECT_EQ(root.schema_path, "/$ref");
  EXPECT_EQ(root.message, "$ref cycle: # -> #");
  const auto pair =
      compile_error({{"definitions",
                      {{"a", {{"$ref", "#/definitions/b"}}}, {"b", {{"$ref", "#/definitions/a"}}}}},
                     {"properties", {{"x", {{"$ref", "#/definitions/a"}}}}}});
  EXPECT_EQ(pair.schema_path, "/definitions/b/$ref");
  EXPECT_EQ(pair.message, "$ref cycle: #/definitions/a -> #/definitions/b -> #/definitions/a");
  EXPECT_EQ(compile_error({{"allOf", {{{"$ref", "#"}}}}}).message,
            "$ref cycle: # -> #/allOf/0 -> #");
  // Recursion through a keyword that descends into the instance is fine.
  EXPECT_TRUE(compiled({{"properties", {{"next", {{"$ref", "#"}}}}}}));
}

TEST(JsonSchemaCompile, IgnoresUnknownAndExtensionKeywords) {
  const json schema = {{"type", "string"},
                       {"x-ui", {{"type", 3}, {"minLength", -1}}},
                       {"frobnicate", {1, 2}},
                       {"title", "City"},
                       {"description", "where"},
                       {"default", 7},
                       {"examples", {1}},
                       {"$comment", "ignored"},
                       {"$schema", "http://json-schema.org/draft-07/schema#"}};
  EXPECT_TRUE(valid(schema, "x"));
  EXPECT_FALSE(valid(schema, 1));
}

// ---- limits ---------------------------------------------------------------

json nested_schema(int levels) {
  json schema = {{"type", "string"}};
  for (int i = 0; i < levels; ++i) schema = json{{"properties", {{"a", std::move(schema)}}}};
  return schema;
}

TEST(JsonSchemaLimits, SchemaDepth) {
  EXPECT_TRUE(compiled(nested_schema(60)));
  const auto error = compile_error(nested_schema(100));
  EXPECT_EQ(error.keyword, "properties");
  EXPECT_EQ(
      error.message.rfind("schema nesting exceeds max depth 64 at /properties/a/properties/a/", 0),
      0u)
      << error.message;
  SchemaOptions shallow;
  shallow.max_depth = 3;
  EXPECT_FALSE(std::holds_alternative<std::shared_ptr<const CompiledSchema>>(
      CompiledSchema::compile(nested_schema(4), shallow)));
}

json nested_arrays(std::size_t levels) {
  json value = json::array();
  for (std::size_t i = 0; i < levels; ++i) {
    json outer = json::array();
    outer.push_back(std::move(value));
    value = std::move(outer);
  }
  return value;
}

TEST(JsonSchemaLimits, InstanceDepthIsAnIssueNotACrash) {
  const json recursive = {{"type", "array"}, {"items", {{"$ref", "#"}}}};
  EXPECT_TRUE(valid(recursive, nested_arrays(60)));
  const auto found = issues(recursive, nested_arrays(100));
  ASSERT_EQ(found.size(), 1u);
  std::string where;
  for (int i = 0; i < 65; ++i) where += "/0";
  EXPECT_EQ(found[0].instance_path, where);
  EXPECT_EQ(found[0].message, "instance nesting exceeds max depth 64 at " + where);
  const json deep = nested_arrays(100000);  // far past any stack, with every recursive keyword
  for (const json& schema :
       {recursive, json{{"uniqueItems", true}, {"items", {{"$ref", "#"}}}}, json{{"const", {1}}},
        json{{"enum", {{1}}}}, json{{"contains", {{"$ref", "#"}}}}}) {
    const auto s = compiled(schema);
    EXPECT_FALSE(s->is_valid(deep)) << schema.dump();
    EXPECT_FALSE(s->validate(deep).empty()) << schema.dump();
  }
  EXPECT_TRUE(valid({{"type", "array"}}, deep));  // nothing descends: nothing to refuse
}

// ---- regex engine: the host's RegExp in wasm, std::regex natively -----------

#ifdef __EMSCRIPTEN__
constexpr bool kHostRegExp = true;
#else
constexpr bool kHostRegExp = false;
#endif

bool matches(const std::string& pattern, const std::string& subject) {
  return valid({{"pattern", pattern}}, subject);
}

// Patterns only the engine behind runs, which a page must allow.
SchemaOptions backtracking_allowed() {
  SchemaOptions options;
  options.allow_backtracking_patterns = true;
  return options;
}

bool matches_behind(const std::string& pattern, const std::string& subject) {
  return issues({{"pattern", pattern}}, subject, backtracking_allowed()).empty();
}

// What the reference engine says, straight from it: JavaScript's RegExp with
// "u" in wasm; natively std::regex, which reads bytes, so only on ASCII.
std::optional<bool> reference_search(const std::string& pattern, const std::string& subject) {
#ifdef __EMSCRIPTEN__
  return EM_ASM_INT(
             {
               const text = new TextDecoder("utf-8", {ignoreBOM : true});
               const pattern = text.decode(HEAPU8.subarray($0, $0 + $1));
               return new RegExp(pattern, "u").test(text.decode(HEAPU8.subarray($2, $2 + $3)));
             },
             pattern.data(), pattern.size(), subject.data(), subject.size()) != 0;
#else
  for (const char c : subject) {
    if (static_cast<unsigned char>(c) >= 0x80) return std::nullopt;
  }
  // std::regex has no named groups: the names only label groups.
  const std::regex name("\\(\\?<[A-Za-z_$][A-Za-z0-9_$]*>");
  return std::regex_search(
      subject, std::regex(std::regex_replace(pattern, name, "("), std::regex::ECMAScript));
#endif
}

TEST(JsonSchemaRegex, DigitsAndWordsAreAsciiAsInJs) {
  EXPECT_TRUE(matches("^\\d+$", "123"));
  EXPECT_FALSE(matches("^\\d+$", "\xD9\xA1\xD9\xA2"));  // Arabic-Indic digits: JS \d is ASCII too
  EXPECT_FALSE(matches("^\\w+$", "caf\xC3\xA9"));       // JS: also false, \w is [A-Za-z0-9_]
}

TEST(JsonSchemaRegex, AnchorsAndUnanchoredSearch) {
  EXPECT_TRUE(matches("b", "abc"));        // search, not a full match (JS: same)
  EXPECT_FALSE(matches("^b", "abc"));      // JS: same
  EXPECT_FALSE(matches("^b", "a\nb"));     // ^ is the subject's start, no multiline (JS: same)
  EXPECT_FALSE(matches("a$", "a\n"));      // JS: same
  EXPECT_FALSE(matches("^a.c$", "a\nc"));  // . does not match a line feed (JS: same)
}

TEST(JsonSchemaRegex, SubjectsAreCodePoints) {
  // ASCII patterns run on the linear-time matcher in both builds, over code
  // points, as JS with "u" does.
  const std::string e_acute = "\xC3\xA9";  // é, two bytes in UTF-8
  EXPECT_TRUE(matches("^.$", e_acute));
  EXPECT_FALSE(matches("^..$", e_acute));
  EXPECT_TRUE(matches("^[^a]$", e_acute));
  EXPECT_TRUE(matches("^.$", "\xF0\x9F\x98\x80"));  // U+1F600, four bytes, one character
  EXPECT_FALSE(matches("^a.b$", "a\u2028b"));       // U+2028 ends a line: "." skips it
  EXPECT_TRUE(matches("^\\s$", "\xC2\xA0"));        // NBSP is \s in JS
  EXPECT_TRUE(matches("^\\s$", "\xE3\x80\x80"));    // so is U+3000
  EXPECT_FALSE(matches("^\\S+$", "a\u00A0b"));
  EXPECT_TRUE(matches("^\\S\\W\\D$", "\xC3\xA9\xC3\xA9\xC3\xA9"));
  // Non-ASCII in the pattern too: literals, classes and escapes are code points.
  EXPECT_TRUE(matches("^caf\u00e9$", "caf" + e_acute));
  EXPECT_TRUE(matches("^[\u00e9]$", e_acute));
  EXPECT_FALSE(matches("^[^\u00e9]$", e_acute));
  EXPECT_TRUE(matches("\\u00e9", e_acute));
  EXPECT_TRUE(matches("^\\xe9$", e_acute));
  EXPECT_TRUE(matches("^[A-Za-z\u00C0-\u00FF]+$", "Zo\u00EB"));
  EXPECT_FALSE(matches("^[A-Za-z\u00C0-\u00FF]+$", "Zo\u0113"));  // ē is past ÿ
  // Outside the subset (a lookahead), the host's RegExp reads code points;
  // std::regex reads bytes: a class of two bytes, neither of which is "é".
  EXPECT_EQ(matches_behind("^(?!a)[\u00e9]$", e_acute), kHostRegExp);
  // The host's RegExp sees a leading U+FEFF
  // (a byte order mark) as the subject's one character.
  EXPECT_EQ(matches_behind("^(?!a).$", "\xEF\xBB\xBF"), kHostRegExp);
  // And a NUL inside the subject is a character like any other, not its end.
  EXPECT_TRUE(matches_behind("^(?!x)a\\x00b$", std::string("a\0b", 3)));
}

TEST(JsonSchemaRegex, SyntaxBeyondTheCommonSubset) {
  EXPECT_TRUE(matches_behind("^(?!admin$)[a-z]+$", "alice"));  // lookahead: both engines
  EXPECT_FALSE(matches_behind("^(?!admin$)[a-z]+$", "admin"));
  // Named groups are plain groups to the linear-time matcher, in both builds.
  EXPECT_TRUE(matches("^(?<year>\\d{4})-(?<month>\\d{2})$", "2024-05"));
  EXPECT_FALSE(matches("^(?<year>\\d{4})-(?<month>\\d{2})$", "2024-5"));
  if (kHostRegExp) {
    // The host's RegExp with "u" has all of ECMA-262, as ajv does; \p{...}
    // runs on the matcher, which asks the host about each code point.
    EXPECT_TRUE(matches("^\\p{L}+$", "caf\xC3\xA9"));
    EXPECT_FALSE(matches("^\\p{L}+$", "cafe1"));
    EXPECT_TRUE(matches_behind("(?<=a)b", "ab"));
    EXPECT_FALSE(matches_behind("(?<=a)b", "cb"));
    EXPECT_TRUE(matches_behind("^(?<year>\\d{4})-\\k<year>$", "2024-2024"));
    EXPECT_FALSE(matches_behind("^(?<year>\\d{4})-\\k<year>$", "2024-2025"));
    // What "u" makes an error is one, named by the host, with the pattern.
    EXPECT_EQ(compile_error({{"pattern", "\\-"}}).message,
              "pattern '\\-' is not a valid regular expression: Invalid escape");
    return;
  }
  const auto property = compile_error({{"properties", {{"name", {{"pattern", "^\\p{L}+$"}}}}}});
  EXPECT_EQ(property.keyword, "pattern");
  EXPECT_EQ(property.schema_path, "/properties/name/pattern");
  EXPECT_EQ(property.message,
            "pattern '^\\p{L}+$' is not a valid regular expression: Unicode property escapes "
            "(\\p{...}) are not supported by the default regex engine");
  EXPECT_NE(compile_error({{"pattern", "(?<=a)b"}}).message.find("lookbehind"), std::string::npos);
  EXPECT_NE(compile_error({{"pattern", "(?<a>x)(?<a>y)"}}).message.find("duplicate group name 'a'"),
            std::string::npos);
  EXPECT_NE(compile_error({{"pattern", "(?<x>a)\\k<x>"}}).message.find("named back-references"),
            std::string::npos);
}

TEST(JsonSchemaRegex, LongSubjectsDoNotCrash) {
  // libstdc++'s depth-first executor would recurse per character here and
  // overflow an 8 MB stack; these run on the linear-time matcher, and the
  // patterns outside its subset on std::regex's breadth-first executor (next test).
  const std::string long_a(100000, 'a');
  EXPECT_TRUE(matches("^a*$", long_a));
  EXPECT_TRUE(matches("^(a|b)*$", long_a));
  const auto found = issues({{"pattern", "^a*$"}}, long_a + "b");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message, "must match pattern '^a*$'");
  // A pattern over the engines' limit is refused when the schema compiles.
  const std::string longest(agui::schema_detail::MatcherFirstEngine::kMaxPatternBytes, 'a');
  EXPECT_NE(compiled({{"pattern", longest}}), nullptr);
  EXPECT_NE(compile_error({{"pattern", longest + "a"}}).message.find("is longer than 16384 bytes"),
            std::string::npos);
  // Over the engine's subject limit: an issue, not a match.
  const auto over =
      issues({{"pattern", "a"}}, std::string(agui::kDefaultRegexMaxSubjectBytes + 1, 'a'));
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0].message.rfind("could not check pattern 'a': the string is longer than", 0), 0u);
}

TEST(JsonSchemaRegex, RunawayBacktrackingIsDecidedInTheSubset) {
  // In the linear-time matcher's subset: decided, 2^30 paths or not.
  const std::string subject = std::string(30, 'a') + "b";
  expect_issue({{"pattern", "^(a+)+$"}}, subject, "", "/pattern", "must match pattern '^(a+)+$'");
  // Outside it (a lookahead), natively std::regex's breadth-first executor
  // decides it too. The host's RegExp backtracks, as it does for ajv, with
  // no time bound (docs/limits.md): 20 a's are a million paths. So the
  // page must allow such a pattern first.
  const std::string shorter = std::string(kHostRegExp ? 20 : 30, 'a') + "b";
  const auto found = issues({{"pattern", "^(?=a)(a+)+$"}}, shorter, backtracking_allowed());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message, "must match pattern '^(?=a)(a+)+$'");
}

TEST(JsonSchemaRegex, LongSubjectsOutsideTheFastSubset) {
  const std::string long_a(100000, 'a');
  EXPECT_TRUE(matches_behind("^(?=a)a*$", long_a));  // the engine behind, not the matcher
  EXPECT_TRUE(matches_behind("^(?!b)(a|b)*$", long_a));
  EXPECT_FALSE(matches_behind("^(?=a)a*$", long_a + "b"));
}

// The linear-time matcher must answer exactly as the reference engine does on
// every pattern it accepts: the host's RegExp with "u" (wasm), std::regex on
// ASCII subjects (native).
TEST(JsonSchemaRegexVm, AgreesWithTheReferenceOnItsSubset) {
  std::vector<std::string> patterns = {
      "^[a-z]+$",
      "^[A-Z]{2}$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$",
      "^\\+?[1-9]\\d{1,14}$",
      "^[a-z]{2}(-[A-Z]{2})?$",
      "^(ctrl|alt)(\\+(ctrl|alt))*\\+[a-z0-9]$",
      "^\\d{2}:\\d{2}(:\\d{2})?(Z|[+-]\\d{2}:\\d{2})$",
      "a*b",
      "b",
      "^$",
      "^",
      "$",
      "a|",
      "()",
      "(a*)*b",
      "a{2,3}",
      "a{2}",
      "a{0,}",
      "a+?b",
      "a??b",
      "\\bab\\b",
      "\\Bb",
      "[a-c-]",
      "[-a]",
      "[\\-.]+",
      "[\\w.]+@",
      "\\W",
      "\\D+",
      "\\S\\s",
      "^\\s+$",
      "^\\S+$",
      ".",
      "^.$",
      "^..$",
      "a.c",
      "^[^a]+$",
      "(?:ab|a)(bc|c)$",
      "^(a|ab)(c|bcd)(d*)$",
      "[^a-z]",
      "\\/",
      "\\.",
      "x\\x41",
      "\\u0041",
      "[\\b]",
      "\\t|\\n",
      "^(a+)+$",
      "^(\\w+\\s?)+$",
      "(^a|b$)",
      "a$|^b",
      "\\b\\w+\\b",
      "^caf\u00e9$",
      "[\u00e9]",
      "^[^\u00e9]$",
      "\\u00e9",
      "\\xe9",
      "\\x80",
      "^[A-Za-z\u00C0-\u00FF]+$",
      "^[\u65E5-\u672C]+$",
      "\U0001F600+",
      "^[^\\s\u00e9]+$",
      "^\\u3000?\\S$",
      "[\\u00e0-\\u00ff]",
      "^[A-Za-z\u00C0-\u00FF' -]+$",
      "^[\u00e0-\u00f6\u00e4-\u00ff\u0100]+$",  // overlapping and adjacent ranges
      "^[^\u00ff\u00e0-\u00f6\u4e00]$",         // out of order, negated
      "^(?<n>a+)+$",                            // named groups
      "(?<year>\\d{4})-(?<m>\\d{2})",
      "^(?:a|(?<x>b))+$",
      "^(a{1,3}){2,3}$",  // counted repetition, nested
      "^(a{1,100}){1,100}$",
      "^(ab?){2,}c?$",
      "^(?:x{0,2}y){1,2}$",
      "a{0}b",
      "(){3}a",
  };
  if (kHostRegExp) {  // Syntax std::regex lacks: only the host can be the reference.
    for (const char* escape :
         {"^\\0$", "^\\cJ$", "[\\cA-\\cZ]", "\\u{1F600}", "^[\\u{E9}-\\u{FF}]+$", "\\uD83D\\uDE00",
          "^[\\uD83D\\uDE00-\\uD83D\\uDE4F]$", "^[]$", "[]", "^[^]$", "a[^]b",
          "^\\u{0}\\u{10FFFF}?$"}) {
      patterns.push_back(escape);
    }
  }
  if (kHostRegExp) {  // \p{...}: the host has the Unicode tables
    for (const char* property :
         {"^\\p{L}+$", "^\\P{L}+$", "^[\\p{L}\\d_ -]+$", "^[^\\p{Lu}]+$", "\\p{Script=Greek}",
          "^(\\p{L}+)+$", "^[\\P{Ll}a]$", "\\p{N}", "^\\p{Emoji}$", "^[\\p{Nd}\\p{Sc}]+$"}) {
      patterns.push_back(property);
    }
  }
  std::vector<std::string> subjects = {"",
                                       "a",
                                       "b",
                                       "ab",
                                       "abc",
                                       "aab",
                                       "aaab",
                                       "ba",
                                       "AB",
                                       "Ab",
                                       "2024-05-01",
                                       "12:30",
                                       "12:30:05Z",
                                       "12:30+02:00",
                                       "+14155550123",
                                       "0123",
                                       "ada@example.com",
                                       "a b",
                                       "a\nb",
                                       "a\rc",
                                       "a.c",
                                       "a/c",
                                       "x-y",
                                       "nb-NO",
                                       "ctrl+k",
                                       "ctrl+alt+k",
                                       "alt+",
                                       "abcd",
                                       "abbcd",
                                       "\t",
                                       "\b",
                                       "xA",
                                       "caf\xC3\xA9",
                                       "\xC3\xA9",
                                       "\u00E9b",
                                       "a\u00A0b",
                                       "\xE2\x80\xA8",
                                       "a\u2029c",
                                       "\xE3\x80\x80",
                                       "\xEF\xBB\xBF",
                                       "\xE6\x97\xA5\xE6\x9C\xAC",
                                       "\xF0\x9F\x98\x80",
                                       "a\U0001F600b",
                                       "\u00ff\u0100",
                                       "\u4e00",
                                       "aaaaaaaaaaaaaaaaaaab",
                                       "hello world",
                                       "A",
                                       "aaaaaaaaaaaa",
                                       "2024-05",
                                       "abbc",
                                       "xyxxy",
                                       "\xCE\xB1\xCE\xB2",  // Greek alpha beta
                                       "\xE2\x82\xAC"
                                       "5",                 // euro sign, 5
                                       "\xD9\xA1\xD9\xA2",  // Arabic-Indic digits
                                       "Stra\xC3\x9F"
                                       "e",
                                       std::string("\0", 1),
                                       "\n",
                                       "\x01"};
  const std::string alphabet = "ab1-. \n";
  for (char x : alphabet) {
    for (char y : alphabet) subjects.push_back(std::string{x, y});
  }
  std::size_t compared = 0, reference_subjects = 0;
  for (const auto& subject : subjects) reference_subjects += reference_search("", subject) ? 1 : 0;
  for (const auto& pattern : patterns) {
    const auto program = agui::schema_detail::compile_regex_program(
        pattern, agui::schema_detail::default_property_oracle());
    ASSERT_TRUE(program) << pattern << " should be in the subset";
    for (const auto& subject : subjects) {
      const auto expected = reference_search(pattern, subject);
      if (!expected) continue;
      ++compared;
      EXPECT_EQ(agui::schema_detail::regex_program_search(*program, subject), *expected)
          << "pattern " << pattern << " on " << json(subject).dump();
    }
  }
  // Every subject in wasm; natively, the ASCII ones.
  EXPECT_EQ(compared, patterns.size() * reference_subjects);
  EXPECT_EQ(reference_subjects, kHostRegExp ? subjects.size() : subjects.size() - 17);
  // Left to the engine behind: back-references, lookaround, surrogate escapes,
  // bytes that are not UTF-8, syntax the engines disagree on, and escapes
  // beyond the subset.
  for (const char* outside :
       {"(a)\\1", "(?=a)", "(?!a)b", "a{,3}", "[\\d-z]", "a]", "x{", "a}", "\\uD83D", "\\uDE00",
        "\xFF", "[[:alpha:]]", "\\_", "\\e", "a**", "^*", "(?<\u00e9>a)"}) {
    EXPECT_FALSE(agui::schema_detail::compile_regex_program(outside)) << outside;
  }
}

// The matcher's work on one search, in steps (each bounded by a constant).
std::size_t steps_of(const agui::schema_detail::RegexProgram& program, const std::string& subject,
                     bool* found = nullptr) {
  const std::size_t budget = static_cast<std::size_t>(-1);
  std::size_t left = budget;
  const bool matched = agui::schema_detail::regex_program_search(program, subject, &left);
  if (found) *found = matched;
  return budget - left;
}

TEST(JsonSchemaRegexVm, CountedRepetitionInsideRepetitionIsLinear) {
  // Backtracking engines take 2^k paths on k a's and a b (seconds at k = 30).
  const auto program = agui::schema_detail::compile_regex_program("^(a{1,100}){1,100}$");
  ASSERT_TRUE(program);
  const std::size_t size = agui::schema_detail::regex_program_size(*program);
  EXPECT_LE(size, agui::schema_detail::kMaxRegexProgram);
  for (const std::size_t k : {18u, 30u, 200u}) {
    bool found = true;
    const std::size_t steps = steps_of(*program, std::string(k, 'a') + "b", &found);
    EXPECT_FALSE(found) << k;
    // At most two steps per instruction per code point, plus the start.
    EXPECT_LE(steps, 2 * size * (k + 2)) << k;
  }
  bool found = false;
  steps_of(*program, std::string(30, 'a'), &found);
  EXPECT_TRUE(found);
  // Through a schema, with default options: decided, no engine behind.
  expect_issue({{"pattern", "^(a{1,100}){1,100}$"}}, std::string(30, 'a') + "b", "", "/pattern",
               "must match pattern '^(a{1,100}){1,100}$'");
}

TEST(JsonSchemaRegexVm, NamedGroupsAreLinear) {
  const auto program = agui::schema_detail::compile_regex_program("^(?<n>a+)+$");
  ASSERT_TRUE(program);
  const std::size_t size = agui::schema_detail::regex_program_size(*program);
  bool found = true;
  EXPECT_LE(steps_of(*program, std::string(29, 'a') + "b", &found), 2 * size * 31);
  EXPECT_FALSE(found);
  expect_issue({{"pattern", "^(?<n>a+)+$"}}, std::string(29, 'a') + "b", "", "/pattern",
               "must match pattern '^(?<n>a+)+$'");
}

TEST(JsonSchemaRegexVm, AProgramPastItsSizeLimitIsOutsideAndSaysWhy) {
  std::string why;
  EXPECT_FALSE(agui::schema_detail::compile_regex_program("^(a{1,1000}){1,1000}$", nullptr, &why));
  EXPECT_EQ(why,
            "the repetition {1,1000} (at byte 12) needs more than the linear-time matcher's "
            "32768 instructions");
  EXPECT_FALSE(agui::schema_detail::compile_regex_program("a{32769}", nullptr, &why));
  EXPECT_EQ(why, "a repetition count above 32768 (at byte 2)");
  EXPECT_FALSE(agui::schema_detail::compile_regex_program("a{32767}bc", nullptr, &why));
  EXPECT_EQ(why, "the pattern needs more than the linear-time matcher's 32768 instructions");
  EXPECT_TRUE(agui::schema_detail::compile_regex_program("a{32766}"));  // and the final match
  // An empty body repeated is empty, however often: no work at all.
  EXPECT_TRUE(agui::schema_detail::compile_regex_program("(((a{0}){0,1000}){0,1000}){0,1000}x"));
  for (const auto& [pattern, reason] : std::vector<std::pair<std::string, std::string>>{
           {"^(?=a)(a+)+$", "a lookahead (?=...) or (?!...) (at byte 1)"},
           {"x(?<!a)", "a lookbehind (?<=...) or (?<!...) (at byte 1)"},
           {"(a)\\1", "a back-reference \\1 (at byte 3)"},
           {"(?<n>a)\\k<n>", "a named back-reference \\k<...> (at byte 7)"}}) {
    why.clear();
    EXPECT_FALSE(agui::schema_detail::compile_regex_program(pattern, nullptr, &why));
    EXPECT_EQ(why, reason) << pattern;
  }
}

TEST(JsonSchemaRegex, BacktrackingPatternsAreRefusedUnlessThePageAllowsThem) {
  const auto error = compile_error({{"properties", {{"id", {{"pattern", "^(?=a)(a+)+$"}}}}}});
  EXPECT_EQ(error.keyword, "pattern");
  EXPECT_EQ(error.schema_path, "/properties/id/pattern");
  EXPECT_EQ(error.message,
            "pattern '^(?=a)(a+)+$' has a lookahead (?=...) or (?!...) (at byte 1), which only a "
            "backtracking regex engine runs, with no bound on its time: a model's argument could "
            "stall the page. Rewrite the pattern, or accept the risk with the option "
            "allowBacktrackingPatterns: true");
  // (std::regex, natively, has a smaller limit of its own, and says so first.)
  const auto too_big = compile_error({{"pattern", "^(a{1,1000}){1,1000}$"}});
  EXPECT_NE(too_big.message.find(kHostRegExp
                                     ? "pattern '^(a{1,1000}){1,1000}$' has the repetition {1,1000}"
                                     : "pattern '^(a{1,1000}){1,1000}$' is not a valid"),
            std::string::npos)
      << too_big.message;
  EXPECT_NE(compiled({{"pattern", "^(?=a)(a+)+$"}}, backtracking_allowed()), nullptr);
  // patternProperties too.
  EXPECT_EQ(compile_error({{"patternProperties", {{"^(?!x)", json::object()}}}}).keyword,
            "patternProperties");
}

TEST(JsonSchemaRegex, OneValidationSpendsABoundedNumberOfMatcherSteps) {
  // Each string is linear, but many long ones against a large program add up:
  // past the budget, the strings left get an issue, not a match.
  const json schema = {{"items", {{"pattern", "^(a{1,100}){1,100}$"}}}};
  const json few = json::array({std::string(30, 'a')});
  EXPECT_TRUE(issues(schema, few).empty());
  json many = json::array();
  for (int k = 0; k < 40; ++k) many.push_back(std::string(2000, 'a') + "b");
  const auto found = issues(schema, many);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.back().message,
            "could not check pattern '^(a{1,100}){1,100}$': the pattern needs more than the "
            "33554432 matcher steps one validation may take");
}

// A stand-in for the host's Unicode tables: "Letter" is ASCII letters and
// U+00C0-U+024F. It counts the questions, which the matcher asks only off ASCII.
class FakeProperties final : public agui::schema_detail::UnicodePropertyOracle {
 public:
  mutable int asked = 0;
  std::optional<std::uint32_t> find(std::string_view name) const override {
    if (name == "Letter") return 7;
    return std::nullopt;
  }
  bool contains(std::uint32_t property, char32_t c) const override {
    EXPECT_EQ(property, 7u);
    if (c >= 0x80) ++asked;
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F);
  }
};

TEST(JsonSchemaRegexVm, PropertyEscapesAskTheOracleAndStayLinear) {
  const FakeProperties letters;
  auto search = [&](const std::string& pattern, const std::string& subject) {
    const auto program = agui::schema_detail::compile_regex_program(pattern, &letters);
    EXPECT_TRUE(program) << pattern;
    return program && agui::schema_detail::regex_program_search(*program, subject);
  };
  EXPECT_TRUE(search("^\\p{Letter}+$", "Zo\u00EB"));
  EXPECT_FALSE(search("^\\p{Letter}+$", "Zo\u00EB1"));
  EXPECT_TRUE(search("^\\P{Letter}+$", "1-\u4E00"));
  EXPECT_TRUE(search("^[\\p{Letter}\\d]+$", "a1\u00E9"));
  EXPECT_FALSE(search("^[^\\p{Letter}]$", "\u00E9"));
  EXPECT_TRUE(search("^[^\\P{Letter}x]$", "\u00E9"));  // not a non-letter, not x
  EXPECT_FALSE(search("^[^\\P{Letter}x]$", "x"));
  EXPECT_GT(letters.asked, 0);
  const int before = letters.asked;
  EXPECT_TRUE(search("^\\p{Letter}{3}$", "abc"));  // ASCII: answered when compiled
  EXPECT_EQ(letters.asked, before);
  std::string why;
  EXPECT_FALSE(agui::schema_detail::compile_regex_program("\\p{Nope}", &letters, &why));
  EXPECT_EQ(why, "a Unicode property the host does not know (at byte 0)");
  // Without tables (natively) a property escape is outside the subset.
  EXPECT_FALSE(agui::schema_detail::compile_regex_program("\\p{L}", nullptr, &why));
  const auto program = agui::schema_detail::compile_regex_program("^(\\p{Letter}+)+$", &letters);
  ASSERT_TRUE(program);
  bool found = true;
  EXPECT_LE(steps_of(*program, std::string(30, 'a') + "1", &found),
            2 * agui::schema_detail::regex_program_size(*program) * 32);
  EXPECT_FALSE(found);
}

TEST(JsonSchemaRegex, BackReferences) {
  if (kHostRegExp) {
    EXPECT_TRUE(matches_behind("^(ab)\\1$", "abab"));
    EXPECT_FALSE(matches_behind("^(ab)\\1$", "abba"));
    EXPECT_TRUE(
        issues({{"pattern", "^(a)\\1*$"}}, std::string(5000, 'a'), backtracking_allowed()).empty());
    return;
  }
  // libstdc++ could only backtrack them, without a time bound.
  EXPECT_NE(
      compile_error({{"pattern", "^(ab)\\1$"}}).message.find("back-references are not supported"),
      std::string::npos);
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(JsonSchemaRegex, WhatWouldOverflowOrRunAwayIsRefused) {
  // Stacked quantifiers: JS says "nothing to repeat"; libstdc++ would
  // backtrack, so the native engine refuses them first, in the same words.
  for (const char* stacked : {"(a)+*", "a**", "a+{2}", "a{2}{3}", "a???", "x*?+"}) {
    EXPECT_NE(lowercase(compile_error({{"pattern", stacked}}).message).find("nothing to repeat"),
              std::string::npos)
        << stacked;
  }
  for (const char* fine : {"a+?", "a??", "a{2}?b*", "(a*)*", "[*+]+", "\\*+"}) {
    EXPECT_NE(compiled({{"pattern", fine}}), nullptr) << fine;
  }
  EXPECT_TRUE(matches("^a{2,1000}$", "aa"));  // large bounds under the limit are fine
  EXPECT_NE(compile_error({{"pattern", "(a)\\8888888888888888888"}})
                .message.find(kHostRegExp
                                  ? "Invalid escape"
                                  : "the back-reference \\8888888888888888888 names no group (the "
                                    "pattern has 1)"),
            std::string::npos);
  if (kHostRegExp) return;  // V8 reads a bound past 2^31 as unbounded
  // Numbers std::regex's parser reads into an int (undefined behaviour there).
  const auto bound = compile_error({{"pattern", "^[1-9]{83333333333333333333,}$"}});
  EXPECT_EQ(bound.keyword, "pattern");
  EXPECT_NE(bound.message.find("a quantifier bound above 100000 (at byte 6)"), std::string::npos)
      << bound.message;
  // Unclosed, the brace is a literal in JS; libstdc++ still parses the number.
  EXPECT_NE(compile_error({{"pattern", "[1-9]{83333333333333333333333,|"}})
                .message.find("a quantifier bound above 100000 (at byte 5)"),
            std::string::npos);
}

// Any engine plugs in through RegexEngine, as the host's RegExp does in wasm.
class PrefixEngine final : public agui::RegexEngine {
 public:
  mutable int searches = 0;
  std::variant<std::shared_ptr<const void>, std::string> compile(
      const std::string& pattern) const override {
    if (pattern == "bad") return std::string("rejected by the host");
    return std::shared_ptr<const void>(std::make_shared<std::string>(pattern));
  }
  bool search(const void* compiled, const std::string& subject, std::string& error) const override {
    ++searches;
    const auto& prefix = *static_cast<const std::string*>(compiled);
    if (prefix == "throw") {  // a host that cannot decide says why
      error = "host failure";
      return false;
    }
    return subject.rfind(prefix, 0) == 0;
  }
};

TEST(JsonSchemaRegex, HostEngineIsUsedAndItsFailuresAreIssues) {
  PrefixEngine engine;
  SchemaOptions options;
  options.regex = &engine;
  EXPECT_TRUE(issues({{"pattern", "ab"}}, "abc", options).empty());
  EXPECT_FALSE(issues({{"pattern", "ab"}}, "cab", options).empty());
  EXPECT_EQ(engine.searches, 4);  // validate and is_valid, twice
  const auto thrown = issues({{"pattern", "throw"}}, "x", options);
  ASSERT_EQ(thrown.size(), 1u);
  EXPECT_EQ(thrown[0].message, "could not check pattern 'throw': host failure");
  auto error = CompiledSchema::compile({{"pattern", "bad"}}, options);
  ASSERT_TRUE(std::holds_alternative<SchemaCompileError>(error));
  EXPECT_EQ(std::get<SchemaCompileError>(error).message,
            "pattern 'bad' is not a valid regular expression: rejected by the host");
}

TEST(JsonSchemaRobustness, OddInstancesNeverThrow) {
  const auto s = compiled({{"type", "object"}, {"properties", {{"a", {{"minLength", 1}}}}}});
  EXPECT_FALSE(s->is_valid(json::binary({1, 2, 3})));
  EXPECT_FALSE(s->validate(json::binary({1, 2, 3})).empty());
  EXPECT_TRUE(s->is_valid({{"a", json::binary({1})}}));
  EXPECT_FALSE(s->is_valid(json(json::value_t::discarded)));
}

}  // namespace
