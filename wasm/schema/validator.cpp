// The JSON Schema validator: walks the compiled node graph
// (internal/program.hpp) over an instance. Two modes share one code path:
// is_valid() stops at the first failure and builds no strings; validate()
// records every issue (up to max_issues), building instance paths and messages
// only for issues. anyOf/oneOf/not/if/contains test their branches in the first
// mode; a failed anyOf/oneOf is then explained by one issue (plus the issues of
// its closest branch when one branch is clearly closest).
#include <algorithm>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

#include "schema/internal/program.hpp"
#include "schema/json_schema.hpp"

namespace agui {

using schema_detail::json;
using schema_detail::Node;

struct CompiledSchema::Impl {
  std::unique_ptr<schema_detail::Program> program;
};

namespace {

using namespace schema_detail;

// One step of an instance path, kept on the stack; made into a JSON Pointer only
// when an issue is recorded.
struct Path {
  const Path* parent;
  const std::string* key;  // null: an array index
  std::size_t index;
};

std::string pointer(const Path* path) {
  std::vector<const Path*> steps;
  for (const Path* p = path; p != nullptr; p = p->parent) steps.push_back(p);
  std::string out;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    out += '/';
    if ((*it)->key) {
      append_pointer_token(out, *(*it)->key);
    } else {
      out += std::to_string((*it)->index);
    }
  }
  return out;
}

std::string brief(const json& value, std::size_t limit = 60) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > limit) text = text.substr(0, limit - 3) + "...";
  return text;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

class Evaluator {
 public:
  Evaluator(const Program& program, std::vector<SchemaIssue>* out, std::size_t max_issues)
      : program_(program),
        out_(out),
        max_issues_(max_issues),
        eval_limit_(std::max<std::size_t>(program.max_depth * 16, 256)) {}

  bool eval(const Node& node, const json& value, const Path* path, std::size_t depth);

 private:
  bool collecting() const { return out_ != nullptr; }
  // After a failure: stop unless recording and there is room for more issues.
  bool stop() const { return out_ == nullptr || out_->size() >= max_issues_; }

  void report(const Path* path, const Node& node, std::string_view keyword, std::string message) {
    if (out_ == nullptr || out_->size() >= max_issues_) return;
    std::string schema_path = node.location;
    if (!keyword.empty()) schema_path.append("/").append(keyword);
    out_->push_back(SchemaIssue{pointer(path), std::move(schema_path), std::move(message)});
  }

  // Evaluates without recording (for anyOf, oneOf, not, if, contains).
  bool test(const Node& node, const json& value, const Path* path, std::size_t depth) {
    auto* saved = out_;
    out_ = nullptr;
    const bool ok = eval(node, value, path, depth);
    out_ = saved;
    return ok;
  }

  // Evaluates into `issues` instead of the output.
  bool collect(const Node& node, const json& value, const Path* path, std::size_t depth,
               std::vector<SchemaIssue>& issues, std::size_t limit) {
    auto* saved_out = out_;
    const std::size_t saved_max = max_issues_;
    out_ = &issues;
    max_issues_ = limit;
    const bool ok = eval(node, value, path, depth);
    out_ = saved_out;
    max_issues_ = saved_max;
    return ok;
  }

  bool can_descend(const Node& node, const Path* child, std::size_t depth) {
    if (depth + 1 <= program_.max_depth) return true;
    if (collecting()) {
      report(child, node, "",
             "instance nesting exceeds max depth " + std::to_string(program_.max_depth) + " at " +
                 pointer(child));
    }
    return false;
  }

  void report_false(const Node& node, const Path* path) {
    if (!collecting()) return;
    if (path && path->key) {
      report(path, node, "", "property '" + *path->key + "' is not allowed");
    } else if (path) {
      report(path, node, "", "item " + std::to_string(path->index) + " is not allowed");
    } else {
      report(path, node, "", "no value is allowed here (the schema is false)");
    }
  }

