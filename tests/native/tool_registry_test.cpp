// The tool registry: validation at registration (with the exact complaint),
// an unchanged registry after every failure, and what advertise(), catalog()
// and list() hand out.
#include "client/tool_registry.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace agui {
namespace {

ToolSpec spec(std::string name, std::string description = "Does a thing.") {
  ToolSpec s;
  s.name = std::move(name);
  s.description = std::move(description);
  return s;
}

json city_schema() {
  return json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},
                        "required":["city"]})");
}

// Asserts `status` is an error with `code` whose message contains every part.
void expect_error(const Status& status, ErrorCode code, std::initializer_list<std::string> parts) {
  ASSERT_TRUE(status.has_value()) << "expected an error";
  EXPECT_EQ(status->code, code) << status->message;
  for (const auto& part : parts) {
    EXPECT_NE(status->message.find(part), std::string::npos)
        << "message: " << status->message << "\nmissing: " << part;
  }
}

// add() must fail with `code` and leave the registry exactly as it was.
void expect_rejected(ToolRegistry& registry, ToolSpec bad, ErrorCode code,
                     std::initializer_list<std::string> parts) {
  const std::size_t size = registry.size();
  const std::uint64_t revision = registry.revision();
  const json advertised = registry.advertise();
  const json listed = registry.list();
  const std::string name = bad.name;
  const Tool* before = registry.find(name);
  const ToolSpec before_spec = before ? before->spec : ToolSpec{};
  expect_error(registry.add(std::move(bad)), code, parts);
  EXPECT_EQ(registry.size(), size);
  EXPECT_EQ(registry.revision(), revision);
  EXPECT_EQ(registry.advertise(), advertised);
  EXPECT_EQ(registry.list(), listed);
  if (before) {
    ASSERT_NE(registry.find(name), nullptr);
    EXPECT_EQ(registry.find(name)->spec.description, before_spec.description);
  } else {
    EXPECT_EQ(registry.find(name), nullptr);
  }
}

// A registry holding one tool, so "unchanged" has something to compare.
ToolRegistry seeded() {
  ToolRegistry registry;
  EXPECT_EQ(registry.add(spec("existing")), kOk);
  return registry;
}

// --- names ----------------------------------------------------------------

TEST(ToolRegistryName, AcceptsLettersDigitsUnderscoreHyphenUpTo64) {
  ToolRegistry registry;
  EXPECT_EQ(registry.add(spec("Az09_-")), kOk);
  EXPECT_EQ(registry.add(spec("x")), kOk);
  EXPECT_EQ(registry.add(spec(std::string(64, 'n'))), kOk);
  EXPECT_EQ(registry.size(), 3u);
}

TEST(ToolRegistryName, RejectsEmpty) {
  auto registry = seeded();
  expect_rejected(registry, spec(""), ErrorCode::kInvalidTool,
                  {"tool definition: ", "name is empty"});
}

TEST(ToolRegistryName, RejectsTooLong) {
  auto registry = seeded();
  expect_rejected(registry, spec(std::string(65, 'n')), ErrorCode::kInvalidTool,
                  {"tool definition: ", "65 characters", "at most 64"});
}

TEST(ToolRegistryName, RejectsBadCharactersAndSaysWhich) {
  auto registry = seeded();
  expect_rejected(registry, spec("get weather"), ErrorCode::kInvalidTool,
                  {"tool definition: ", "'get weather'", "' ' at offset 3"});
  expect_rejected(registry, spec("get.weather"), ErrorCode::kInvalidTool, {"'.' at offset 3"});
  expect_rejected(registry, spec("caf\xC3\xA9"), ErrorCode::kInvalidTool, {"'\\xC3' at offset 3"});
  expect_rejected(registry, spec(std::string("a\0b", 3)), ErrorCode::kInvalidTool,
                  {"'\\x00' at offset 1"});
}

TEST(ToolRegistryName, DuplicateIsRejected) {
  auto registry = seeded();
  expect_rejected(registry, spec("existing", "Another description."), ErrorCode::kDuplicateTool,
                  {"tool 'existing': ", "already registered"});
}

TEST(ToolRegistryName, LookupIsCaseSensitive) {
  auto registry = seeded();
  EXPECT_NE(registry.find("existing"), nullptr);
  EXPECT_EQ(registry.find("Existing"), nullptr);
  EXPECT_EQ(registry.add(spec("Existing")), kOk);  // a different name
}

// --- description and flags ------------------------------------------------

