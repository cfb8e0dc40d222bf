// MESSAGES_SNAPSHOT: how a snapshot of the messages and the thread the client
// holds become one list. The snapshot is authoritative for what its producer
// owns; what only this client holds (activity, reasoning) survives by the rule
// @ag-ui/client applies; and a call has one answer, in its place right after
// the call, even when the snapshot brings it under another id. docs/ordering.md.
#pragma once

#include <string>
#include <vector>

#include "common/json.hpp"
#include "protocol/thread.hpp"

namespace agui {

struct SnapshotMerge {
  std::vector<json> messages;  // the thread after the snapshot, in order
  // Calls whose provisional answer the snapshot replaced with another: done now.
  std::vector<std::string> answered_after_all;
};

// `snapshot` is the event's "messages", each an object with a string "id"
// (checked by the caller); `event` the whole event (its metadata).
SnapshotMerge merge_messages_snapshot(const Thread& thread, const json& snapshot,
                                      const json& event);

}  // namespace agui