  bool check_enum_const(const Node& node, const json& value, const Path* path);
  bool check_number(const Node& node, const json& value, const Path* path);
  bool check_string(const Node& node, const json& value, const Path* path);
  bool check_array(const Node& node, const json& value, const Path* path, std::size_t depth);
  bool check_object(const Node& node, const json& value, const Path* path, std::size_t depth);
  bool check_property_name(const Node& names, const std::string& key, const Path* child,
                           std::size_t depth);
  bool check_applicators(const Node& node, const json& value, const Path* path, std::size_t depth);
  bool search(const Regex& regex, const std::string& subject, std::string* error);
  void explain_union(const Node& node, const char* keyword,
                     const std::vector<const Node*>& branches, const json& value, const Path* path,
                     std::size_t depth);

  const Program& program_;
  std::vector<SchemaIssue>* out_;
  std::size_t max_issues_;
  std::size_t eval_depth_ = 0;
  std::size_t eval_limit_;
  // The regex matcher's work for this whole validation, however many strings.
  std::size_t regex_steps_left_ = kRegexStepsPerValidation;
};

// The validator's hot path: the checks that apply to every value, inline, then
// one call per family of keywords that applies to this value's type.
bool Evaluator::eval(const Node& node, const json& value, const Path* path, std::size_t depth) {
  if (node.kind == Node::Kind::kTrue) return true;
  if (node.kind == Node::Kind::kFalse) {
    report_false(node, path);
    return false;
  }
  // A guard behind the compiler's cycle check: evaluation never recurses
  // without bound, whatever the graph.
  struct Guard {
    std::size_t& depth;
    explicit Guard(std::size_t& d) : depth(++d) {}
    ~Guard() { --depth; }
  } guard(eval_depth_);
  if (eval_depth_ > eval_limit_) {
    if (collecting()) {
      report(path, node, "",
             "schema evaluation nests deeper than " + std::to_string(eval_limit_) +
                 " subschemas at " + (path ? pointer(path) : std::string("the root")));
    }
    return false;
  }
  if (node.ref) return eval(*node.ref, value, path, depth);

  bool ok = true;
  if (node.types != 0 && (node.types & type_bits(value)) == 0) {
    if (collecting()) {
      report(path, node, "type",
             "expected " + describe_types(node.types) + ", got " + type_name(value));
    }
    ok = false;
    if (stop()) return false;
  }
  if ((node.const_value || node.enum_values) && !check_enum_const(node, value, path)) {
    ok = false;
    if (stop()) return false;
  }
  bool typed_ok = true;
  switch (value.type()) {
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      if (node.number) typed_ok = check_number(node, value, path);
      break;
    case json::value_t::string:
      if (node.string) typed_ok = check_string(node, value, path);
      break;
    case json::value_t::array:
      if (node.array) typed_ok = check_array(node, value, path, depth);
      break;
    case json::value_t::object:
      if (node.object) typed_ok = check_object(node, value, path, depth);
      break;
    default: break;
  }
  if (!typed_ok) {
    ok = false;
    if (stop()) return false;
  }
  if (!check_applicators(node, value, path, depth)) ok = false;
  return ok;
}

bool Evaluator::check_enum_const(const Node& node, const json& value, const Path* path) {
  bool ok = true;
  bool too_deep = false;
  if (node.const_value) {
    const int eq = json_equal(value, *node.const_value, program_.max_depth);
    if (eq != 1) {
      if (collecting()) {
        report(path, node, "const",
               eq < 0 ? "instance nesting exceeds max depth " + std::to_string(program_.max_depth)
                      : "must be " + brief(*node.const_value));
      }
      ok = false;
      if (stop()) return false;
    }
  }
  if (node.enum_values) {
    bool found = false;
    for (const json& candidate : *node.enum_values) {
      const int eq = json_equal(value, candidate, program_.max_depth);
      if (eq == 1) {
        found = true;
        break;
      }
      too_deep |= eq < 0;
    }
    if (!found) {
      if (collecting()) {
        std::string message;
        if (too_deep) {
          message = "instance nesting exceeds max depth " + std::to_string(program_.max_depth);
        } else if (node.enum_values->empty()) {
          message = "no value is allowed (enum is empty)";
        } else {
          message = "must be one of: ";
          const std::size_t shown = std::min<std::size_t>(node.enum_values->size(), 20);
          for (std::size_t i = 0; i < shown; ++i) {
            if (i > 0) message += ", ";
            message += brief((*node.enum_values)[i]);
          }
          if (shown < node.enum_values->size()) {
            message += ", ... (" + std::to_string(node.enum_values->size() - shown) + " more)";
          }
        }
        report(path, node, "enum", std::move(message));
      }
      ok = false;
    }
  }
  return ok;
}