TEST(ToolRegistryDescription, RejectsEmptyAndBlank) {
  auto registry = seeded();
  expect_rejected(registry, spec("t", ""), ErrorCode::kInvalidTool,
                  {"tool 't': ", "description is empty"});
  expect_rejected(registry, spec("t", " \t\n "), ErrorCode::kInvalidTool,
                  {"tool 't': ", "description is only whitespace"});
}

TEST(ToolRegistryDescription, RejectsInvalidUtf8InTexts) {
  auto registry = seeded();
  expect_rejected(registry, spec("t", "ok \xFF"), ErrorCode::kInvalidTool,
                  {"tool 't': ", "description is not valid UTF-8", "offset 3"});
  ToolSpec s = spec("t");
  s.summary = "\xC0\xAF";  // overlong '/'
  expect_rejected(registry, s, ErrorCode::kInvalidTool, {"tool 't': ", "summary", "UTF-8"});
  s.summary.clear();
  s.category = "\xE0\x80\xAF";  // overlong '/' in three bytes
  expect_rejected(registry, s, ErrorCode::kInvalidTool, {"tool 't': ", "category", "UTF-8"});
  s.category.clear();
  s.confirm = "ok \xED\xA0\x80";  // a UTF-16 surrogate
  expect_rejected(registry, s, ErrorCode::kInvalidTool, {"tool 't': ", "confirm", "offset 3"});
  EXPECT_EQ(registry.add(spec("t", "h\xC3\xA9llo \xF0\x9F\x8E\x89")), kOk);
}

TEST(ToolRegistryFlags, RejectsNonPositiveTimeout) {
  auto registry = seeded();
  ToolSpec s = spec("slow");
  s.timeout_ms = 0;
  expect_rejected(registry, s, ErrorCode::kInvalidTool,
                  {"tool 'slow': ", "timeoutMs must be a positive integer", "got 0"});
  s.timeout_ms = -5;
  expect_rejected(registry, s, ErrorCode::kInvalidTool, {"tool 'slow': ", "got -5"});
  s.timeout_ms = 1;
  EXPECT_EQ(registry.add(s), kOk);
}

// --- parameters -----------------------------------------------------------

TEST(ToolRegistryParameters, NullMeansNoParameters) {
  ToolRegistry registry;
  ASSERT_EQ(registry.add(spec("ping")), kOk);
  EXPECT_EQ(registry.advertise()[0]["parameters"],
            json::parse(R"({"type":"object","properties":{}})"));
  ASSERT_NE(registry.find("ping"), nullptr);
  EXPECT_NE(registry.find("ping")->schema, nullptr);
}

TEST(ToolRegistryParameters, ObjectSchemaIsCompiledAndAdvertisedAsGiven) {
  ToolRegistry registry;
  ToolSpec s = spec("get_weather");
  s.parameters = city_schema();
  ASSERT_EQ(registry.add(s), kOk);
  EXPECT_EQ(registry.advertise()[0]["parameters"], city_schema());
  EXPECT_NE(registry.find("get_weather")->schema, nullptr);
}

TEST(ToolRegistryParameters, RejectsNonObjectValue) {
  auto registry = seeded();
  ToolSpec s = spec("t");
  s.parameters = json::array({1});
  expect_rejected(registry, s, ErrorCode::kInvalidTool,
                  {"tool 't': ", "parameters must be a JSON Schema object", "got array"});
  s.parameters = "object";
  expect_rejected(registry, s, ErrorCode::kInvalidTool, {"tool 't': ", "got string"});
  s.parameters = true;  // a valid JSON Schema, but not an object schema
  expect_rejected(registry, s, ErrorCode::kInvalidTool, {"tool 't': ", "got boolean"});
}

TEST(ToolRegistryParameters, RejectsRootTypeOtherThanObject) {
  auto registry = seeded();
  ToolSpec s = spec("t");
  s.parameters = json::parse(R"({"type":"string"})");
  expect_rejected(
      registry, s, ErrorCode::kInvalidTool,
      {"tool 't': ", "parameters: ", "\"type\": \"object\"", "got \"type\": \"string\""});
  s.parameters = json::parse(R"({"properties":{}})");
  expect_rejected(registry, s, ErrorCode::kInvalidTool,
                  {"tool 't': ", "parameters: ", "it has no \"type\""});
  s.parameters = json::parse(R"({"type":["object","null"]})");
  expect_rejected(registry, s, ErrorCode::kInvalidTool,
                  {"tool 't': ", "got \"type\": [\"object\",\"null\"]"});
}

