// The thread: the conversation's AG-UI messages and agent state, indexed so that
// every lookup the reducer and the round driver make is O(1). Messages keep
// every field they arrived with (they are stored as JSON), so nothing a server
// sends is lost on the way back out.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/json.hpp"
#include "protocol/change_log.hpp"

namespace agui {

class Thread {
 public:
  explicit Thread(std::string id);

  const std::string& id() const { return id_; }

  // The messages in order. Pointers stay valid until the message is removed
  // (only replace_all removes messages).
  std::size_t size() const { return order_.size(); }
  const json& at(std::size_t i) const { return *order_[i]; }
  json messages() const;  // a copy, as a JSON array

  json* find_message(std::string_view id);
  const json* find_message(std::string_view id) const;

  // The assistant message holding a tool call, and the call inside it.
  struct CallRef {
    json* message = nullptr;
    std::size_t index = 0;
    json& call() const { return (*message)["toolCalls"][index]; }
  };
  std::optional<CallRef> find_tool_call(std::string_view tool_call_id);
  bool has_tool_call(std::string_view tool_call_id) const {
    return calls_.count(std::string(tool_call_id)) != 0;
  }
  // The tool message answering a call, if any.
  const json* find_result(std::string_view tool_call_id) const;

  // A provisional answer: a tool message the client wrote for a call nobody
  // answered (the no-result closure, a cancellation), or a server's placeholder
  // ("Forwarded to client"). It stands until the real answer comes, which then
  // takes its place (replace_result). Kept by the tool message's id, so a
  // snapshot that echoes the message keeps it provisional and one that brings
  // another answer for the call does not.
  void mark_provisional(const json& tool_message);
  bool provisional(std::string_view tool_call_id) const;
  // A call with an answer that is not provisional: nobody is to run it.
  bool answered(std::string_view tool_call_id) const {
    return find_result(tool_call_id) != nullptr && !provisional(tool_call_id);
  }
  // The ids of the provisional tool messages, sorted (the export carries them).
  std::vector<std::string> provisional_ids() const;
  // The answer to a call that has a provisional one, written over it in place
  // (same position and address; its id is the new message's, which must not
  // name another message); the new answer is not provisional. O(1).
  json& replace_result(std::string_view tool_call_id, json tool_message);

  // Appends a message (it must carry a string "id"). Returns it.
  json& append(json message);
  // Inserts a tool message right after the assistant message holding its call
  // (after the tool messages already answering that message), or appends it
  // when the call is unknown. Scans back from the end: amortised O(1) for the
  // usual stream, where the call is recent.
  json& insert_result(json tool_message);
  // The same for many tool messages at once (a round's answers), each placed as
  // insert_result() would place it, in the order given: O(messages after the
  // first place + results), however many results. Returns them where stored.
  std::vector<json*> insert_results(std::vector<json> tool_messages);
  // Adds a tool call to an assistant message and indexes it.
  json& add_tool_call(json& assistant, json call);
  // Replaces the whole message list (MESSAGES_SNAPSHOT, import) and re-indexes.
  void replace_all(std::vector<json> messages);
  // Replaces one message in place (same position) and re-indexes the thread,
  // so the indices are what indexing the messages afresh gives, also when
  // another message shares an id with the old one (a snapshot can send the
  // same tool call id twice). O(n): only an activity snapshot over another
  // kind of message comes here. Returns the stored message (same address).
  json& replace(json& existing, json message);

  const json& state() const { return state_; }
  void set_state(json state) {
    state_ = std::move(state);
    state_changed_ = true;
  }

  // What changed since the last take_changes() (a journal writes only that):
  // the messages from `moved_from` on are new or moved; below it, the ones in
  // `edited` (ascending) may have changed in place. Conservative: a message
  // handed out for writing (the non-const finders, append, ...) counts as
  // edited. A new thread starts with everything changed.
  struct Changes {
    std::size_t moved_from = 0;
    std::vector<std::size_t> edited;
    bool state = false;
  };
  Changes take_changes();

 private:
  void index(json& message);
  void reindex();  // every index rebuilt from the messages, in order
  json* touch(json* message) {
    if (message) touched_.insert(message);
    return message;
  }
  void moved_from(std::size_t i) { moved_from_ = std::min(moved_from_, i); }

  std::string id_;
  std::vector<std::unique_ptr<json>> order_;
  std::unordered_map<std::string, json*> by_id_;
  std::unordered_map<std::string, std::pair<json*, std::size_t>>
      calls_;                                       // toolCallId -> (message, index)
  std::unordered_map<std::string, json*> results_;  // toolCallId -> tool message
  // Assistant message -> the tool message last inserted after it: where the
  // next answer to it goes, found from the end without walking past the
  // answers already there. A hint only; cleared whenever the thread is
  // re-indexed (the only time a message goes away or changes its role).
  std::unordered_map<const json*, const json*> last_result_of_;
  json state_ = json::object();
  std::unordered_set<std::string> provisional_;  // ids of provisional tool messages
  // Since the last take_changes(): see Changes.
  std::size_t moved_from_ = 0;
  std::unordered_set<const json*> touched_;
  bool state_changed_ = true;
};

// Shallow metadata merge, last write wins (as @ag-ui/core's mergeMetadata).
// Returns true when `target` changed.
bool merge_metadata(json& target, const json& event);

}  // namespace agui
