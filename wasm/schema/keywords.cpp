// The schema compiler, second half: each keyword of a schema object, checked
// (a wrong type or value is a SchemaCompileError naming the keyword and its
// JSON Pointer) and turned into the fields of a Node. Unknown keywords, x-*
// extensions and annotations (title, description, default, examples, format,
// $comment, ...) are ignored. References are queued and resolved by
// compiler.cpp once the whole document is known.
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "schema/internal/compiler.hpp"

namespace agui::schema_detail {
namespace {

std::string brief(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::string got(const json& value) {
  return std::string(type_name(value)) + (value.is_structured() ? "" : " " + brief(value));
}

std::optional<std::size_t> count_keyword(Failure& failure, const json& schema, const char* keyword,
                                         const std::string& location) {
  const auto it = schema.find(keyword);
  if (it == schema.end()) return std::nullopt;
  constexpr auto kMax = std::numeric_limits<std::size_t>::max();
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    return v > kMax ? kMax : static_cast<std::size_t>(v);
  }
  if (it->is_number_integer() && it->get<std::int64_t>() >= 0) {
    return static_cast<std::size_t>(it->get<std::int64_t>());
  }
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (d >= 0 && std::isfinite(d) && std::floor(d) == d) {
      return d >= 1.8e19 ? kMax : static_cast<std::size_t>(d);
    }
  }
  fail(failure, keyword, child_location(location, keyword),
       std::string(keyword) + " must be a non-negative integer, got " + got(*it));
  return std::nullopt;
}

std::vector<std::string> names_keyword(Failure& failure, const json& value, const std::string& what,
                                       const char* keyword, const std::string& path) {
  if (!value.is_array()) {
    fail(failure, keyword, path, what + " must be an array of property names, got " + got(value));
    return {};
  }
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& name : value) {
    if (!name.is_string()) {
      fail(failure, keyword, path, what + " must contain only strings, got " + got(name));
      return {};
    }
    if (seen.insert(name.get<std::string>()).second) names.push_back(name.get<std::string>());
  }
  return names;
}

}  // namespace

Node* Compiler::compile(const json& schema, const std::string& parent_base,
                        const std::string& location, std::size_t depth, const Document& doc,
                        std::string_view keyword) {
  if (failure_) return nullptr;
  if (const auto it = compiled_.find(&schema); it != compiled_.end()) return it->second;
  if (depth > max_depth_) {
    fail(std::string(keyword), location,
         "schema nesting exceeds max depth " + std::to_string(max_depth_) + " at " + location);
    return nullptr;
  }
  auto owned = std::make_unique<Node>();
  Node* node = owned.get();
  program_.nodes.push_back(std::move(owned));
  compiled_.emplace(&schema, node);
  node->location = doc.prefix + location;
  node->builtin = doc.builtin;
  if (schema.is_boolean()) {
    node->kind = schema.get<bool>() ? Node::Kind::kTrue : Node::Kind::kFalse;
    return node;
  }
  if (!schema.is_object()) {
    fail(std::string(keyword), location,
         "a schema must be an object or a boolean, got " + got(schema));
    return node;
  }
  const std::string base = base_of(schema, parent_base);
  if (const auto ref = schema.find("$ref"); ref != schema.end()) {
    const std::string path = child_location(location, "$ref");
    if (!ref->is_string()) {
      fail("$ref", path, "$ref must be a string (a URI reference), got " + got(*ref));
      return node;
    }
    pending_.push_back(PendingRef{node, ref->get<std::string>(), base, path});
    return node;  // draft 7: the siblings of $ref are ignored
  }
  compile_keywords(*node, schema, base, location, depth, doc);
  return node;
}

