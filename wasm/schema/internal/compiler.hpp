// The schema compiler's shared declarations: compiler.cpp holds the
// identifier index, $ref resolution and cycle check; keywords.cpp
// compiles each keyword into a Node.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schema/internal/program.hpp"

namespace agui::schema_detail {

// A compilation's first failure. The core is built without exceptions, so a
// failure is recorded here and each step returns at once: compile() does
// nothing once `failure` is set, and run() stops at the first check.
using Failure = std::optional<SchemaCompileError>;
void fail(Failure& failure, std::string keyword, std::string path, std::string message);
std::string child_location(const std::string& location, std::string_view keyword);
// "#/definitions/a" (or the full URI inside a built-in document), for messages.
std::string display_location(const Node& node);

class Compiler {
 public:
  Compiler(const SchemaOptions& options, Program& program);
  // Compiles `schema` into the program; the first failure, or nullopt.
  Failure run(const json& schema);

 private:
  struct Document {
    const json* root;
    std::string prefix;  // prepended to locations: "" or "<uri>#"
    bool builtin;
  };
  struct Resource {  // what an absolute URI (with or without a plain-name fragment) names
    const json* value;
    const Document* doc;
    std::string location;
  };
  struct Site {  // every schema the index walked
    std::string base;
    std::string location;
    const Document* doc;
    std::size_t depth;
  };
  struct PendingRef {
    Node* node;
    std::string text;  // the $ref as written
    std::string base;  // the base URI in scope
    std::string path;  // JSON Pointer of the $ref keyword, for errors
  };
  struct Target {
    const json* value;
    std::string base;
    std::string location;
    std::size_t depth;
    const Document* doc;
  };

  // Identifiers and references (compiler.cpp).
  std::string base_of(const json& schema, const std::string& parent_base) const;
  void register_resource(std::string uri, const json& schema, const Document& doc,
                         const std::string& location, std::string_view keyword,
                         const std::string& keyword_path);
  void index(const json& schema, const std::string& parent_base, const std::string& location,
             std::size_t depth, const Document& doc, std::string_view keyword);
  const Resource* find_resource(std::string_view uri);
  Target resolve(const PendingRef& ref);
  void check_cycles();

  // Keywords (keywords.cpp).
  Node* compile(const json& schema, const std::string& parent_base, const std::string& location,
                std::size_t depth, const Document& doc, std::string_view keyword);
  void compile_keywords(Node& node, const json& schema, const std::string& base,
                        const std::string& location, std::size_t depth, const Document& doc);
  void compile_numbers(Node& node, const json& schema, const std::string& location);
  void compile_strings(Node& node, const json& schema, const std::string& location);
  void compile_arrays(Node& node, const json& schema, const std::string& base,
                      const std::string& location, std::size_t depth, const Document& doc);
  void compile_objects(Node& node, const json& schema, const std::string& base,
                       const std::string& location, std::size_t depth, const Document& doc);
  Regex compile_regex(const std::string& pattern, const char* keyword, const std::string& path);

  void fail(std::string keyword, std::string path, std::string message) {
    schema_detail::fail(failure_, std::move(keyword), std::move(path), std::move(message));
  }

  Program& program_;
  Failure failure_;
  std::size_t max_depth_;
  bool allow_backtracking_patterns_;
  std::deque<Document> documents_;  // stable addresses
  std::unordered_map<std::string, Resource> resources_;
  std::unordered_map<const json*, Site> sites_;
  std::unordered_map<const json*, Node*> compiled_;
  std::vector<PendingRef> pending_;
};

}  // namespace agui::schema_detail
