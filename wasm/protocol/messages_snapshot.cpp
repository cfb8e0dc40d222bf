#include "protocol/messages_snapshot.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "protocol/fields.hpp"

namespace agui {

using detail::opt_string;

namespace {

bool has_role(const json& m, std::string_view role) {
  const auto* r = opt_string(m, "role");
  return r != nullptr && *r == role;
}

// The activity types a snapshot speaks for, read as @ag-ui/client reads
// metadata["@ag-ui/client"].authoritativeActivityTypes (AG-UI 1.0): absent,
// the legacy rule (activity survives when the snapshot has none); null, every
// type; a list, those types (anything else there counts as an empty list).
struct ActivityAuthority {
  bool legacy = true;
  bool all = false;
  std::vector<std::string> types;
};

ActivityAuthority activity_authority(const json& event) {
  ActivityAuthority a;
  auto meta = event.find("metadata");
  if (meta == event.end() || !meta->is_object()) return a;
  auto ours = meta->find("@ag-ui/client");
  if (ours == meta->end()) return a;
  a.legacy = false;
  if (!ours->is_object()) return a;
  auto types = ours->find("authoritativeActivityTypes");
  if (types == ours->end()) {
    a.legacy = true;
  } else if (types->is_null()) {
    a.all = true;
  } else if (types->is_array() && std::all_of(types->begin(), types->end(),
                                              [](const json& t) { return t.is_string(); })) {
    a.types = types->get<std::vector<std::string>>();
  }
  return a;
}

// Whether a message only this client holds survives a snapshot without it.
bool survives(const json& m, const ActivityAuthority& authority, bool has_activity,
              bool has_reasoning) {
  if (has_role(m, "reasoning")) return !has_reasoning;
  if (!has_role(m, "activity")) return false;
  if (authority.legacy) return !has_activity;
  if (authority.all) return false;
  const auto* type = opt_string(m, "activityType");
  return !type ||
         std::find(authority.types.begin(), authority.types.end(), *type) == authority.types.end();
}

}  // namespace

SnapshotMerge merge_messages_snapshot(const Thread& thread, const json& snapshot,
                                      const json& event) {
  // An id the snapshot holds twice: the later copy, in the first one's place
  // (as @ag-ui/client keeps it). A call answered in it: that answer.
  std::unordered_map<std::string, const json*> incoming;
  std::unordered_map<std::string, const json*> answer_of;  // toolCallId -> tool message
  bool has_activity = false, has_reasoning = false;
  for (const auto& m : snapshot) {
    incoming[m["id"].get<std::string>()] = &m;
    if (const auto* call = has_role(m, "tool") ? opt_string(m, "toolCallId") : nullptr)
      answer_of.emplace(*call, &m);
    has_activity = has_activity || has_role(m, "activity");
    has_reasoning = has_reasoning || has_role(m, "reasoning");
  }
  const ActivityAuthority authority = activity_authority(event);
  SnapshotMerge out;
  std::unordered_set<std::string> placed;
  auto place = [&](const json& m) {
    const auto& id = m["id"].get_ref<const std::string&>();
    if (placed.insert(id).second) out.messages.push_back(*incoming.at(id));
  };
  for (std::size_t i = 0; i < thread.size(); ++i) {
    const json& m = thread.at(i);
    const auto* id = opt_string(m, "id");
    if (id == nullptr) continue;
    if (auto hit = incoming.find(*id); hit != incoming.end()) {
      place(*hit->second);
      continue;
    }
    // The call's answer under another id (a server that gave its streamed
    // result one id and its snapshot another) takes this answer's place.
    const auto* call = has_role(m, "tool") ? opt_string(m, "toolCallId") : nullptr;
    if (auto answer = call ? answer_of.find(*call) : answer_of.end(); answer != answer_of.end()) {
      if (thread.provisional(*call)) out.answered_after_all.push_back(*call);
      place(*answer->second);
    } else if (survives(m, authority, has_activity, has_reasoning)) {
      out.messages.push_back(m);
    }
  }
  for (const auto& m : snapshot) place(m);
  return out;
}

}  // namespace agui
