// The tool registry: validates definitions once, at registration, so that what
// is advertised to the agent is always well formed, and keeps the enabled set.
#include "client/tool_registry.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "common/utf8.hpp"

namespace agui {

namespace {

constexpr std::size_t kMaxNameLength = 64;

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char to_lower(char c) { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }
char to_upper(char c) { return is_lower(c) ? static_cast<char>(c - 'a' + 'A') : c; }

// Text for an error message: printable ASCII as is, every other byte as \xNN,
// so a message is always valid UTF-8 and shows exactly what was given.
std::string printable(std::string_view text, std::size_t max_chars = 80) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == max_chars) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      out += static_cast<char>(byte);
    } else {
      out += "\\x";
      out += "0123456789ABCDEF"[byte >> 4];
      out += "0123456789ABCDEF"[byte & 15];
    }
  }
  return out;
}

// Why `name` is not a valid tool name, or nullopt when it is.
std::optional<std::string> name_problem(std::string_view name) {
  if (name.empty()) return "name is empty; it must match ^[A-Za-z0-9_-]{1,64}$";
  if (name.size() > kMaxNameLength) {
    return "name '" + printable(name, kMaxNameLength) + "' is " + std::to_string(name.size()) +
           " characters long; at most 64 are allowed";
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (is_name_char(name[i])) continue;
    return "name '" + printable(name) + "' has '" + printable(name.substr(i, 1)) + "' at offset " +
           std::to_string(i) + "; only ASCII letters, digits, '_' and '-' are allowed";
  }
  return std::nullopt;
}

const char* type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "binary";
  }
}

// For messages: a scalar's own text, otherwise its type.
std::string describe(const json& value) {
  if (value.is_number() || value.is_boolean()) return value.dump();
  if (value.is_string()) return "\"" + printable(value.get_ref<const std::string&>()) + "\"";
  return type_name(value);
}

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  });
}

const json& empty_object_schema() {
  static const json schema = {{"type", "object"}, {"properties", json::object()}};
  return schema;
}

// --- from_json ----------------------------------------------------------------

constexpr std::array<std::string_view, 12> kKnownKeys = {
    "name",    "description", "parameters", "defaultEnabled", "requiresApproval", "destructive",
    "confirm", "summary",     "category",   "timeoutMs",      "rejectedResult",   "idempotent"};

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = to_lower(c);
  return out;
}

// The known key `key` was most likely meant to be: same letters in another
// case, or a letter or two away (ignoring case). Empty when none is close.
std::string_view closest_key(std::string_view key) {
  const std::string lower = lowercase(key);
  std::string_view best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (std::string_view known : kKnownKeys) {
    const std::size_t distance = edit_distance(lower, lowercase(known));
    // A short key allows only one edit, so that "id" is not taken for "name".
    if (distance <= 2 && distance * 2 < known.size() && distance < best_distance) {
      best = known;
      best_distance = distance;
    }
  }
  return best;
}

Error invalid(std::string message) {
  return make_error(ErrorCode::kInvalidTool, std::move(message));
}

std::optional<std::string> timeout_problem(const json& value, std::int64_t& out) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > 0 && v <= static_cast<std::uint64_t>(kMax)) {
      out = static_cast<std::int64_t>(v);
      return std::nullopt;
    }
  } else if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    if (v > 0) {
      out = v;
      return std::nullopt;
    }
  } else if (value.is_number_float()) {
    // 1000.0 is an integer in JSON's number model.
    const double v = value.get<double>();
    if (v >= 1 && v < 9223372036854775808.0 &&
        v == static_cast<double>(static_cast<std::int64_t>(v))) {
      out = static_cast<std::int64_t>(v);
      return std::nullopt;
    }
  }
  return "'timeoutMs' must be a positive integer (milliseconds), got " + describe(value);
}

}  // namespace

