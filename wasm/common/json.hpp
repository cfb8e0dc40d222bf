// The core's one JSON type: nlohmann_json whose objects keep their keys in the
// order they were registered or received, as JSON.parse then JSON.stringify do.
// Models read a schema in the order it is sent ("reasoning" before "answer"),
// and forms render fields in it, so no object is ever re-sorted.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace agui {

// An insertion-ordered map from string keys, the object type of agui::json.
// Members live in a vector in insertion order; once an object holds more than
// kLinearMax members, an open-addressing table of member indices makes a
// lookup O(1), so parsing or patching an object of 10,000 keys stays linear
// (nlohmann's own ordered_map scans the vector on every lookup: quadratic).
// A duplicate key keeps its first place and takes the last value, as
// JSON.parse does. Equality ignores member order, as JSON's object equality
// does. Erasing a member shifts the rest: O(n), as in any ordered vector.
template <class Key, class T, class IgnoredLess = void,
          class Allocator = std::allocator<std::pair<const Key, T>>>
class OrderedObject {
  static_assert(std::is_same_v<Key, std::string>, "agui::json keys are std::string");

 public:
  using key_type = Key;
  using mapped_type = T;
  using value_type = std::pair<const Key, T>;
  using Container = std::vector<value_type, Allocator>;
  using iterator = typename Container::iterator;
  using const_iterator = typename Container::const_iterator;
  using size_type = typename Container::size_type;
  using difference_type = typename Container::difference_type;
  using allocator_type = Allocator;
  using reference = value_type&;
  using const_reference = const value_type&;
  using key_compare = std::equal_to<>;

  OrderedObject() = default;
  explicit OrderedObject(const Allocator& alloc) : items_(alloc) {}
  template <class It>
  OrderedObject(It first, It last, const Allocator& alloc = Allocator()) : items_(alloc) {
    insert(first, last);
  }
  OrderedObject(std::initializer_list<value_type> init, const Allocator& alloc = Allocator())
      : items_(alloc) {
    insert(init.begin(), init.end());
  }

  iterator begin() noexcept { return items_.begin(); }
  iterator end() noexcept { return items_.end(); }
  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  const_iterator cbegin() const noexcept { return items_.cbegin(); }
  const_iterator cend() const noexcept { return items_.cend(); }
  size_type size() const noexcept { return items_.size(); }
  size_type max_size() const noexcept { return items_.max_size(); }
  bool empty() const noexcept { return items_.empty(); }
  void clear() noexcept {
    items_.clear();
    slots_.clear();
    used_ = 0;
  }
  void swap(OrderedObject& other) noexcept {
    items_.swap(other.items_);
    slots_.swap(other.slots_);
    std::swap(used_, other.used_);
  }

  iterator find(std::string_view key) { return items_.begin() + index_of(key); }
  const_iterator find(std::string_view key) const { return items_.begin() + index_of(key); }
  size_type count(std::string_view key) const { return index_of(key) < items_.size() ? 1 : 0; }
  bool contains(std::string_view key) const { return count(key) != 0; }

  // nlohmann only calls at() on keys it has checked; out of range is a bug,
  // and the core is built without exceptions: it aborts, as nlohmann's own
  // checks do under JSON_NOEXCEPTION.
  T& at(std::string_view key) { return checked(find(key))->second; }
  const T& at(std::string_view key) const { return checked(find(key))->second; }

  template <class K>
  std::pair<iterator, bool> emplace(K&& key, T&& value) {
    const std::size_t found = index_of(std::string_view(key));
    if (found < items_.size()) return {items_.begin() + static_cast<difference_type>(found), false};
    items_.emplace_back(std::forward<K>(key), std::move(value));
    index_appended();
    return {std::prev(items_.end()), true};
  }
  template <class K>
  T& operator[](K&& key) {
    return emplace(std::forward<K>(key), T{}).first->second;
  }
  const T& operator[](std::string_view key) const { return at(key); }

