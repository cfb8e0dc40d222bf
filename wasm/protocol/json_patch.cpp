// RFC 6902 JSON Patch with RFC 6901 pointers, applied to a copy of the target
// and every failure returned as text (json_patch.hpp).
#include "protocol/json_patch.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace agui {

namespace {

using Tokens = std::vector<std::string>;

// The pointer's tokens, unescaped (~0 is '~', ~1 is '/'); nullopt when it is
// not a JSON Pointer.
std::optional<Tokens> pointer_tokens(const std::string& pointer) {
  Tokens tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') return std::nullopt;
  tokens.emplace_back();
  for (std::size_t i = 1; i < pointer.size(); ++i) {
    const char c = pointer[i];
    if (c == '/') {
      tokens.emplace_back();
    } else if (c != '~') {
      tokens.back() += c;
    } else if (i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
      tokens.back() += pointer[++i] == '0' ? '~' : '/';
    } else {
      return std::nullopt;
    }
  }
  return tokens;
}

// An array index as RFC 6901 writes it: digits without a leading zero.
std::optional<std::size_t> array_index(const std::string& token) {
  if (token.empty() || token.size() > 15 || (token.size() > 1 && token[0] == '0')) return {};
  std::size_t index = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index;
}

// The value the first `count` tokens name, or null when there is none.
json* locate(json& doc, const Tokens& tokens, std::size_t count) {
  json* at = &doc;
  for (std::size_t i = 0; i < count; ++i) {
    if (at->is_object()) {
      const auto it = at->find(tokens[i]);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      const auto index = array_index(tokens[i]);
      if (!index || *index >= at->size()) return nullptr;
      at = &(*at)[*index];
    } else {
      return nullptr;
    }
  }
  return at;
}

// One operation's work on the document; each returns why it failed, or nullopt.
class Applier {
 public:
  explicit Applier(json& doc) : doc_(doc) {}

  std::optional<std::string> add(const Tokens& path, json value) {
    if (path.empty()) {
      doc_ = std::move(value);
      return std::nullopt;
    }
    json* parent = locate(doc_, path, path.size() - 1);
    if (parent == nullptr) return "its parent does not exist";
    const std::string& last = path.back();
    if (parent->is_object()) {
      (*parent)[last] = std::move(value);
      return std::nullopt;
    }
    if (!parent->is_array()) return "its parent is not an object or an array";
    auto& items = parent->get_ref<json::array_t&>();
    const auto index = last == "-" ? std::optional(items.size()) : array_index(last);
    if (!index || *index > items.size()) return "array index '" + last + "' is out of range";
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(*index), std::move(value));
    return std::nullopt;
  }

  std::optional<std::string> remove(const Tokens& path) {
    if (path.empty()) return std::string("the whole document cannot be removed");
    json* parent = locate(doc_, path, path.size() - 1);
    const std::string& last = path.back();
    if (parent != nullptr && parent->is_object() && parent->contains(last)) {
      parent->erase(last);
      return std::nullopt;
    }
    const auto index = array_index(last);
    if (parent != nullptr && parent->is_array() && index && *index < parent->size()) {
      auto& items = parent->get_ref<json::array_t&>();
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(*index));
      return std::nullopt;
    }
    return std::string("nothing is there");
  }

  json* find(const Tokens& path) { return locate(doc_, path, path.size()); }

 private:
  json& doc_;
};

// Whether `prefix` names a proper ancestor of `path` (a value cannot move into itself).
bool is_inside(const Tokens& prefix, const Tokens& path) {
  return prefix.size() < path.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

// One operation; `op` is an object with a string "op" and "path".
std::optional<std::string> apply_one(Applier& doc, const std::string& op, const Tokens& path,
                                     const json& operation) {
  const auto value = operation.find("value");
  const bool has_value = value != operation.end();
  if (op == "add" || op == "replace" || op == "test") {
    if (!has_value) return std::string("it has no 'value'");
    if (op == "add") return doc.add(path, *value);
    json* target = doc.find(path);
    if (target == nullptr) return std::string("nothing is there");
    if (op == "test") {
      if (*target != *value) return std::string("the value there is not the one tested");
    } else {
      *target = *value;
    }
    return std::nullopt;
  }
  if (op == "remove") return doc.remove(path);
  if (op != "move" && op != "copy") return "'" + op + "' is not an operation";
  const auto from_field = operation.find("from");
  if (from_field == operation.end() || !from_field->is_string()) {
    return std::string("it has no string 'from'");
  }
  const auto from = pointer_tokens(from_field->get_ref<const std::string&>());
  if (!from) return std::string("'from' is not a JSON Pointer");
  json* source = doc.find(*from);
  if (source == nullptr) return std::string("nothing is at 'from'");
  json moved = *source;
  if (op == "move") {
    if (*from == path) return std::nullopt;
    if (is_inside(*from, path)) return std::string("a value cannot move into itself");
    if (auto err = doc.remove(*from)) return err;
  }
  return doc.add(path, std::move(moved));
}

}  // namespace

std::optional<std::string> apply_json_patch(json& target, const json& patch) {
  if (!patch.is_array()) return std::string("patch must be an array of operations");
  json result = target;
  Applier doc(result);
  for (std::size_t i = 0; i < patch.size(); ++i) {
    const json& operation = patch[i];
    const std::string where = "operation " + std::to_string(i);
    if (!operation.is_object()) return where + " is not an object";
    const auto op = operation.find("op");
    const auto path = operation.find("path");
    if (op == operation.end() || !op->is_string()) return where + " has no string 'op'";
    if (path == operation.end() || !path->is_string()) return where + " has no string 'path'";
    const auto& op_name = op->get_ref<const std::string&>();
    const auto& path_text = path->get_ref<const std::string&>();
    const auto tokens = pointer_tokens(path_text);
    if (!tokens) return where + " (" + op_name + "): '" + path_text + "' is not a JSON Pointer";
    if (auto err = apply_one(doc, op_name, *tokens, operation)) {
      return where + " (" + op_name + " at '" + path_text + "'): " + *err;
    }
  }
  target = std::move(result);
  return std::nullopt;
}

}  // namespace agui
