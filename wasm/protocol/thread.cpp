// The thread's storage and indices. See thread.hpp.
#include "protocol/thread.hpp"

#include <algorithm>

#include "common/json_text.hpp"
#include "protocol/fields.hpp"

namespace agui {

Thread::Thread(std::string id) : id_(std::move(id)) {}

json Thread::messages() const {
  json out = json::array();
  auto& arr = out.get_ref<json::array_t&>();
  arr.reserve(order_.size());
  for (const auto& m : order_) arr.push_back(*m);
  return out;
}

json* Thread::find_message(std::string_view id) {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : touch(it->second);
}

const json* Thread::find_message(std::string_view id) const {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : it->second;
}

std::optional<Thread::CallRef> Thread::find_tool_call(std::string_view tool_call_id) {
  auto it = calls_.find(std::string(tool_call_id));
  if (it == calls_.end()) return std::nullopt;
  return CallRef{touch(it->second.first), it->second.second};
}

const json* Thread::find_result(std::string_view tool_call_id) const {
  auto it = results_.find(std::string(tool_call_id));
  return it == results_.end() ? nullptr : it->second;
}

void Thread::mark_provisional(const json& tool_message) {
  if (const auto* id = detail::opt_string(tool_message, "id")) provisional_.insert(*id);
}

bool Thread::provisional(std::string_view tool_call_id) const {
  const json* result = find_result(tool_call_id);
  const auto* id = result ? detail::opt_string(*result, "id") : nullptr;
  return id && provisional_.count(*id);
}

std::vector<std::string> Thread::provisional_ids() const {
  std::vector<std::string> ids;
  for (const auto& id : provisional_) {
    if (by_id_.count(id)) ids.push_back(id);  // (a snapshot may have dropped some)
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

json& Thread::replace_result(std::string_view tool_call_id, json tool_message) {
  json& existing = *results_.at(std::string(tool_call_id));
  if (const auto* old_id = detail::opt_string(existing, "id")) {
    provisional_.erase(*old_id);
    by_id_.erase(*old_id);
  }
  touch(&existing);
  existing = std::move(tool_message);
  if (const auto* id = detail::opt_string(existing, "id")) by_id_[*id] = &existing;
  return existing;
}

void Thread::index(json& message) {
  if (const auto* id = detail::opt_string(message, "id")) by_id_[*id] = &message;
  if (const auto* role = detail::opt_string(message, "role")) {
    if (*role == "tool") {
      if (const auto* call_id = detail::opt_string(message, "toolCallId")) {
        results_.emplace(*call_id, &message);  // the first answer wins
      }
    } else if (*role == "assistant") {
      auto it = message.find("toolCalls");
      if (it != message.end() && it->is_array()) {
        for (std::size_t i = 0; i < it->size(); ++i) {
          if (const auto* call_id = detail::opt_string((*it)[i], "id"))
            calls_[*call_id] = {&message, i};
        }
      }
    }
  }
}

json& Thread::append(json message) {
  moved_from(order_.size());
  order_.push_back(std::make_unique<json>(std::move(message)));
  json& stored = *order_.back();
  index(stored);
  return stored;
}

json& Thread::insert_result(json tool_message) {
  std::vector<json> one;
  one.push_back(std::move(tool_message));
  return *insert_results(std::move(one)).front();
}

static bool is_tool_message(const json& message) {
  const auto* role = detail::opt_string(message, "role");
  return role != nullptr && *role == "tool";
}

std::vector<json*> Thread::insert_results(std::vector<json> tool_messages) {
  const std::size_t n = order_.size(), k = tool_messages.size();
  // Each message's owner: the assistant message holding its call (or none).
  std::vector<const json*> owner(k, nullptr);
  constexpr std::size_t kUnseen = static_cast<std::size_t>(-1);
  std::unordered_map<const json*, std::size_t> place;  // owner -> where its answers go
  for (std::size_t r = 0; r < k; ++r) {
    const auto* call_id = detail::opt_string(tool_messages[r], "toolCallId");
    auto it = call_id ? calls_.find(*call_id) : calls_.end();
    if (it != calls_.end()) owner[r] = it->second.first;
    if (owner[r] != nullptr) place.emplace(owner[r], kUnseen);
  }
  // From the end back to each owner (or to the answer last put after it): the
  // owners of a round's answers are near the end, so this stops early.
  std::unordered_map<const json*, const json*> stop_at;  // owner or its last answer -> owner
  for (const auto& [o, unused] : place) {
    stop_at.emplace(o, o);
    if (auto h = last_result_of_.find(o); h != last_result_of_.end()) stop_at.emplace(h->second, o);
  }
  for (std::size_t i = n, left = place.size(); i-- > 0 && left > 0;) {
    auto hit = stop_at.find(order_[i].get());
    if (hit == stop_at.end()) continue;
    std::size_t& pos = place[hit->second];
    if (pos != kUnseen) continue;  // found already, from its last answer
    pos = i + 1;                   // after the tool messages already answering it
    while (pos < n && is_tool_message(*order_[pos])) ++pos;
    --left;
  }
  // Merge the answers into the thread at their places (stable: same place,
  // given order), moving only what lies after the first place.
  std::vector<std::size_t> slot(k), by_slot(k);
  for (std::size_t r = 0; r < k; ++r) {
    slot[r] = owner[r] && place[owner[r]] != kUnseen ? place[owner[r]] : n;
    by_slot[r] = r;
  }
  std::stable_sort(by_slot.begin(), by_slot.end(),
                   [&](std::size_t a, std::size_t b) { return slot[a] < slot[b]; });
  const std::size_t first = k ? slot[by_slot.front()] : n;
  moved_from(first);
  std::vector<std::unique_ptr<json>> tail;
  tail.reserve(n - first);
  for (std::size_t i = first; i < n; ++i) tail.push_back(std::move(order_[i]));
  order_.resize(first);
  order_.reserve(n + k);
  std::vector<json*> stored(k, nullptr);
  for (std::size_t i = first, r = 0; i <= n; ++i) {
    for (; r < k && slot[by_slot[r]] == i; ++r) {
      const std::size_t m = by_slot[r];
      order_.push_back(std::make_unique<json>(std::move(tool_messages[m])));
      stored[m] = order_.back().get();
      index(*stored[m]);
      if (owner[m] != nullptr) last_result_of_[owner[m]] = stored[m];
    }
    if (i < n) order_.push_back(std::move(tail[i - first]));
  }
  return stored;
}

json& Thread::add_tool_call(json& assistant, json call) {
  touch(&assistant);
  json& calls = assistant["toolCalls"];
  if (!calls.is_array()) calls = json::array();
  calls.push_back(std::move(call));
  json& stored = calls.back();
  if (const auto* call_id = detail::opt_string(stored, "id"))
    calls_[*call_id] = {&assistant, calls.size() - 1};
  return stored;
}

void Thread::reindex() {
  last_result_of_.clear();
  by_id_.clear();
  calls_.clear();
  results_.clear();
  for (auto& m : order_) index(*m);
}

void Thread::replace_all(std::vector<json> messages) {
  moved_from_ = 0;
  touched_.clear();  // (their addresses may be reused)
  order_.clear();
  order_.reserve(messages.size());
  for (auto& m : messages) order_.push_back(std::make_unique<json>(std::move(m)));
  reindex();
}

json& Thread::replace(json& existing, json message) {
  touch(&existing);
  existing = std::move(message);
  reindex();
  return existing;
}

Thread::Changes Thread::take_changes() {
  Changes changes{std::min(moved_from_, order_.size()), {}, state_changed_};
  if (!touched_.empty()) {
    for (std::size_t i = 0; i < changes.moved_from; ++i) {
      if (touched_.count(order_[i].get())) changes.edited.push_back(i);
    }
  }
  moved_from_ = order_.size();
  touched_.clear();
  state_changed_ = false;
  return changes;
}

bool merge_metadata(json& target, const json& event) {
  auto it = event.find("metadata");
  if (it == event.end() || !it->is_object()) return false;
  json& meta = target["metadata"];
  if (!meta.is_object()) meta = json::object();
  for (auto kv = it->begin(); kv != it->end(); ++kv) meta[kv.key()] = kv.value();
  return true;
}

}  // namespace agui