TEST(ToolRegistryParameters, CompileErrorNamesToolKeywordAndPath) {
  auto registry = seeded();
  ToolSpec s = spec("get_weather");
  s.parameters =
      json::parse(R"({"type":"object","properties":{"city":{"type":"string","minLength":-1}}})");
  expect_rejected(registry, s, ErrorCode::kInvalidSchema,
                  {"tool 'get_weather': parameters: invalid schema at /properties/city/minLength "
                   "(minLength): "});
}

// --- from_json ------------------------------------------------------------

ToolSpec parsed(const char* text) {
  auto result = ToolSpec::from_json(json::parse(text));
  if (auto* error = std::get_if<Error>(&result)) {
    ADD_FAILURE() << error->message;
    return {};
  }
  return std::get<ToolSpec>(result);
}

void expect_from_json_error(const char* text, std::initializer_list<std::string> parts) {
  auto result = ToolSpec::from_json(json::parse(text));
  ASSERT_TRUE(std::holds_alternative<Error>(result)) << text;
  expect_error(std::get<Error>(result), ErrorCode::kInvalidTool, parts);
}

TEST(ToolSpecFromJson, ReadsEveryKey) {
  const ToolSpec s = parsed(R"({
    "name": "delete_file", "description": "Deletes a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    "defaultEnabled": false, "requiresApproval": true, "destructive": true,
    "confirm": "Delete it?", "summary": "Delete file", "category": "files", "timeoutMs": 5000,
    "idempotent": true})");
  EXPECT_EQ(s.name, "delete_file");
  EXPECT_EQ(s.description, "Deletes a file.");
  EXPECT_EQ(s.parameters["properties"]["path"]["type"], "string");
  EXPECT_FALSE(s.default_enabled);
  EXPECT_TRUE(s.requires_approval);
  EXPECT_TRUE(s.destructive);
  EXPECT_EQ(s.confirm, "Delete it?");
  EXPECT_EQ(s.summary, "Delete file");
  EXPECT_EQ(s.category, "files");
  EXPECT_EQ(s.timeout_ms, 5000);
  EXPECT_TRUE(s.idempotent);
}

TEST(ToolSpecFromJson, DefaultsForAbsentAndNullKeys) {
  ToolSpec s = parsed(R"({"name": "t", "description": "d"})");
  EXPECT_TRUE(s.parameters.is_null());
  EXPECT_TRUE(s.default_enabled);
  EXPECT_FALSE(s.requires_approval);
  EXPECT_FALSE(s.destructive);
  EXPECT_FALSE(s.idempotent);
  EXPECT_TRUE(s.summary.empty());
  EXPECT_FALSE(s.timeout_ms.has_value());
  s = parsed(R"({"name": "t", "description": "d", "parameters": null, "defaultEnabled": null,
                 "summary": null, "timeoutMs": null})");
  EXPECT_TRUE(s.parameters.is_null());
  EXPECT_TRUE(s.default_enabled);
  EXPECT_FALSE(s.timeout_ms.has_value());
}

TEST(ToolSpecFromJson, UnknownKeyIsNamedWithASuggestion) {
  expect_from_json_error(R"({"name": "t", "description": "d", "timeout": 5})",
                         {"tool 't': ", "unknown key 'timeout'", "did you mean 'timeoutMs'?"});
  expect_from_json_error(R"({"name": "t", "description": "d", "RequiresApproval": true})",
                         {"unknown key 'RequiresApproval'", "did you mean 'requiresApproval'?"});
  expect_from_json_error(R"({"name": "t", "description": "d", "default_enabled": true})",
                         {"did you mean 'defaultEnabled'?"});
  expect_from_json_error(R"({"name": "t", "description": "d", "destrutive": true})",
                         {"did you mean 'destructive'?"});
}