  std::pair<iterator, bool> insert(const value_type& member) {
    return emplace(member.first, T(member.second));
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) emplace(first->first, T(first->second));
  }

  size_type erase(std::string_view key) {
    const std::size_t found = index_of(key);
    if (found == items_.size()) return 0;
    erase(items_.begin() + static_cast<difference_type>(found));
    return 1;
  }
  iterator erase(iterator pos) { return erase(pos, std::next(pos)); }
  iterator erase(iterator first, iterator last);

  // JSON object equality: the same members, whatever their order.
  friend bool operator==(const OrderedObject& a, const OrderedObject& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a) {
      const auto it = b.find(key);
      if (it == b.end() || !(it->second == value)) return false;
    }
    return true;
  }
  friend bool operator!=(const OrderedObject& a, const OrderedObject& b) { return !(a == b); }
  // JSON objects have no order: equal ones are equivalent, any two others
  // unordered (what nlohmann's three-way comparison asks of its object type).
  friend std::partial_ordering operator<=>(const OrderedObject& a, const OrderedObject& b) {
    return a == b ? std::partial_ordering::equivalent : std::partial_ordering::unordered;
  }

 private:
  static constexpr std::size_t kLinearMax = 8;
  static constexpr std::uint32_t kEmpty = 0;            // a slot holds a member's index + 1
  static constexpr std::uint32_t kErased = UINT32_MAX;  // a member was here: probe on

  iterator checked(iterator it) {
    if (it == items_.end()) std::abort();
    return it;
  }
  const_iterator checked(const_iterator it) const {
    if (it == items_.end()) std::abort();
    return it;
  }

  static std::size_t hash(std::string_view key) { return std::hash<std::string_view>{}(key); }

  // The member's index, or size() when there is none.
  std::size_t index_of(std::string_view key) const {
    if (slots_.empty()) {
      for (std::size_t i = 0; i < items_.size(); ++i) {
        if (items_[i].first == key) return i;
      }
      return items_.size();
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = hash(key) & mask;; s = (s + 1) & mask) {
      const std::uint32_t slot = slots_[s];
      if (slot == kEmpty) return items_.size();
      if (slot != kErased && items_[slot - 1].first == key) return slot - 1;
    }
  }

  void place(std::size_t index) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = hash(items_[index].first) & mask;
    while (slots_[s] != kEmpty) s = (s + 1) & mask;
    slots_[s] = static_cast<std::uint32_t>(index + 1);
    ++used_;
  }

  // Rebuilds the table for the members there are; none for a small object.
  void reindex() {
    slots_.clear();
    used_ = 0;
    if (items_.size() <= kLinearMax) return;
    std::size_t capacity = 32;
    while (capacity < items_.size() * 2) capacity *= 2;
    slots_.assign(capacity, kEmpty);
    for (std::size_t i = 0; i < items_.size(); ++i) place(i);
  }

  // Keeps the load (members and erased marks) at most one half, so a probe
  // ends soon.
  void index_appended() {
    if (items_.size() <= kLinearMax) return;
    if (slots_.empty() || (used_ + 1) * 2 > slots_.size()) {
      reindex();
    } else {
      place(items_.size() - 1);
    }
  }

  // After members [offset, offset + gap) left: their slots marked erased, the
  // indices past them moved down. Integers only, no key hashed again.
  void unindex(std::size_t offset, std::size_t gap) {
    if (items_.size() <= kLinearMax) return reindex();
    for (auto& slot : slots_) {
      if (slot == kEmpty || slot == kErased) continue;
      const std::size_t index = slot - 1;
      if (index >= offset + gap) {
        slot -= static_cast<std::uint32_t>(gap);
      } else if (index >= offset) {
        slot = kErased;
      }
    }
  }

  Container items_;
  std::vector<std::uint32_t> slots_;  // empty while the object is small
  std::size_t used_ = 0;              // slots not kEmpty
};

// Members hold a const key, so the vector cannot move-assign them: the tail is
// moved down by destroying each member and constructing the next in its place.
template <class Key, class T, class IgnoredLess, class Allocator>
auto OrderedObject<Key, T, IgnoredLess, Allocator>::erase(iterator first, iterator last)
    -> iterator {
  const auto offset = first - items_.begin();
  const auto gap = last - first;
  if (gap == 0) return first;
  for (auto it = first; it + gap != items_.end(); ++it) {
    it->~value_type();
    new (&*it) value_type{std::move(*(it + gap))};
  }
  items_.resize(items_.size() - static_cast<size_type>(gap));
  unindex(static_cast<std::size_t>(offset), static_cast<std::size_t>(gap));
  return items_.begin() + offset;
}

using json = nlohmann::basic_json<OrderedObject>;

}  // namespace agui