bool Evaluator::check_number(const Node& node, const json& value, const Path* path) {
  const NumberRules& r = *node.number;
  const Num n = Num::of(value);
  bool ok = true;
  auto rule = [&](bool passed, const char* keyword, const char* relation,
                  const std::string& limit) {
    if (passed) return true;
    if (collecting())
      report(path, node, keyword,
             std::string("must be ") + relation + " " + limit + ", got " + value.dump());
    ok = false;
    return !stop();
  };
  if (r.minimum && !rule(compare(n, *r.minimum) >= 0, "minimum", ">=", r.minimum_text))
    return false;
  if (r.maximum && !rule(compare(n, *r.maximum) <= 0, "maximum", "<=", r.maximum_text))
    return false;
  if (r.exclusive_minimum && !rule(compare(n, *r.exclusive_minimum) > 0, "exclusiveMinimum", ">",
                                   r.exclusive_minimum_text)) {
    return false;
  }
  if (r.exclusive_maximum && !rule(compare(n, *r.exclusive_maximum) < 0, "exclusiveMaximum", "<",
                                   r.exclusive_maximum_text)) {
    return false;
  }
  if (r.multiple_of &&
      !rule(is_multiple_of(n, *r.multiple_of), "multipleOf", "a multiple of", r.multiple_of_text)) {
    return false;
  }
  return ok;
}

bool Evaluator::search(const Regex& regex, const std::string& subject, std::string* error) {
  return program_.regex->search(regex.handle.get(), subject, regex_steps_left_, *error);
}

bool Evaluator::check_string(const Node& node, const json& value, const Path* path) {
  const StringRules& r = *node.string;
  const auto& s = value.get_ref<const std::string&>();
  bool ok = true;
  // A string has at most as many code points as bytes: count only when needed.
  if (r.min_length && (s.size() < *r.min_length || code_points(s) < *r.min_length)) {
    if (collecting()) {
      report(path, node, "minLength",
             "must be at least " + plural(*r.min_length, "character", "characters") + ", got " +
                 std::to_string(code_points(s)));
    }
    ok = false;
    if (stop()) return false;
  }
  if (r.max_length && s.size() > *r.max_length && code_points(s) > *r.max_length) {
    if (collecting()) {
      report(path, node, "maxLength",
             "must be at most " + plural(*r.max_length, "character", "characters") + ", got " +
                 std::to_string(code_points(s)));
    }
    ok = false;
    if (stop()) return false;
  }
  if (r.pattern) {
    std::string error;
    if (!search(*r.pattern, s, &error)) {
      if (collecting()) {
        report(path, node, "pattern",
               error.empty() ? "must match pattern '" + r.pattern->source + "'"
                             : "could not check pattern '" + r.pattern->source + "': " + error);
      }
      ok = false;
    }
  }
  return ok;
}