TEST(ToolSpecFromJson, UnknownKeyFarFromAnyKnownKeyHasNoSuggestion) {
  // "nope" is two edits from "name": too many for a four-letter key.
  for (const char* key : {"id", "nope", "inputSchema"}) {
    const std::string text =
        std::string(R"({"name": "t", "description": "d", ")") + key + R"(": 1})";
    auto result = ToolSpec::from_json(json::parse(text));
    ASSERT_TRUE(std::holds_alternative<Error>(result));
    const std::string& message = std::get<Error>(result).message;
    EXPECT_NE(message.find("tool 't': unknown key '" + std::string(key) + "'"), std::string::npos)
        << message;
    EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
  }
}

TEST(ToolSpecFromJson, WrongTypesNameKeyAndExpectedType) {
  expect_from_json_error(R"({"name": "t", "description": 3})",
                         {"tool 't': ", "'description' must be a string, got integer"});
  expect_from_json_error(R"({"name": "t", "description": "d", "destructive": "yes"})",
                         {"tool 't': ", "'destructive' must be a boolean, got string"});
  expect_from_json_error(R"({"name": "t", "description": "d", "defaultEnabled": 1})",
                         {"'defaultEnabled' must be a boolean, got integer"});
  expect_from_json_error(R"({"name": "t", "description": "d", "requiresApproval": []})",
                         {"'requiresApproval' must be a boolean, got array"});
  expect_from_json_error(R"({"name": "t", "description": "d", "category": false})",
                         {"'category' must be a string, got boolean"});
  expect_from_json_error(R"({"name": "t", "description": "d", "parameters": "x"})",
                         {"'parameters' must be an object", "got string"});
}

TEST(ToolSpecFromJson, TimeoutMustBeAPositiveInteger) {
  for (const char* bad :
       {"0", "-1", "0.0", "-2.0", "1.5", "\"100\"", "true", "18446744073709551615", "1e300"}) {
    const std::string text =
        std::string(R"({"name": "t", "description": "d", "timeoutMs": )") + bad + "}";
    expect_from_json_error(text.c_str(),
                           {"tool 't': ", "'timeoutMs' must be a positive integer", "got "});
  }
  EXPECT_EQ(parsed(R"({"name": "t", "description": "d", "timeoutMs": 1000.0})").timeout_ms, 1000);
}

TEST(ToolSpecFromJson, NameProblemsUseTheDefinitionPrefix) {
  expect_from_json_error(R"({"description": "d"})",
                         {"tool definition: ", "missing required key 'name'"});
  expect_from_json_error(R"({"name": 7, "description": "d"})",
                         {"tool definition: ", "'name' must be a string, got integer"});
  expect_from_json_error(R"({"name": "a b", "description": "d", "bogus": 1})",
                         {"tool definition: ", "' ' at offset 1"});
  expect_from_json_error(R"(["not", "an", "object"])",
                         {"tool definition: ", "expected an object, got array"});
}

TEST(ToolSpecFromJson, MissingDescriptionIsNamed) {
  expect_from_json_error(R"({"name": "t"})", {"tool 't': ", "missing required key 'description'"});
}

// --- enabled state, advertise, order --------------------------------------

TEST(ToolRegistryAdvertise, EnabledToolsInRegistrationOrder) {
  ToolRegistry registry;
  ASSERT_EQ(registry.add(spec("zeta")), kOk);
  ToolSpec off = spec("alpha");
  off.default_enabled = false;
  ASSERT_EQ(registry.add(off), kOk);
  ASSERT_EQ(registry.add(spec("mid")), kOk);
  json advertised = registry.advertise();
  ASSERT_EQ(advertised.size(), 2u);
  EXPECT_EQ(advertised[0]["name"], "zeta");
  EXPECT_EQ(advertised[1]["name"], "mid");
  EXPECT_FALSE(registry.find("alpha")->enabled);

  ASSERT_EQ(registry.set_enabled("alpha", true), kOk);
  ASSERT_EQ(registry.set_enabled("zeta", false), kOk);
  advertised = registry.advertise();
  ASSERT_EQ(advertised.size(), 2u);
  EXPECT_EQ(advertised[0]["name"], "alpha");
  EXPECT_EQ(advertised[1]["name"], "mid");
}

TEST(ToolRegistryAdvertise, EntryShapeWithoutMetadata) {
  ToolRegistry registry;
  ToolSpec s = spec("get_weather", "Current weather for a city.");
  s.parameters = city_schema();
  s.timeout_ms = 100;  // not a metadata field
  ASSERT_EQ(registry.add(s), kOk);
  const json expected = {{"name", "get_weather"},
                         {"description", "Current weather for a city."},
                         {"parameters", city_schema()}};
  EXPECT_EQ(registry.advertise(), json::array({expected}));
}

TEST(ToolRegistryAdvertise, MetadataCarriesOnlyTheSetFlags) {
  ToolRegistry registry;
  ToolSpec all = spec("wipe");
  all.destructive = true;
  all.requires_approval = true;
  all.category = "files";
  all.confirm = "Wipe everything?";
  all.summary = "Wipe";
  ASSERT_EQ(registry.add(all), kOk);
  ToolSpec some = spec("tag");
  some.category = "notes";
  ASSERT_EQ(registry.add(some), kOk);
  const json advertised = registry.advertise();
  EXPECT_EQ(advertised[0]["metadata"], json::parse(R"({"destructive":true,"category":"files",
      "confirm":"Wipe everything?","summary":"Wipe","requiresApproval":true})"));
  EXPECT_EQ(advertised[1]["metadata"], json::parse(R"({"category":"notes"})"));
  // Metadata is a separate channel: the schema stays untouched by default.
  EXPECT_EQ(advertised[0]["parameters"], json::parse(R"({"type":"object","properties":{}})"));
  EXPECT_FALSE(advertised[1]["parameters"].contains("x-category"));
}

TEST(ToolRegistryAdvertise, StampingPutsExtensionsIntoTheSchemaRootWhenAskedFor) {
  RegistryOptions options;
  options.stamp_schema_extensions = true;
  ToolRegistry registry(options);
  ToolSpec all = spec("wipe");
  all.parameters = city_schema();
  all.destructive = true;
  all.requires_approval = true;
  all.category = "files";
  all.confirm = "Wipe everything?";
  all.summary = "Wipe";
  ASSERT_EQ(registry.add(all), kOk);
  ASSERT_EQ(registry.add(spec("plain")), kOk);
  const json advertised = registry.advertise();
  json stamped = city_schema();
  stamped["x-destructive"] = true;
  stamped["x-category"] = "files";
  stamped["x-confirm"] = "Wipe everything?";
  stamped["x-summary"] = "Wipe";
  EXPECT_EQ(advertised[0]["parameters"], stamped);
  EXPECT_TRUE(advertised[0].contains("metadata"));  // still sent on the metadata channel
  EXPECT_EQ(advertised[1]["parameters"], json::parse(R"({"type":"object","properties":{}})"));
  // The stored definition is not modified by stamping.
  EXPECT_EQ(registry.find("wipe")->spec.parameters, city_schema());
}

TEST(ToolRegistryEnable, UnknownNameIsAnError) {
  auto registry = seeded();
  const std::uint64_t revision = registry.revision();
  expect_error(registry.set_enabled("nope", false), ErrorCode::kUnknownTool,
               {"tool 'nope': ", "no tool with this name"});
  expect_error(registry.remove("nope"), ErrorCode::kUnknownTool,
               {"tool 'nope': ", "no tool with this name"});
  EXPECT_EQ(registry.revision(), revision);
  EXPECT_EQ(registry.size(), 1u);
}

TEST(ToolRegistryRevision, BumpsOnEveryChange) {
  ToolRegistry registry;
  EXPECT_EQ(registry.revision(), 0u);
  ASSERT_EQ(registry.add(spec("a")), kOk);
  EXPECT_EQ(registry.revision(), 1u);
  ASSERT_EQ(registry.set_enabled("a", false), kOk);
  EXPECT_EQ(registry.revision(), 2u);
  ASSERT_EQ(registry.set_enabled("a", false), kOk);  // no change
  EXPECT_EQ(registry.revision(), 2u);
  ASSERT_EQ(registry.set_enabled("a", true), kOk);
  EXPECT_EQ(registry.revision(), 3u);
  ASSERT_EQ(registry.remove("a"), kOk);
  EXPECT_EQ(registry.revision(), 4u);
}

TEST(ToolRegistryRemove, KeepsOrderAndFixesTheIndex) {
  ToolRegistry registry;
  for (const char* name : {"a", "b", "c", "d"}) ASSERT_EQ(registry.add(spec(name)), kOk);
  ASSERT_EQ(registry.remove("b"), kOk);
  EXPECT_EQ(registry.size(), 3u);
  EXPECT_EQ(registry.find("b"), nullptr);
  for (const char* name : {"a", "c", "d"}) {
    ASSERT_NE(registry.find(name), nullptr) << name;
    EXPECT_EQ(registry.find(name)->spec.name, name);
  }
  const json advertised = registry.advertise();
  ASSERT_EQ(advertised.size(), 3u);
  EXPECT_EQ(advertised[0]["name"], "a");
  EXPECT_EQ(advertised[1]["name"], "c");
  EXPECT_EQ(advertised[2]["name"], "d");
  // Toggling after the shift reaches the right tool.
  ASSERT_EQ(registry.set_enabled("d", false), kOk);
  EXPECT_FALSE(registry.find("d")->enabled);
  EXPECT_TRUE(registry.find("c")->enabled);
  // The name is free again, and a re-added tool goes to the end.
  ASSERT_EQ(registry.add(spec("b")), kOk);
  EXPECT_EQ(registry.catalog()[3]["name"], "b");
}

// --- catalog, list, prettify ----------------------------------------------

TEST(ToolRegistryPrettify, SplitsSeparatorsAndCamelCase) {
  EXPECT_EQ(ToolRegistry::prettify("get_current_location"), "Get current location");
  EXPECT_EQ(ToolRegistry::prettify("copyToClipboard"), "Copy to clipboard");
  EXPECT_EQ(ToolRegistry::prettify("request-user-approval"), "Request user approval");
  EXPECT_EQ(ToolRegistry::prettify("GetTime"), "Get time");
  EXPECT_EQ(ToolRegistry::prettify("get__x_"), "Get x");
  EXPECT_EQ(ToolRegistry::prettify("base64Encode"), "Base64 encode");
  EXPECT_EQ(ToolRegistry::prettify("x"), "X");
  EXPECT_EQ(ToolRegistry::prettify("___"), "___");
}

TEST(ToolRegistryPrettify, KeepsAcronyms) {
  EXPECT_EQ(ToolRegistry::prettify("openURL"), "Open URL");
  EXPECT_EQ(ToolRegistry::prettify("parseHTMLDoc"), "Parse HTML doc");
  EXPECT_EQ(ToolRegistry::prettify("get_API_key"), "Get API key");
}

TEST(ToolRegistryCatalog, AllToolsWithSummaryFallback) {
  ToolRegistry registry;
  ToolSpec labelled = spec("get_current_location", "Where the user is.");
  labelled.summary = "Location";
  ASSERT_EQ(registry.add(labelled), kOk);
  ToolSpec off = spec("copyToClipboard", "Copies text.");
  off.default_enabled = false;  // disabled tools are in the catalog too
  ASSERT_EQ(registry.add(off), kOk);
  EXPECT_EQ(registry.catalog(), json::parse(R"([
    {"name":"get_current_location","summary":"Location","description":"Where the user is."},
    {"name":"copyToClipboard","summary":"Copy to clipboard","description":"Copies text."}])"));
}

TEST(ToolRegistryList, EveryToolWithItsFlags) {
  ToolRegistry registry;
  ToolSpec full = spec("delete_note", "Deletes a note.");
  full.destructive = true;
  full.default_enabled = false;
  full.category = "notes";
  full.confirm = "Delete?";
  full.timeout_ms = 2000;
  ASSERT_EQ(registry.add(full), kOk);
  ToolSpec approval = spec("send_mail", "Sends mail.");
  approval.requires_approval = true;
  approval.summary = "Mail";
  ASSERT_EQ(registry.add(approval), kOk);
  ASSERT_EQ(registry.add(spec("ping", "Pings.")), kOk);
  EXPECT_EQ(registry.list(), json::parse(R"([
    {"name":"delete_note","description":"Deletes a note.","summary":"Delete note",
     "category":"notes","enabled":false,"defaultEnabled":false,"requiresApproval":false,
     "destructive":true,"idempotent":false,"needsApproval":true,"confirm":"Delete?","timeoutMs":2000},
    {"name":"send_mail","description":"Sends mail.","summary":"Mail","enabled":true,
     "defaultEnabled":true,"requiresApproval":true,"destructive":false,"idempotent":false,"needsApproval":true},
    {"name":"ping","description":"Pings.","summary":"Ping","enabled":true,"defaultEnabled":true,
     "requiresApproval":false,"destructive":false,"idempotent":false,"needsApproval":false}])"));
}

TEST(ToolRegistryEndToEnd, FromJsonThenAdd) {
  ToolRegistry registry;
  auto result = ToolSpec::from_json(json::parse(R"({"name": "get_weather",
      "description": "Weather.", "parameters": {"type": "object",
      "properties": {"city": {"type": "string", "minLength": -1}}}})"));
  ASSERT_TRUE(std::holds_alternative<ToolSpec>(result));
  expect_error(registry.add(std::get<ToolSpec>(std::move(result))), ErrorCode::kInvalidSchema,
               {"tool 'get_weather': parameters: invalid schema at /properties/city/minLength"});
  EXPECT_EQ(registry.size(), 0u);
  EXPECT_EQ(registry.advertise(), json::array());
}

}  // namespace
}  // namespace agui
