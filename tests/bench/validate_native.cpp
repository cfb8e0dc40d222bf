// Native validation bench (a CMake target, tests/bench/CMakeLists.txt; built by validation.mjs):
// compiles each schema of a bench set once and validates its instances round-robin; prints
// validations/s as JSON.
//   validate_native SET.json [seconds-per-sample=0.3] [samples=5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "schema/json_schema.hpp"

using agui::json;

namespace {

struct Case {
  std::shared_ptr<const agui::CompiledSchema> schema;
  json instance;
  std::string text;  // the instance as JSON text, for the parse-and-validate figure
  bool valid;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Validations per second over `cases`, median of `samples` samples of about `seconds` each.
template <class F>
double rate(const std::vector<const Case*>& cases, double seconds, int samples, F&& one) {
  using clock = std::chrono::steady_clock;
  std::vector<double> rates;
  std::size_t sink = 0;
  for (int s = 0; s < samples; ++s) {
    std::size_t n = 0;
    const auto t0 = clock::now();
    double elapsed = 0;
    do {
      for (const Case* c : cases) sink += one(*c);
      n += cases.size();
      elapsed = std::chrono::duration<double>(clock::now() - t0).count();
    } while (elapsed < seconds);
    rates.push_back(static_cast<double>(n) / elapsed);
  }
  if (sink == 42) std::fputs("", stderr);  // keep the work observable
  return median(rates);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: validate_native SET.json [seconds] [samples]\n";
    return 2;
  }
  const double seconds = argc > 2 ? std::stod(argv[2]) : 0.3;
  const int samples = argc > 3 ? std::stoi(argv[3]) : 5;
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  const json set = json::parse(text.str());

  std::vector<Case> cases;
  int mismatches = 0;
  for (const auto& entry : set.at("schemas")) {
    auto compiled = agui::CompiledSchema::compile(entry.at("schema"));
    if (auto* err = std::get_if<agui::SchemaCompileError>(&compiled)) {
      std::cerr << entry.value("name", "?") << ": does not compile: " << err->message << " at "
                << err->schema_path << "\n";
      return 1;
    }
    auto schema = std::get<std::shared_ptr<const agui::CompiledSchema>>(compiled);
    for (const char* kind : {"valid", "invalid"}) {
      for (const auto& instance : entry.value(kind, json::array())) {
        const bool valid = std::string(kind) == "valid";
        if (schema->validate(instance).empty() != valid) ++mismatches;
        cases.push_back({schema, instance, instance.dump(), valid});
      }
    }
  }
  std::vector<const Case*> all, valid, invalid;
  for (const auto& c : cases) {
    all.push_back(&c);
    (c.valid ? valid : invalid).push_back(&c);
  }
  auto validate = [](const Case& c) { return c.schema->validate(c.instance).size(); };
  auto is_valid = [](const Case& c) {
    return static_cast<std::size_t>(c.schema->is_valid(c.instance));
  };
  auto parse_validate = [](const Case& c) {
    return c.schema->validate(json::parse(c.text, nullptr, false)).size();
  };
  json out = {
      {"cases", cases.size()},
      {"mismatches", mismatches},
      {"validatePerSec", rate(all, seconds, samples, validate)},
      {"validateValidPerSec", rate(valid, seconds, samples, validate)},
      {"validateInvalidPerSec", rate(invalid, seconds, samples, validate)},
      {"isValidPerSec", rate(all, seconds, samples, is_valid)},
      {"parseAndValidatePerSec", rate(all, seconds, samples, parse_validate)},
  };
  std::cout << out.dump() << "\n";
  return 0;
}
