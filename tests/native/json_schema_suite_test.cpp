// The official JSON Schema test suite, draft 7, against CompiledSchema: every
// file under draft7/ except the excluded ones below (and the optional/ folder),
// every case a real assertion. Prints a per-file table that
// tests/schema/ajv-compare.mjs parses to put ajv's results beside ours.
// Built natively and with em++ (run under node with NODERAWFS): files are read
// with std::ifstream from absolute paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "schema/json_schema.hpp"

namespace {

using agui::json;

// File name -> why it is not run. Keep this list short and every reason real.
const std::map<std::string, std::string>& excluded() {
  static const std::map<std::string, std::string> files = {
      {"refRemote.json",
       "refers to documents served at http://localhost:1234; remote refs are never fetched"},
  };
  return files;
}

struct FileResult {
  std::string name;
  int passed = 0;
  int failed = 0;
};

std::string describe(const agui::SchemaCompileError& e) {
  return e.keyword + " at '" + e.schema_path + "': " + e.message;
}

FileResult run_file(const std::filesystem::path& file) {
  FileResult result{file.filename().string()};
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << "cannot read " << file;
  std::stringstream text;
  text << in.rdbuf();
  const json groups = json::parse(text.str(), nullptr, false);
  EXPECT_TRUE(groups.is_array()) << file << " is not a JSON array of test groups";
  if (!groups.is_array()) return result;
  for (const json& group : groups) {
    const std::string group_name = group.value("description", "?");
    auto compiled = agui::CompiledSchema::compile(group.at("schema"));
    const auto* error = std::get_if<agui::SchemaCompileError>(&compiled);
    for (const json& test : group.at("tests")) {
      const bool expected = test.at("valid").get<bool>();
      const std::string where =
          result.name + " / " + group_name + " / " + test.value("description", "?");
      if (error) {
        ADD_FAILURE() << where << ": schema does not compile: " << describe(*error);
        ++result.failed;
        continue;
      }
      const auto& schema = std::get<std::shared_ptr<const agui::CompiledSchema>>(compiled);
      const bool valid = schema->is_valid(test.at("data"));
      const auto issues = schema->validate(test.at("data"));
      // Both entry points must agree: no issues exactly when valid.
      const bool ok = valid == expected && issues.empty() == valid;
      EXPECT_TRUE(ok) << where << ": expected " << (expected ? "valid" : "invalid")
                      << ", is_valid says " << (valid ? "valid" : "invalid") << ", validate gave "
                      << issues.size() << " issue(s)"
                      << (issues.empty() ? "" : ", first: " + issues[0].message);
      ++(ok ? result.passed : result.failed);
    }
  }
  return result;
}

TEST(JsonSchemaSuite, Draft7) {
  const std::filesystem::path dir = std::filesystem::path(AGUI_SCHEMA_SUITE_DIR) / "draft7";
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  }
  ASSERT_FALSE(ec) << "cannot list " << dir << ": " << ec.message();
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 30u) << "the draft 7 suite looks incomplete at " << dir;

  std::vector<FileResult> results;
  for (const auto& file : files) {
    if (excluded().count(file.filename().string())) continue;
    results.push_back(run_file(file));
    EXPECT_GT(results.back().passed + results.back().failed, 0) << file << " has no cases";
  }

  int passed = 0;
  int failed = 0;
  std::printf("[suite] %-28s %7s %7s\n", "file", "passed", "failed");
  for (const auto& r : results) {
    std::printf("[suite] %-28s %7d %7d\n", r.name.c_str(), r.passed, r.failed);
    passed += r.passed;
    failed += r.failed;
  }
  std::printf("[suite] %-28s %7d %7d\n", "TOTAL", passed, failed);
  for (const auto& [name, reason] : excluded()) {
    std::printf("[suite] excluded %s: %s\n", name.c_str(), reason.c_str());
  }
  std::printf("[suite] not run: the optional/ folder (format, bignum, ECMA-262 regex details)\n");
  std::fflush(stdout);
  EXPECT_EQ(failed, 0);
}

}  // namespace