// Long on purpose: one short block per keyword family, in the order the
// specification lists them, so the keywords a schema may hold read as one table.
void Compiler::compile_keywords(Node& node, const json& schema, const std::string& base,
                                const std::string& location, std::size_t depth,
                                const Document& doc) {
  auto path = [&](const char* kw) { return child_location(location, kw); };
  auto sub = [&](const char* kw) -> const Node* {
    const auto it = schema.find(kw);
    return it == schema.end() ? nullptr : compile(*it, base, path(kw), depth + 1, doc, kw);
  };

  for (const char* kw : {"$id", "$anchor", "format"}) {
    const auto it = schema.find(kw);
    if (it != schema.end() && !it->is_string()) {
      fail(kw, path(kw), std::string(kw) + " must be a string, got " + got(*it));
      return;
    }
  }

  if (const auto it = schema.find("type"); it != schema.end()) {
    static constexpr std::pair<const char*, std::uint8_t> kTypes[] = {
        {"array", kArrayBit},
        {"boolean", kBooleanBit},
        {"integer", kIntegerBit},
        {"null", kNullBit},
        {"number", kNumberBit | kIntegerBit},
        {"object", kObjectBit},
        {"string", kStringBit}};
    auto bit_of = [&](const json& name) -> std::uint8_t {
      if (!name.is_string()) {
        fail("type", path("type"),
             "type must be a type name or an array of type names, got " + got(name));
        return 0;
      }
      for (const auto& [type, bit] : kTypes) {
        if (name.get_ref<const std::string&>() == type) return bit;
      }
      fail("type", path("type"),
           "type '" + name.get<std::string>() +
               "' is not one of array, boolean, integer, null, number, object, string");
      return 0;
    };
    if (it->is_array()) {
      if (it->empty()) fail("type", path("type"), "type must not be an empty array");
      for (const auto& name : *it) node.types |= bit_of(name);
    } else {
      node.types = bit_of(*it);
    }
  }

  if (const auto it = schema.find("enum"); it != schema.end()) {
    if (!it->is_array()) {
      fail("enum", path("enum"), "enum must be an array of values, got " + got(*it));
      return;
    }
    if (json_depth(*it, max_depth_ + 1) > max_depth_ + 1) {
      fail("enum", path("enum"),
           "enum values nest deeper than max depth " + std::to_string(max_depth_));
      return;
    }
    node.enum_values.emplace(it->begin(), it->end());
  }
  if (const auto it = schema.find("const"); it != schema.end()) {
    if (json_depth(*it, max_depth_) > max_depth_) {
      fail("const", path("const"),
           "const value nests deeper than max depth " + std::to_string(max_depth_));
      return;
    }
    node.const_value = *it;
  }

  compile_numbers(node, schema, location);
  compile_strings(node, schema, location);
  compile_arrays(node, schema, base, location, depth, doc);
  compile_objects(node, schema, base, location, depth, doc);

  for (const auto& [kw, list] :
       {std::pair{"allOf", &node.all_of}, {"anyOf", &node.any_of}, {"oneOf", &node.one_of}}) {
    const auto it = schema.find(kw);
    if (it == schema.end()) continue;
    if (!it->is_array() || it->empty()) {
      fail(kw, path(kw),
           std::string(kw) + " must be a non-empty array of schemas, got " + got(*it));
      return;
    }
    const std::string list_location = path(kw);
    for (std::size_t i = 0; i < it->size(); ++i) {
      list->push_back(compile((*it)[i], base, child_location(list_location, std::to_string(i)),
                              depth + 1, doc, kw));
    }
  }
  node.not_schema = sub("not");
  if (schema.contains("if")) {  // then/else without if have no effect
    node.if_schema = sub("if");
    node.then_schema = sub("then");
    node.else_schema = sub("else");
  }

  // Definitions are compiled even when nothing refers to them, so that a broken
  // one is reported where it is.
  for (const char* kw : {"definitions", "$defs"}) {
    const auto it = schema.find(kw);
    if (it == schema.end()) continue;
    if (!it->is_object()) {
      fail(kw, path(kw), std::string(kw) + " must be an object of named schemas, got " + got(*it));
      return;
    }
    const std::string map_location = path(kw);
    for (auto member = it->begin(); member != it->end(); ++member) {
      compile(member.value(), base, child_location(map_location, member.key()), depth + 1, doc, kw);
    }
  }
}

void Compiler::compile_numbers(Node& node, const json& schema, const std::string& location) {
  auto number = [&](const char* kw, std::optional<Num>& value, std::string& text) {
    const auto it = schema.find(kw);
    if (it == schema.end()) return;
    if (!it->is_number()) {
      const bool draft4 = it->is_boolean() && std::string_view(kw).substr(0, 9) == "exclusive";
      fail(kw, child_location(location, kw),
           std::string(kw) + " must be a number, got " + got(*it) +
               (draft4 ? " (the draft 4 boolean form is not supported: use a number)" : ""));
      return;
    }
    value = Num::of(*it);
    text = it->dump();
  };
  NumberRules scratch;
  number("minimum", scratch.minimum, scratch.minimum_text);
  number("maximum", scratch.maximum, scratch.maximum_text);
  number("exclusiveMinimum", scratch.exclusive_minimum, scratch.exclusive_minimum_text);
  number("exclusiveMaximum", scratch.exclusive_maximum, scratch.exclusive_maximum_text);
  number("multipleOf", scratch.multiple_of, scratch.multiple_of_text);
  if (scratch.multiple_of && compare(*scratch.multiple_of, Num{}) <= 0) {
    fail("multipleOf", child_location(location, "multipleOf"),
         "multipleOf must be greater than 0, got " + scratch.multiple_of_text);
    return;
  }
  if (scratch.minimum || scratch.maximum || scratch.exclusive_minimum ||
      scratch.exclusive_maximum || scratch.multiple_of) {
    node.number = std::make_unique<NumberRules>(std::move(scratch));
  }
}