// Long on purpose: the array keywords one after another (counts, uniqueness,
// then prefixItems / items and contains, which share one pass over the items).
bool Evaluator::check_array(const Node& node, const json& value, const Path* path,
                            std::size_t depth) {
  const ArrayRules& r = *node.array;
  const std::size_t n = value.size();
  bool ok = true;
  auto failed = [&] {
    ok = false;
    return stop();
  };
  if (r.min_items && n < *r.min_items) {
    if (collecting()) {
      report(path, node, "minItems",
             "must have at least " + plural(*r.min_items, "item", "items") + ", got " +
                 std::to_string(n));
    }
    if (failed()) return false;
  }
  if (r.max_items && n > *r.max_items) {
    if (collecting()) {
      report(path, node, "maxItems",
             "must have at most " + plural(*r.max_items, "item", "items") + ", got " +
                 std::to_string(n));
    }
    if (failed()) return false;
  }
  if (r.unique_items && n > 1) {
    // Bucket by a hash consistent with JSON equality: linear, not quadratic.
    std::unordered_multimap<std::size_t, std::size_t> seen;
    seen.reserve(n);
    bool duplicate = false;
    bool too_deep = false;
    std::size_t first = 0;
    std::size_t second = 0;
    for (std::size_t i = 0; i < n && !duplicate && !too_deep; ++i) {
      const std::size_t h = json_hash(value[i], program_.max_depth);
      const auto [lo, hi] = seen.equal_range(h);
      for (auto it = lo; it != hi; ++it) {
        const int eq = json_equal(value[it->second], value[i], program_.max_depth);
        if (eq != 0) {
          duplicate = eq == 1;
          too_deep = eq < 0;
          first = it->second;
          second = i;
          break;
        }
      }
      seen.emplace(h, i);
    }
    if (duplicate || too_deep) {
      if (collecting()) {
        report(path, node, "uniqueItems",
               too_deep ? "instance nesting exceeds max depth " + std::to_string(program_.max_depth)
                        : "must not contain duplicate items (items " + std::to_string(first) +
                              " and " + std::to_string(second) + " are equal)");
      }
      if (failed()) return false;
    }
  }
  if (n == 0) {
    if (r.contains) {
      if (collecting())
        report(path, node, "contains",
               "must contain at least one item that matches the 'contains' schema, got an empty "
               "array");
      return false;
    }
    return ok;
  }
  const bool has_item_schemas = !r.prefix.empty() || r.rest || r.contains;
  const Path first_child{path, nullptr, 0};
  if (has_item_schemas && !can_descend(node, &first_child, depth)) return false;
  const std::size_t prefix = std::min(n, r.prefix.size());
  for (std::size_t i = 0; i < prefix; ++i) {
    const Path child{path, nullptr, i};
    if (!eval(*r.prefix[i], value[i], &child, depth + 1) && failed()) return false;
  }
  if (r.rest && n > r.prefix.size()) {
    if (r.rest->kind == Node::Kind::kFalse) {
      if (collecting()) {
        report(path, *r.rest, "",
               "must have at most " + plural(r.prefix.size(), "item", "items") + ", got " +
                   std::to_string(n));
      }
      if (failed()) return false;
    } else if (r.rest->kind != Node::Kind::kTrue) {
      for (std::size_t i = r.prefix.size(); i < n; ++i) {
        const Path child{path, nullptr, i};
        if (!eval(*r.rest, value[i], &child, depth + 1) && failed()) return false;
      }
    }
  }
  if (r.contains) {
    bool found = false;
    for (std::size_t i = 0; i < n && !found; ++i) {
      const Path child{path, nullptr, i};
      found = test(*r.contains, value[i], &child, depth + 1);
    }
    if (!found) {
      if (collecting())
        report(path, node, "contains",
               "must contain at least one item that matches the 'contains' schema");
      if (failed()) return false;
    }
  }
  return ok;
}

bool Evaluator::check_property_name(const Node& names, const std::string& key, const Path* child,
                                    std::size_t depth) {
  const json name = key;
  if (!collecting()) return eval(names, name, child, depth);
  std::vector<SchemaIssue> issues;
  if (collect(names, name, child, depth, issues, max_issues_ - out_->size())) return true;
  for (auto& issue : issues) {
    if (issue.message.rfind("property '", 0) != 0) {
      issue.message = "invalid property name '" + key + "': " + issue.message;
    }
    if (out_->size() < max_issues_) out_->push_back(std::move(issue));
  }
  return false;
}

