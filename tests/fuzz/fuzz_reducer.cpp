// libFuzzer target: the event reducer over a thread. The first byte picks how the
// rest is read: as SSE bytes (through the parser, like a response body), as JSON
// events one per line, or as choices for a generator of AG-UI events (well
// formed, mutated and broken) applied over several runs. After every event the
// thread's indices must agree with its messages, and no exception may escape.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/json_text.hpp"
#include "fuzz_support.hpp"
#include "protocol/event_reducer.hpp"
#include "protocol/sse_parser.hpp"
#include "protocol/thread.hpp"

namespace {

using agui::EventReducer;
using agui::Thread;
using agui::fuzz::json;

const std::string* str(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

// Every message id, tool call and tool result in the thread can be found through
// the thread's indices, and each index entry points at a live message that says
// what the index says.
void check_thread(Thread& thread) {
  std::unordered_set<const json*> live;
  for (std::size_t i = 0; i < thread.size(); ++i) live.insert(&thread.at(i));
  for (std::size_t i = 0; i < thread.size(); ++i) {
    const json& m = thread.at(i);
    AGUI_FUZZ_CHECK(m.is_object(), "a message that is not an object");
    const std::string* id = str(m, "id");
    AGUI_FUZZ_CHECK(id != nullptr, "a message without a string id");
    const json* found = thread.find_message(*id);
    AGUI_FUZZ_CHECK(found != nullptr && live.count(found), "message id not indexed");
    AGUI_FUZZ_CHECK(*str(*found, "id") == *id, "message index points at another id");
    const std::string* role = str(m, "role");
    if (role && *role == "assistant" && m.contains("toolCalls") && m["toolCalls"].is_array()) {
      for (const auto& call : m["toolCalls"]) {
        const std::string* call_id = str(call, "id");
        if (call_id == nullptr) continue;
        AGUI_FUZZ_CHECK(thread.has_tool_call(*call_id), "tool call not indexed");
        auto ref = thread.find_tool_call(*call_id);
        AGUI_FUZZ_CHECK(ref && live.count(ref->message), "tool call index points at no message");
        auto calls = ref->message->find("toolCalls");
        AGUI_FUZZ_CHECK(
            calls != ref->message->end() && calls->is_array() && ref->index < calls->size(),
            "tool call index points past the message's calls");
        const std::string* indexed = str((*calls)[ref->index], "id");
        AGUI_FUZZ_CHECK(indexed && *indexed == *call_id, "tool call index points at another call");
      }
    }
    if (role && *role == "tool") {
      if (const std::string* call_id = str(m, "toolCallId")) {
        const json* result = thread.find_result(*call_id);
        AGUI_FUZZ_CHECK(result && live.count(result), "tool result not indexed");
        AGUI_FUZZ_CHECK(str(*result, "role") && *str(*result, "role") == "tool" &&
                            *str(*result, "toolCallId") == *call_id,
                        "result index points at a message that is not that call's result");
      }
    }
  }
  // Ids the events use but the thread may have dropped: a stale entry would
  // point at a dead message (ASan) or at one with another id.
  for (const char* id : {"m1", "m2", "m3", "c1", "c2", "c3", "c4", "tool-1", "msg-1", "a1", ""}) {
    if (const json* m = thread.find_message(id)) {
      AGUI_FUZZ_CHECK(live.count(m) && *str(*m, "id") == id, "stale message index");
    }
    if (auto ref = thread.find_tool_call(id)) {
      AGUI_FUZZ_CHECK(live.count(ref->message), "stale tool call index");
      const std::string* role = str(*ref->message, "role");
      AGUI_FUZZ_CHECK(role && *role == "assistant", "tool call indexed on a non-assistant message");
    }
    if (const json* r = thread.find_result(id)) {
      AGUI_FUZZ_CHECK(live.count(r), "stale result index");
      AGUI_FUZZ_CHECK(str(*r, "role") && *str(*r, "role") == "tool",
                      "result indexed on a message that is not a tool message");
    }
  }
}

void drain(agui::ChangeLog& changes, Thread& thread, std::size_t step) {
  // What the binding does with changes: serialise them (this also walks every
  // value the reducer recorded).
  const json taken = changes.take();
  agui::fuzz::count_problems(taken);
  agui::fuzz::count("events");
  const std::string text = agui::fuzz::dump(taken);
  AGUI_FUZZ_CHECK(!text.empty(), "changes serialise");
  if (step % 8 == 0) (void)agui::fuzz::dump(thread.messages());
}

}  // namespace

// Nothing is reordered: what the core reads keeps the keys of what went in, in
// the same order, held against nlohmann's own ordered_json (a plain vector, no
// index: an implementation apart from the core's). A state snapshot the
// reducer took is the snapshot as sent, member for member.
static void check_key_order(std::string_view data, const Thread& thread) {
  const json mine = agui::parse_json(data);
  const auto reference = nlohmann::ordered_json::parse(data.begin(), data.end(), nullptr, false);
  if (mine.is_discarded() || reference.is_discarded()) return;
  const auto replace = nlohmann::ordered_json::error_handler_t::replace;
  AGUI_FUZZ_CHECK(mine.dump(-1, ' ', false, replace) == reference.dump(-1, ' ', false, replace),
                  "parsing changed the order of an object's keys");
  if (!mine.is_object() || mine.value("type", json()) != "STATE_SNAPSHOT") return;
  auto snapshot = mine.find("snapshot");
  if (snapshot == mine.end() || !(thread.state() == *snapshot)) return;  // refused or not applied
  AGUI_FUZZ_CHECK(agui::dump_json(thread.state()) == agui::dump_json(*snapshot),
                  "the state holds the snapshot's keys in another order");
}

// The reducer's flat reader (wasm/common/json_text.hpp) takes a line only when nlohmann's
// parser takes it too, and decodes it to the same object.
static void check_flat_reader(std::string_view line) {
  agui::FlatMember members[12];
  const std::size_t n = agui::read_flat_string_object(line, members, 12);
  if (n == 0) return;
  const json parsed = json::parse(line.begin(), line.end(), nullptr, false);
  const auto read = agui::flat_object_json(members, n);
  AGUI_FUZZ_CHECK(read.has_value() == !parsed.is_discarded(),
                  "the flat reader and the parser disagree on whether a line is JSON");
  if (read) AGUI_FUZZ_CHECK(*read == parsed, "the flat reader decodes a line differently");
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  Thread thread("t1");
  agui::ChangeLog changes;
  EventReducer reducer(thread, changes);
  reducer.begin_run("r1");
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::size_t step = 0;

  agui::fuzz::count(data[0] % 4 == 0   ? "inputs:sse"
                    : data[0] % 4 == 1 ? "inputs:json-lines"
                                       : "inputs:generated");
  switch (data[0] % 4) {
    case 0: {  // SSE bytes, as a response body in chunks
      agui::SseParser parser(agui::SseLimits{1 << 16});
      agui::fuzz::Rng rng(rest);
      std::vector<agui::SseEvent> events;
      for (std::size_t pos = 0; pos < rest.size();) {
        const std::size_t n = 1 + rng.below(64);
        events.clear();
        const bool ok = parser.feed(rest.substr(pos, n), events);
        pos += n;
        for (const auto& ev : events) {
          reducer.apply_data(ev.data);
          check_key_order(ev.data, thread);
          check_thread(thread);
          drain(changes, thread, ++step);
        }
        if (!ok) break;
      }
      break;
    }
    case 1: {  // JSON events, one per line
      std::size_t start = 0;
      while (start <= rest.size()) {
        std::size_t end = rest.find('\n', start);
        if (end == std::string_view::npos) end = rest.size();
        check_flat_reader(rest.substr(start, end - start));
        reducer.apply_data(rest.substr(start, end - start));
        check_key_order(rest.substr(start, end - start), thread);
        check_thread(thread);
        drain(changes, thread, ++step);
        start = end + 1;
      }
      break;
    }
    default: {  // generated events over several runs
      FuzzedDataProvider in(data + 1, size - 1);
      agui::fuzz::EventGen gen(in, "t1");
      gen.set_run("r1");
      int run = 1;
      while (in.remaining_bytes() > 0 && step < 400) {
        if (in.ConsumeIntegralInRange(0, 31) == 0) {
          agui::fuzz::count("fault:new-run-mid-stream");
          const std::string id = "r" + std::to_string(++run);
          reducer.begin_run(id);
          gen.set_run(id);
        }
        json e = gen.event();
        if (in.ConsumeIntegralInRange(0, 7) == 0) {
          reducer.apply(e);  // decoded already, as a host might hand it
        } else {
          const std::string text = agui::fuzz::dump(e);
          reducer.apply_data(text);
        }
        check_thread(thread);
        drain(changes, thread, ++step);
      }
      break;
    }
  }
  return 0;
}