void Compiler::compile_strings(Node& node, const json& schema, const std::string& location) {
  StringRules scratch;
  scratch.min_length = count_keyword(failure_, schema, "minLength", location);
  scratch.max_length = count_keyword(failure_, schema, "maxLength", location);
  if (const auto it = schema.find("pattern"); it != schema.end()) {
    const std::string path = child_location(location, "pattern");
    if (!it->is_string()) {
      fail("pattern", path, "pattern must be a string, got " + got(*it));
      return;
    }
    scratch.pattern = compile_regex(it->get<std::string>(), "pattern", path);
  }
  if (scratch.min_length || scratch.max_length || scratch.pattern) {
    node.string = std::make_unique<StringRules>(std::move(scratch));
  }
}

Regex Compiler::compile_regex(const std::string& pattern, const char* keyword,
                              const std::string& path) {
  auto compiled = program_.regex->compile(pattern);
  if (auto* message = std::get_if<std::string>(&compiled)) {
    fail(keyword, path, "pattern '" + pattern + "' is not a valid regular expression: " + *message);
    return Regex{};
  }
  auto handle = std::get<std::shared_ptr<const void>>(std::move(compiled));
  if (!handle) {
    fail(keyword, path, "pattern '" + pattern + "' could not be compiled");
    return Regex{};
  }
  if (!allow_backtracking_patterns_) {
    const std::string reason = program_.regex->backtracking_reason(handle.get());
    if (!reason.empty()) {
      fail(keyword, path,
           "pattern '" + pattern + "' has " + reason +
               ", which only a backtracking regex engine runs, with no bound on its time: a "
               "model's argument could stall the page. Rewrite the pattern, or accept the risk "
               "with the option allowBacktrackingPatterns: true");
      return Regex{};
    }
  }
  return Regex{std::move(handle), pattern};
}

void Compiler::compile_arrays(Node& node, const json& schema, const std::string& base,
                              const std::string& location, std::size_t depth, const Document& doc) {
  ArrayRules scratch;
  bool any = false;
  auto schema_list = [&](const char* kw, const json& list) {
    const std::string list_location = child_location(location, kw);
    for (std::size_t i = 0; i < list.size(); ++i) {
      scratch.prefix.push_back(compile(
          list[i], base, child_location(list_location, std::to_string(i)), depth + 1, doc, kw));
    }
    scratch.prefix_keyword = kw;
    any = true;
  };
  auto single = [&](const char* kw) -> const Node* {
    const auto it = schema.find(kw);
    if (it == schema.end()) return nullptr;
    any = true;
    return compile(*it, base, child_location(location, kw), depth + 1, doc, kw);
  };
  const auto items = schema.find("items");
  if (const auto prefix = schema.find("prefixItems"); prefix != schema.end()) {
    // 2020-12: prefixItems is the tuple, items the schema for the rest.
    if (!prefix->is_array()) {
      fail("prefixItems", child_location(location, "prefixItems"),
           "prefixItems must be an array of schemas, got " + got(*prefix));
      return;
    }
    if (items != schema.end() && items->is_array()) {
      fail("items", child_location(location, "items"),
           "items must be a schema when prefixItems is present, got an array");
      return;
    }
    schema_list("prefixItems", *prefix);
    scratch.rest = single("items");
    scratch.rest_keyword = "items";
  } else if (items != schema.end() && items->is_array()) {
    schema_list("items", *items);
    scratch.rest = single("additionalItems");
    scratch.rest_keyword = "additionalItems";
  } else {
    scratch.rest = single("items");  // additionalItems has no effect here
    scratch.rest_keyword = "items";
  }
  scratch.contains = single("contains");
  scratch.min_items = count_keyword(failure_, schema, "minItems", location);
  scratch.max_items = count_keyword(failure_, schema, "maxItems", location);
  if (const auto it = schema.find("uniqueItems"); it != schema.end()) {
    if (!it->is_boolean()) {
      fail("uniqueItems", child_location(location, "uniqueItems"),
           "uniqueItems must be a boolean, got " + got(*it));
      return;
    }
    scratch.unique_items = it->get<bool>();
  }
  if (any || scratch.min_items || scratch.max_items || scratch.unique_items) {
    node.array = std::make_unique<ArrayRules>(std::move(scratch));
  }
}