// One branch per field of a ToolDefinition (index.d.ts), each with the error
// that names it: a table, read down.
std::variant<ToolSpec, Error> ToolSpec::from_json(const json& definition) {
  if (!definition.is_object()) {
    return invalid(std::string("tool definition: expected an object, got ") +
                   type_name(definition));
  }
  ToolSpec spec;
  const auto name = definition.find("name");
  if (name == definition.end()) return invalid("tool definition: missing required key 'name'");
  if (!name->is_string()) {
    return invalid(std::string("tool definition: 'name' must be a string, got ") +
                   type_name(*name));
  }
  spec.name = name->get<std::string>();
  if (auto problem = name_problem(spec.name)) return invalid("tool definition: " + *problem);
  const std::string prefix = "tool '" + spec.name + "': ";
  if (!definition.contains("description")) {
    return invalid(prefix + "missing required key 'description'");
  }

  for (const auto& item : definition.items()) {
    const std::string& key = item.key();
    const json& value = item.value();
    // Optional keys accept null as "not set": a JS caller may write null.
    const auto expect = [&](bool ok, const char* expected) -> std::optional<Error> {
      if (ok) return std::nullopt;
      return invalid(prefix + "'" + key + "' must be " + expected + ", got " + type_name(value));
    };
    std::optional<Error> error;
    if (key == "name") {
      continue;
    } else if (key == "description") {
      if (!(error = expect(value.is_string(), "a string")))
        spec.description = value.get<std::string>();
    } else if (key == "parameters") {
      if (!(error = expect(value.is_object() || value.is_null(),
                           "an object (a JSON Schema) or null for no parameters"))) {
        spec.parameters = value;
      }
    } else if (key == "defaultEnabled" || key == "requiresApproval" || key == "destructive" ||
               key == "idempotent") {
      if (!(error = expect(value.is_boolean() || value.is_null(), "a boolean")) &&
          !value.is_null()) {
        const bool flag = value.get<bool>();
        (key == "defaultEnabled"     ? spec.default_enabled
         : key == "requiresApproval" ? spec.requires_approval
         : key == "destructive"      ? spec.destructive
                                     : spec.idempotent) = flag;
      }
    } else if (key == "confirm" || key == "summary" || key == "category") {
      if (!(error = expect(value.is_string() || value.is_null(), "a string")) && !value.is_null()) {
        (key == "confirm"   ? spec.confirm
         : key == "summary" ? spec.summary
                            : spec.category) = value.get<std::string>();
      }
    } else if (key == "rejectedResult") {
      spec.rejected_result = value;
    } else if (key == "timeoutMs") {
      if (value.is_null()) continue;
      std::int64_t timeout = 0;
      if (auto problem = timeout_problem(value, timeout)) {
        error = invalid(prefix + *problem);
      } else {
        spec.timeout_ms = timeout;
      }
    } else {
      std::string message = prefix + "unknown key '" + printable(key) + "'";
      if (auto suggestion = closest_key(key); !suggestion.empty()) {
        message += " (did you mean '" + std::string(suggestion) + "'?)";
      }
      error = invalid(std::move(message));
    }
    if (error) return *std::move(error);
  }
  return spec;
}

namespace {

// What the model reads of a tool: a description it can use, valid UTF-8, and a
// positive timeout.
Status check_texts(const ToolSpec& spec, const std::string& prefix) {
  if (spec.description.empty()) {
    return invalid(prefix +
                   "description is empty; the model reads it to decide when to call the tool");
  }
  if (is_blank(spec.description)) {
    return invalid(prefix +
                   "description is only whitespace; the model reads it to decide when to "
                   "call the tool");
  }
  const std::pair<const char*, const std::string*> texts[] = {{"description", &spec.description},
                                                              {"summary", &spec.summary},
                                                              {"confirm", &spec.confirm},
                                                              {"category", &spec.category}};
  for (const auto& [field, text] : texts) {
    if (auto at = invalid_utf8_at(*text)) {
      return invalid(prefix + field + " is not valid UTF-8 (bad byte at offset " +
                     std::to_string(*at) + ")");
    }
  }
  if (spec.timeout_ms && *spec.timeout_ms <= 0) {
    return invalid(prefix + "timeoutMs must be a positive integer (milliseconds), got " +
                   std::to_string(*spec.timeout_ms));
  }

  return kOk;
}

// A tool's parameters: a JSON Schema object for a JSON object, text a request
// body can carry.
// Whether every key and string in `value` is valid UTF-8.
bool all_utf8(const json& value) {
  if (value.is_string()) return !invalid_utf8_at(value.get_ref<const std::string&>());
  if (value.is_array()) return std::all_of(value.begin(), value.end(), all_utf8);
  if (!value.is_object()) return true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (invalid_utf8_at(it.key()) || !all_utf8(it.value())) return false;
  }
  return true;
}

