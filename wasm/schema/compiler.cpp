// The schema compiler, first half: identifiers and references. It indexes every
// "$id" (and 2020-12 "$anchor") reachable through schema keywords, resolves each
// "$ref" to a node of the graph (a JSON Pointer, a plain-name fragment, or an
// $id-named subschema; the draft 7 meta-schema is built in, nothing is
// fetched), and rejects $ref cycles that apply to the same instance without
// making progress. The keywords themselves are compiled in
// keywords.cpp.
#include "schema/internal/compiler.hpp"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agui::schema_detail {

namespace {

// Keywords whose value is one subschema, a map of them, or an array of them.
constexpr const char* kSingleSchemaKeywords[] = {"additionalItems",
                                                 "additionalProperties",
                                                 "contains",
                                                 "propertyNames",
                                                 "not",
                                                 "if",
                                                 "then",
                                                 "else",
                                                 "items"};
constexpr const char* kSchemaMapKeywords[] = {
    "properties", "patternProperties", "definitions", "$defs", "dependencies", "dependentSchemas"};
constexpr const char* kSchemaArrayKeywords[] = {"allOf", "anyOf", "oneOf", "items", "prefixItems"};

constexpr std::string_view kDefaultBase = "agui:///schema.json";
constexpr std::string_view kDraft7MetaschemaHttps = "https://json-schema.org/draft-07/schema";

}  // namespace

std::string display_location(const Node& node) {
  return node.builtin ? node.location : "#" + node.location;
}

void fail(Failure& failure, std::string keyword, std::string path, std::string message) {
  if (!failure)
    failure = SchemaCompileError{std::move(keyword), std::move(path), std::move(message)};
}

std::string child_location(const std::string& location, std::string_view keyword) {
  std::string out = location;
  out += '/';
  append_pointer_token(out, keyword);
  return out;
}

Compiler::Compiler(const SchemaOptions& options, Program& program)
    : program_(program),
      max_depth_(options.max_depth),
      allow_backtracking_patterns_(options.allow_backtracking_patterns) {
  program_.max_depth = options.max_depth;
  program_.regex = options.regex ? options.regex : &default_regex_engine();
}

Failure Compiler::run(const json& schema) {
  const Document& doc = documents_.emplace_back(Document{&schema, "", false});
  register_resource(std::string(kDefaultBase), schema, doc, "", "", "");
  index(schema, std::string(kDefaultBase), "", 0, doc, "");
  const auto site = sites_.find(&schema);  // absent when the root is not a schema at all
  const std::string base = site == sites_.end() ? std::string(kDefaultBase) : site->second.base;
  if (!failure_) program_.root = compile(schema, base, "", 0, doc, "");
  while (!failure_ && !pending_.empty()) {
    const PendingRef ref = std::move(pending_.back());
    pending_.pop_back();
    const Target target = resolve(ref);
    if (failure_) break;
    ref.node->ref =
        compile(*target.value, target.base, target.location, target.depth, *target.doc, "$ref");
  }
  if (!failure_) check_cycles();
  return std::move(failure_);
}

// An $id applies to its schema unless the schema is a $ref (draft 7 ignores
// every sibling of $ref, $id included).
std::string Compiler::base_of(const json& schema, const std::string& parent_base) const {
  if (!schema.is_object() || schema.contains("$ref")) return parent_base;
  const auto id = schema.find("$id");
  if (id == schema.end() || !id->is_string()) return parent_base;
  const auto& text = id->get_ref<const std::string&>();
  if (!text.empty() && text.front() == '#') return parent_base;  // a plain name only
  return std::string(split_fragment(resolve_uri(parent_base, text)).first);
}

void Compiler::register_resource(std::string uri, const json& schema, const Document& doc,
                                 const std::string& location, std::string_view keyword,
                                 const std::string& keyword_path) {
  const auto [it, inserted] =
      resources_.try_emplace(std::move(uri), Resource{&schema, &doc, location});
  if (!inserted && it->second.value != &schema && !keyword.empty()) {
    fail(std::string(keyword), keyword_path,
         std::string(keyword) + " '" + it->first + "' names two schemas (also at " +
             (it->second.location.empty() ? "the root" : it->second.location) + ")");
  }
}

