// Native micro-benchmark of the JSON Schema validator over the realistic tool
// schemas in realistic-schemas.json. Not a test: it prints validations per
// second (median of 7 runs) for each schema. Build and run from the repo root:
//
//   cmake -B build-bench -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAGUI_BUILD_TESTS=OFF \
//         -DAGUI_BUILD_BENCHES=ON && cmake --build build-bench --target schema_native
//   build-bench/tests/bench/schema_native tests/schema/realistic-schemas.json
//
// It first checks every valid/invalid label (exit 1 on a mismatch), so the
// figures are of a validator that gets these cases right.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "schema/json_schema.hpp"

namespace {

using agui::json;
using Clock = std::chrono::steady_clock;

// Nanoseconds per call of `body` (which runs `per_call` validations), median of runs.
double median_ns(const std::function<void()>& body, std::size_t per_call) {
  std::vector<double> runs;
  for (int run = 0; run < 7; ++run) {
    std::size_t calls = 0;
    const auto start = Clock::now();
    auto now = start;
    do {
      for (int i = 0; i < 64; ++i) body();
      calls += 64;
      now = Clock::now();
    } while (now - start < std::chrono::milliseconds(40));
    runs.push_back(std::chrono::duration<double, std::nano>(now - start).count() /
                   static_cast<double>(calls * per_call));
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "tests/schema/realistic-schemas.json";
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str());

  std::printf("%-24s %5s %12s %10s %12s %12s %10s\n", "schema", "props", "is_valid/s", "ns/valid",
              "validate ns", "invalid ns", "compile us");
  int mismatches = 0;
  volatile std::size_t sink = 0;
  for (const json& entry : doc.at("schemas")) {
    const std::string name = entry.at("name");
    const json& schema_json = entry.at("schema");
    const auto start = Clock::now();
    auto result = agui::CompiledSchema::compile(schema_json);
    const double compile_us =
        std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    if (const auto* error = std::get_if<agui::SchemaCompileError>(&result)) {
      std::fprintf(stderr, "%s: %s at %s: %s\n", name.c_str(), error->keyword.c_str(),
                   error->schema_path.c_str(), error->message.c_str());
      return 1;
    }
    const auto schema = std::get<std::shared_ptr<const agui::CompiledSchema>>(result);
    const json& valid = entry.at("valid");
    const json& invalid = entry.at("invalid");
    for (const json& args : valid) {
      if (!schema->is_valid(args) || !schema->validate(args).empty()) {
        std::fprintf(stderr, "%s: expected valid: %s\n", name.c_str(), args.dump().c_str());
        ++mismatches;
      }
    }
    for (const json& args : invalid) {
      if (schema->is_valid(args) || schema->validate(args).empty()) {
        std::fprintf(stderr, "%s: expected invalid: %s\n", name.c_str(), args.dump().c_str());
        ++mismatches;
      }
    }
    const double is_valid_ns = median_ns(
        [&] {
          for (const json& args : valid) sink = sink + schema->is_valid(args);
        },
        valid.size());
    const double validate_ns = median_ns(
        [&] {
          for (const json& args : valid) sink = sink + schema->validate(args).size();
        },
        valid.size());
    const double invalid_ns = median_ns(
        [&] {
          for (const json& args : invalid) sink = sink + schema->validate(args).size();
        },
        invalid.size());
    const std::size_t props = schema_json.value("properties", json::object()).size();
    std::printf("%-24s %5zu %12.0f %10.0f %12.0f %12.0f %10.1f\n", name.c_str(), props,
                1e9 / is_valid_ns, is_valid_ns, validate_ns, invalid_ns, compile_us);
  }
  std::printf(
      "is_valid/s and ns/valid: is_valid() on the valid argument objects; validate ns: validate() "
      "on them (no issue strings built); invalid ns: validate() on the invalid ones, messages "
      "included.\n");
  return mismatches == 0 ? 0 : 1;
}