// Long on purpose: the object keywords one after another (counts, required,
// then properties, patternProperties and additionalProperties, which share one
// pass over the members).
bool Evaluator::check_object(const Node& node, const json& value, const Path* path,
                             std::size_t depth) {
  const ObjectRules& r = *node.object;
  const std::size_t n = value.size();
  bool ok = true;
  auto failed = [&] {
    ok = false;
    return stop();
  };
  if (r.min_properties && n < *r.min_properties) {
    if (collecting()) {
      report(path, node, "minProperties",
             "must have at least " + plural(*r.min_properties, "property", "properties") +
                 ", got " + std::to_string(n));
    }
    if (failed()) return false;
  }
  if (r.max_properties && n > *r.max_properties) {
    if (collecting()) {
      report(path, node, "maxProperties",
             "must have at most " + plural(*r.max_properties, "property", "properties") + ", got " +
                 std::to_string(n));
    }
    if (failed()) return false;
  }
  const bool visit_members =
      !r.properties.empty() || !r.pattern_properties.empty() || r.additional || r.property_names;
  std::size_t required_seen = 0;
  if (visit_members && n > 0) {
    bool descend = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      const std::string& key = it.key();
      const Path child{path, &key, 0};
      const PropertyEntry* entry = r.properties.empty() ? nullptr : r.find(key);
      if (entry && entry->required_index >= 0) ++required_seen;
      if (r.property_names && !check_property_name(*r.property_names, key, &child, depth) &&
          failed()) {
        return false;
      }
      if (descend && !can_descend(node, &child, depth)) {
        descend = false;
        if (failed()) return false;
      }
      if (!descend) continue;
      bool matched = false;
      if (entry && entry->schema) {
        matched = true;
        if (!eval(*entry->schema, it.value(), &child, depth + 1) && failed()) return false;
      }
      for (const auto& [regex, schema] : r.pattern_properties) {
        std::string error;
        if (search(regex, key, &error)) {
          matched = true;
          if (!eval(*schema, it.value(), &child, depth + 1) && failed()) return false;
        } else if (!error.empty()) {
          if (collecting() && out_->size() < max_issues_) {
            std::string where = r.pattern_properties_location + "/";
            append_pointer_token(where, regex.source);
            out_->push_back(
                SchemaIssue{pointer(&child), std::move(where),
                            "could not check pattern '" + regex.source + "': " + error});
          }
          if (failed()) return false;
        }
      }
      if (!matched && r.additional && !eval(*r.additional, it.value(), &child, depth + 1) &&
          failed()) {
        return false;
      }
    }
  }
  if (!r.required.empty() && (!visit_members || required_seen < r.required.size())) {
    for (const std::string& name : r.required) {
      if (value.contains(name)) continue;
      if (collecting()) report(path, node, "required", "missing required property '" + name + "'");
      if (failed()) return false;
    }
  }
  for (const Dependency& dep : r.dependencies) {
    if (!value.contains(dep.name)) continue;
    for (const std::string& name : dep.required) {
      if (value.contains(name)) continue;
      if (collecting()) {
        std::string keyword = std::string(dep.keyword) + "/";
        append_pointer_token(keyword, dep.name);
        report(path, node, keyword,
               "property '" + name + "' is required when property '" + dep.name + "' is present");
      }
      if (failed()) return false;
    }
    if (dep.schema && !eval(*dep.schema, value, path, depth) && failed()) return false;
  }
  return ok;
}

bool Evaluator::check_applicators(const Node& node, const json& value, const Path* path,
                                  std::size_t depth) {
  bool ok = true;
  auto failed = [&] {
    ok = false;
    return stop();
  };
  for (const Node* branch : node.all_of) {
    if (!eval(*branch, value, path, depth) && failed()) return false;
  }
  if (!node.any_of.empty()) {
    bool matched = false;
    for (const Node* branch : node.any_of) {
      if (test(*branch, value, path, depth)) {
        matched = true;
        break;
      }
    }
    if (!matched) {
      if (collecting()) explain_union(node, "anyOf", node.any_of, value, path, depth);
      if (failed()) return false;
    }
  }
  if (!node.one_of.empty()) {
    std::vector<std::size_t> matches;
    for (std::size_t i = 0; i < node.one_of.size(); ++i) {
      if (test(*node.one_of[i], value, path, depth)) {
        matches.push_back(i);
        if (matches.size() == 2 && !collecting()) break;
      }
    }
    if (matches.empty()) {
      if (collecting()) explain_union(node, "oneOf", node.one_of, value, path, depth);
      if (failed()) return false;
    } else if (matches.size() > 1) {
      if (collecting()) {
        std::string which;
        for (std::size_t i = 0; i < matches.size(); ++i) {
          which += (i == 0                    ? ""
                    : i + 1 == matches.size() ? " and "
                                              : ", ") +
                   std::string("oneOf/") + std::to_string(matches[i]);
        }
        report(path, node, "oneOf",
               "must match exactly one of the " + std::to_string(node.one_of.size()) +
                   " schemas in oneOf, matched " + std::to_string(matches.size()) + " (" + which +
                   ")");
      }
      if (failed()) return false;
    }
  }
  if (node.not_schema && test(*node.not_schema, value, path, depth)) {
    if (collecting()) report(path, node, "not", "must not match the schema in 'not'");
    if (failed()) return false;
  }
  if (node.if_schema) {
    const Node* branch =
        test(*node.if_schema, value, path, depth) ? node.then_schema : node.else_schema;
    if (branch && !eval(*branch, value, path, depth) && failed()) return false;
  }
  return ok;
}