void Compiler::index(const json& schema, const std::string& parent_base,
                     const std::string& location, std::size_t depth, const Document& doc,
                     std::string_view keyword) {
  if (failure_) return;
  if (depth > max_depth_) {
    fail(std::string(keyword), location,
         "schema nesting exceeds max depth " + std::to_string(max_depth_) + " at " + location);
    return;
  }
  if (!schema.is_object()) {
    if (schema.is_boolean()) sites_.try_emplace(&schema, Site{parent_base, location, &doc, depth});
    return;
  }
  const std::string base = base_of(schema, parent_base);
  sites_.try_emplace(&schema, Site{base, location, &doc, depth});
  if (!schema.contains("$ref")) {
    if (const auto id = schema.find("$id"); id != schema.end() && id->is_string()) {
      const auto& text = id->get_ref<const std::string&>();
      const std::string resolved = resolve_uri(parent_base, text);
      const auto [document, fragment] = split_fragment(resolved);
      const std::string id_path = child_location(location, "$id");
      if (text.empty() || text.front() != '#') {
        register_resource(std::string(document), schema, doc, location, "$id", id_path);
      }
      if (fragment && !fragment->empty() && fragment->front() != '/') {
        register_resource(resolved, schema, doc, location, "$id", id_path);
      }
    }
    if (const auto anchor = schema.find("$anchor"); anchor != schema.end() && anchor->is_string()) {
      register_resource(base + "#" + anchor->get<std::string>(), schema, doc, location, "$anchor",
                        child_location(location, "$anchor"));
    }
  }
  for (const char* kw : kSingleSchemaKeywords) {
    const auto it = schema.find(kw);
    if (it != schema.end()) index(*it, base, child_location(location, kw), depth + 1, doc, kw);
  }
  for (const char* kw : kSchemaMapKeywords) {
    const auto it = schema.find(kw);
    if (it == schema.end() || !it->is_object()) continue;
    const std::string map_location = child_location(location, kw);
    for (auto member = it->begin(); member != it->end(); ++member) {
      index(member.value(), base, child_location(map_location, member.key()), depth + 1, doc, kw);
    }
  }
  for (const char* kw : kSchemaArrayKeywords) {
    const auto it = schema.find(kw);
    if (it == schema.end() || !it->is_array()) continue;
    const std::string array_location = child_location(location, kw);
    for (std::size_t i = 0; i < it->size(); ++i) {
      index((*it)[i], base, child_location(array_location, std::to_string(i)), depth + 1, doc, kw);
    }
  }
}

const Compiler::Resource* Compiler::find_resource(std::string_view uri) {
  if (const auto it = resources_.find(std::string(uri)); it != resources_.end()) return &it->second;
  if (uri != kDraft7MetaschemaUri && uri != kDraft7MetaschemaHttps) return nullptr;
  // The draft 7 meta-schema is built in: index it the first time it is named.
  const json& meta = draft7_metaschema();
  const Document& doc =
      documents_.emplace_back(Document{&meta, std::string(kDraft7MetaschemaUri) + "#", true});
  index(meta, std::string(kDraft7MetaschemaUri), "", 0, doc, "");
  register_resource(std::string(kDraft7MetaschemaHttps), meta, doc, "", "", "");
  const auto it = resources_.find(std::string(uri));
  return it == resources_.end() ? nullptr : &it->second;
}