Status check_parameters(const json& params, const std::string& prefix) {
  if (!params.is_object()) {
    return invalid(prefix +
                   "parameters must be a JSON Schema object with \"type\": \"object\" (or "
                   "null for no parameters), got " +
                   type_name(params));
  }
  const auto type = params.find("type");
  if (type == params.end()) {
    return invalid(prefix +
                   "parameters: the root schema must have \"type\": \"object\" (a tool's "
                   "arguments are a JSON object); it has no \"type\"");
  }
  if (*type != "object") {
    return invalid(prefix +
                   "parameters: the root schema must have \"type\": \"object\" (a tool's "
                   "arguments are a JSON object), got \"type\": " +
                   type->dump(-1, ' ', false, json::error_handler_t::replace));
  }
  if (!all_utf8(params)) {  // no request body may carry it (dump() would throw)
    return invalid(prefix + "parameters contain a string that is not valid UTF-8");
  }
  return kOk;
}

}  // namespace

ToolRegistry::ToolRegistry(RegistryOptions options) : options_(std::move(options)) {}

Status ToolRegistry::add(ToolSpec spec) {
  if (auto problem = name_problem(spec.name)) return invalid("tool definition: " + *problem);
  const std::string prefix = "tool '" + spec.name + "': ";
  if (index_.find(spec.name) != index_.end()) {
    return make_error(ErrorCode::kDuplicateTool,
                      prefix + "a tool with this name is already registered");
  }
  if (auto bad = check_texts(spec, prefix)) return bad;
  const json& params = spec.parameters.is_null() ? empty_object_schema() : spec.parameters;
  if (auto bad = check_parameters(params, prefix)) return bad;

  auto compiled = CompiledSchema::compile(params, options_.schema);
  if (auto* error = std::get_if<SchemaCompileError>(&compiled)) {
    const std::string where = error->schema_path.empty() ? "the root" : error->schema_path;
    return make_error(ErrorCode::kInvalidSchema, prefix + "parameters: invalid schema at " + where +
                                                     " (" + error->keyword +
                                                     "): " + error->message);
  }
  auto schema = std::get<std::shared_ptr<const CompiledSchema>>(std::move(compiled));

  Tool tool;
  tool.enabled = spec.default_enabled;
  tool.spec = std::move(spec);
  tool.schema = std::move(schema);
  tools_.push_back(std::move(tool));
  index_.emplace(tools_.back().spec.name, tools_.size() - 1);
  ++revision_;
  return kOk;
}

Status ToolRegistry::remove(std::string_view name) {
  const auto it = index_.find(name);
  if (it == index_.end()) {
    return make_error(ErrorCode::kUnknownTool,
                      "tool '" + printable(name) + "': no tool with this name is registered");
  }
  const std::size_t position = it->second;
  index_.erase(it);
  tools_.erase(tools_.begin() + static_cast<std::ptrdiff_t>(position));
  for (std::size_t i = position; i < tools_.size(); ++i) index_[tools_[i].spec.name] = i;
  ++revision_;
  return kOk;
}

Status ToolRegistry::set_enabled(std::string_view name, bool enabled) {
  const auto it = index_.find(name);
  if (it == index_.end()) {
    return make_error(ErrorCode::kUnknownTool,
                      "tool '" + printable(name) + "': no tool with this name is registered");
  }
  Tool& tool = tools_[it->second];
  if (tool.enabled != enabled) {
    tool.enabled = enabled;
    ++revision_;
  }
  return kOk;
}