// Long on purpose: the object keywords one after another (properties,
// patternProperties, additionalProperties, required, dependencies, ...), as
// compile_keywords does for the rest.
void Compiler::compile_objects(Node& node, const json& schema, const std::string& base,
                               const std::string& location, std::size_t depth,
                               const Document& doc) {
  auto rules = std::make_unique<ObjectRules>();
  bool any = false;
  std::map<std::string, PropertyEntry> table;
  auto schema_map = [&](const char* kw, auto&& each) {
    const auto it = schema.find(kw);
    if (it == schema.end()) return;
    const std::string map_location = child_location(location, kw);
    if (!it->is_object()) {
      fail(kw, map_location,
           std::string(kw) + " must be an object mapping property names to schemas, got " +
               got(*it));
      return;
    }
    any = true;
    for (auto member = it->begin(); member != it->end(); ++member) {
      each(member.key(), member.value(), child_location(map_location, member.key()), kw);
    }
  };
  auto sub = [&](const json& value, const std::string& path, const char* kw) {
    return compile(value, base, path, depth + 1, doc, kw);
  };

  schema_map("properties", [&](const std::string& name, const json& value, const std::string& path,
                               const char* kw) {
    PropertyEntry& entry = table[name];
    entry.name = name;
    entry.schema = sub(value, path, kw);
  });
  if (const auto it = schema.find("required"); it != schema.end()) {
    rules->required =
        names_keyword(failure_, *it, "required", "required", child_location(location, "required"));
    for (std::size_t i = 0; i < rules->required.size(); ++i) {
      PropertyEntry& entry = table[rules->required[i]];
      entry.name = rules->required[i];
      entry.required_index = static_cast<int>(i);
    }
    any = true;
  }
  for (auto& [name, entry] : table) rules->properties.push_back(std::move(entry));

  schema_map("patternProperties", [&](const std::string& pattern, const json& value,
                                      const std::string& path, const char* kw) {
    Regex regex = compile_regex(pattern, kw, path);
    rules->pattern_properties.emplace_back(std::move(regex), sub(value, path, kw));
  });
  rules->pattern_properties_location = node.location + "/patternProperties";
  if (const auto it = schema.find("additionalProperties"); it != schema.end()) {
    rules->additional =
        sub(*it, child_location(location, "additionalProperties"), "additionalProperties");
    any = true;
  }
  if (const auto it = schema.find("propertyNames"); it != schema.end()) {
    rules->property_names = sub(*it, child_location(location, "propertyNames"), "propertyNames");
    any = true;
  }
  rules->min_properties = count_keyword(failure_, schema, "minProperties", location);
  rules->max_properties = count_keyword(failure_, schema, "maxProperties", location);

  schema_map("dependencies", [&](const std::string& name, const json& value,
                                 const std::string& path, const char* kw) {
    Dependency dep{name, {}, nullptr, kw};
    if (value.is_array()) {
      dep.required = names_keyword(failure_, value, "dependencies/" + name, kw, path);
    } else if (value.is_object() || value.is_boolean()) {
      dep.schema = sub(value, path, kw);
    } else {
      fail(kw, path,
           "dependencies/" + name + " must be an array of property names or a schema, got " +
               got(value));
      return;
    }
    rules->dependencies.push_back(std::move(dep));
  });
  schema_map("dependentRequired", [&](const std::string& name, const json& value,
                                      const std::string& path, const char* kw) {
    rules->dependencies.push_back(Dependency{
        name, names_keyword(failure_, value, "dependentRequired/" + name, kw, path), nullptr, kw});
  });
  schema_map("dependentSchemas", [&](const std::string& name, const json& value,
                                     const std::string& path, const char* kw) {
    rules->dependencies.push_back(Dependency{name, {}, sub(value, path, kw), kw});
  });

  if (any || rules->min_properties || rules->max_properties) node.object = std::move(rules);
}

const PropertyEntry* ObjectRules::find(std::string_view name) const {
  std::size_t lo = 0;
  std::size_t hi = properties.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const int cmp = std::string_view(properties[mid].name).compare(name);
    if (cmp == 0) return &properties[mid];
    if (cmp < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return nullptr;
}

}  // namespace agui::schema_detail