// Long on purpose: a $ref's resolution in order (the URI, its document, then an
// anchor or a JSON Pointer walked token by token), each failure naming its part.
Compiler::Target Compiler::resolve(const PendingRef& ref) {
  const std::string resolved = resolve_uri(ref.base, ref.text);
  const auto [document, fragment] = split_fragment(resolved);
  const Resource* resource = find_resource(document);
  if (resource == nullptr) {
    fail("$ref", ref.path,
         "remote $ref '" + ref.text +
             "' is not supported (refs are resolved inside the schema only)");
    return Target{};
  }
  const json* value = resource->value;
  std::string location = resource->location;
  auto site_base = [this](const json* at, std::string fallback) {
    const auto found = sites_.find(at);
    return found == sites_.end() ? fallback : found->second.base;
  };
  std::string base = site_base(value, std::string(kDefaultBase));
  if (fragment && !fragment->empty() && fragment->front() != '/') {
    const auto anchor = resources_.find(resolved);
    if (anchor == resources_.end()) {
      fail("$ref", ref.path,
           "$ref '" + ref.text + "' resolves nowhere: no schema has $id '#" +
               std::string(*fragment) + "'");
      return Target{};
    }
    value = anchor->second.value;
    location = anchor->second.location;
    base = site_base(value, base);
  } else if (fragment && !fragment->empty()) {
    const auto pointer = percent_decode(*fragment);
    if (!pointer) {
      fail("$ref", ref.path, "$ref '" + ref.text + "' has a malformed %-escape");
      return Target{};
    }
    // Walk the JSON Pointer token by token; the base URI is that of the deepest
    // schema on the way that the index knows.
    std::size_t start = 1;
    while (start <= pointer->size()) {
      std::size_t end = pointer->find('/', start);
      if (end == std::string::npos) end = pointer->size();
      std::string token = pointer->substr(start, end - start);
      for (std::size_t at = 0; (at = token.find('~', at)) != std::string::npos; ++at) {
        if (at + 1 < token.size() && token[at + 1] == '1') {
          token.replace(at, 2, "/");
        } else if (at + 1 < token.size() && token[at + 1] == '0') {
          token.replace(at, 2, "~");
        } else {
          fail("$ref", ref.path, "$ref '" + ref.text + "' is not a valid JSON Pointer");
          return Target{};
        }
      }
      const json* next = nullptr;
      if (value->is_object()) {
        const auto it = value->find(token);
        if (it != value->end()) next = &*it;
      } else if (value->is_array() && !token.empty() &&
                 token.find_first_not_of("0123456789") == std::string::npos &&
                 (token.size() == 1 || token[0] != '0') && token.size() < 10) {
        std::size_t index = 0;
        for (const char digit : token) index = index * 10 + static_cast<std::size_t>(digit - '0');
        if (index < value->size()) next = &(*value)[index];
      }
      if (next == nullptr) {
        fail("$ref", ref.path,
             "$ref '" + ref.text + "' resolves nowhere: nothing at " + std::string(*fragment));
        return Target{};
      }
      value = next;
      location = child_location(location, token);
      if (const auto site = sites_.find(value); site != sites_.end()) base = site->second.base;
      start = end + 1;
    }
  }
  const auto site = sites_.find(value);
  if (site != sites_.end()) {
    return Target{value, site->second.base, site->second.location, site->second.depth,
                  site->second.doc};
  }
  return Target{value, base, location, 0, resource->doc};
}

// A cycle of in-place applicators ($ref, allOf, anyOf, oneOf, not, if/then/else,
// dependencies) would evaluate forever on the same instance: reject it. Cycles
// through properties, items and the like are legitimate recursion.
void Compiler::check_cycles() {
  std::unordered_map<const Node*, std::uint8_t> state;  // 1 on the stack, 2 done
  struct Frame {
    const Node* node;
    std::vector<const Node*> next;
    std::size_t at = 0;
  };
  auto edges = [](const Node& n) {
    std::vector<const Node*> out;
    if (n.ref) out.push_back(n.ref);
    for (const auto* list : {&n.all_of, &n.any_of, &n.one_of})
      out.insert(out.end(), list->begin(), list->end());
    for (const Node* single : {n.not_schema, n.if_schema, n.then_schema, n.else_schema}) {
      if (single) out.push_back(single);
    }
    if (n.object) {
      for (const auto& dep : n.object->dependencies) {
        if (dep.schema) out.push_back(dep.schema);
      }
    }
    return out;
  };
  for (const auto& owned : program_.nodes) {
    if (state[owned.get()] != 0) continue;
    std::vector<Frame> stack;
    stack.push_back(Frame{owned.get(), edges(*owned)});
    state[owned.get()] = 1;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.at == top.next.size()) {
        state[top.node] = 2;
        stack.pop_back();
        continue;
      }
      const Node* next = top.next[top.at++];
      const std::uint8_t seen = state[next];
      if (seen == 2) continue;
      if (seen == 0) {
        state[next] = 1;
        stack.push_back(Frame{next, edges(*next)});
        continue;
      }
      // `next` is on the stack: the frames from it to the top are the cycle.
      std::size_t first = 0;
      while (stack[first].node != next) ++first;
      std::string message = "$ref cycle: ";
      const Node* closing_ref = nullptr;
      for (std::size_t i = first; i < stack.size(); ++i) {
        message += display_location(*stack[i].node) + " -> ";
        const Node* to = i + 1 < stack.size() ? stack[i + 1].node : next;
        if (stack[i].node->ref == to) closing_ref = stack[i].node;
      }
      message += display_location(*next);
      const Node* at = closing_ref ? closing_ref : stack.back().node;
      fail("$ref", at->builtin ? at->location : child_location(at->location, "$ref"), message);
      return;
    }
  }
}

std::variant<std::unique_ptr<Program>, SchemaCompileError> compile_program(
    const json& schema, const SchemaOptions& options) {
  auto program = std::make_unique<Program>();
  Compiler compiler(options, *program);
  if (auto failure = compiler.run(schema)) return std::move(*failure);
  return program;
}

}  // namespace agui::schema_detail