// One issue for a failed anyOf/oneOf. When every branch rejects the instance's
// type, the issue says which types would do; when exactly one branch accepts
// the type and fails with the fewest issues, its issues follow.
void Evaluator::explain_union(const Node& node, const char* keyword,
                              const std::vector<const Node*>& branches, const json& value,
                              const Path* path, std::size_t depth) {
  const std::uint8_t bits = type_bits(value);
  std::uint8_t wanted = 0;
  bool all_reject_type = true;
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < branches.size(); ++i) {
    const Node* b = branches[i];
    for (std::size_t hops = 0; b->ref && hops < 64; ++hops) b = b->ref;
    const bool rejects_type =
        b->kind == Node::Kind::kSchema && b->types != 0 && (b->types & bits) == 0;
    if (rejects_type) {
      wanted |= b->types;
    } else {
      all_reject_type = false;
      if (b->kind == Node::Kind::kSchema) candidates.push_back(i);
    }
  }
  const std::string count = std::to_string(branches.size());
  std::string message =
      std::string(keyword) == "anyOf"
          ? "must match at least one of the " + count + " schemas in anyOf"
          : "must match exactly one of the " + count + " schemas in oneOf, matched 0";
  if (all_reject_type) {
    report(path, node, keyword,
           message + ": expected " + describe_types(wanted) + ", got " + type_name(value));
    return;
  }
  std::vector<std::vector<SchemaIssue>> issues(candidates.size());
  std::size_t best = 0;
  bool tie = false;
  constexpr std::size_t kBranchLimit = 16;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    collect(*branches[candidates[c]], value, path, depth, issues[c], kBranchLimit);
    if (c == 0 || issues[c].size() < issues[best].size()) {
      best = c;
      tie = false;
    } else if (issues[c].size() == issues[best].size()) {
      tie = true;
    }
  }
  if (candidates.empty() || tie || issues[best].empty()) {
    report(path, node, keyword, message);
    return;
  }
  report(path, node, keyword,
         message + "; the closest is " + keyword + "/" + std::to_string(candidates[best]) +
             ", which fails with the issues that follow");
  for (auto& issue : issues[best]) {
    if (out_->size() >= max_issues_) break;
    out_->push_back(std::move(issue));
  }
}

}  // namespace

CompiledSchema::CompiledSchema(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledSchema::~CompiledSchema() = default;

CompiledSchema::CompileResult CompiledSchema::compile(const json& schema,
                                                      const SchemaOptions& options) {
  auto program = compile_program(schema, options);
  if (auto* error = std::get_if<SchemaCompileError>(&program)) return std::move(*error);
  auto impl = std::make_unique<Impl>();
  impl->program = std::get<std::unique_ptr<Program>>(std::move(program));
  return std::shared_ptr<const CompiledSchema>(new CompiledSchema(std::move(impl)));
}

std::vector<SchemaIssue> CompiledSchema::validate(const json& instance,
                                                  std::size_t max_issues) const {
  std::vector<SchemaIssue> issues;
  Evaluator evaluator(*impl_->program, &issues, std::max<std::size_t>(max_issues, 1));
  if (!evaluator.eval(*impl_->program->root, instance, nullptr, 0) && issues.empty()) {
    issues.push_back(SchemaIssue{"", impl_->program->root->location, "does not match the schema"});
  }
  return issues;
}

bool CompiledSchema::is_valid(const json& instance) const {
  Evaluator evaluator(*impl_->program, nullptr, 0);
  return evaluator.eval(*impl_->program->root, instance, nullptr, 0);
}

}  // namespace agui