const Tool* ToolRegistry::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tools_[it->second];
}

json ToolRegistry::advertise() const {
  json tools = json::array();
  for (const Tool& tool : tools_) {
    if (!tool.enabled) continue;
    const ToolSpec& spec = tool.spec;
    json parameters = spec.parameters.is_null() ? empty_object_schema() : spec.parameters;
    json metadata = json::object();
    if (spec.destructive) metadata["destructive"] = true;
    if (!spec.category.empty()) metadata["category"] = spec.category;
    if (!spec.confirm.empty()) metadata["confirm"] = spec.confirm;
    if (!spec.summary.empty()) metadata["summary"] = spec.summary;
    if (spec.requires_approval) metadata["requiresApproval"] = true;
    if (options_.stamp_schema_extensions) {
      if (spec.destructive) parameters["x-destructive"] = true;
      if (!spec.category.empty()) parameters["x-category"] = spec.category;
      if (!spec.confirm.empty()) parameters["x-confirm"] = spec.confirm;
      if (!spec.summary.empty()) parameters["x-summary"] = spec.summary;
    }
    json entry = {{"name", spec.name},
                  {"description", spec.description},
                  {"parameters", std::move(parameters)}};
    if (!metadata.empty()) entry["metadata"] = std::move(metadata);
    tools.push_back(std::move(entry));
  }
  return tools;
}

std::string ToolSpec::display_summary() const {
  return summary.empty() ? ToolRegistry::prettify(name) : summary;
}

json ToolRegistry::catalog() const {
  json tools = json::array();
  for (const Tool& tool : tools_) {
    tools.push_back({{"name", tool.spec.name},
                     {"summary", tool.spec.display_summary()},
                     {"description", tool.spec.description}});
  }
  return tools;
}

json ToolRegistry::list() const {
  json tools = json::array();
  for (const Tool& tool : tools_) {
    const ToolSpec& spec = tool.spec;
    json entry = {{"name", spec.name},
                  {"description", spec.description},
                  {"summary", spec.display_summary()},
                  {"enabled", tool.enabled},
                  {"defaultEnabled", spec.default_enabled},
                  {"requiresApproval", spec.requires_approval},
                  {"destructive", spec.destructive},
                  {"idempotent", spec.idempotent},
                  {"needsApproval", tool.needs_approval()}};
    if (!spec.category.empty()) entry["category"] = spec.category;
    if (!spec.confirm.empty()) entry["confirm"] = spec.confirm;
    if (spec.timeout_ms) entry["timeoutMs"] = *spec.timeout_ms;
    tools.push_back(std::move(entry));
  }
  return tools;
}

std::string ToolRegistry::prettify(std::string_view name) {
  // Split into words at '_', '-' and camelCase boundaries ("copyTo", "HTMLDoc").
  std::vector<std::string_view> words;
  std::size_t start = 0;
  const auto flush = [&](std::size_t end) {
    if (end > start) words.push_back(name.substr(start, end - start));
    start = end;
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '_' || c == '-' || c == ' ') {
      flush(i);
      start = i + 1;
      continue;
    }
    if (i > start && is_upper(c)) {
      const char previous = name[i - 1];
      const bool next_lower = i + 1 < name.size() && is_lower(name[i + 1]);
      if (is_lower(previous) || is_digit(previous) || (is_upper(previous) && next_lower)) flush(i);
    }
  }
  flush(name.size());

  std::string out;
  for (std::string_view word : words) {
    if (!out.empty()) out += ' ';
    // Acronyms ("URL", "HTML") stay as written; every other word is lowercased.
    const bool acronym = word.size() > 1 && std::none_of(word.begin(), word.end(), is_lower);
    for (char c : word) out += acronym ? c : to_lower(c);
  }
  if (out.empty()) return std::string(name);
  out[0] = to_upper(out[0]);
  return out;
}

}  // namespace agui
