// Differential test, natively: every stream of the corpus (tests/fixtures/streams,
// encoded by @ag-ui/encoder) folded by our SSE parser and reducer must give the
// messages and state that @ag-ui/client's defaultApplyEvents gives for the same
// stream (NAME.expected.json, written by tests/support/reference-apply.mjs).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "event_reducer.hpp"
#include "sse_parser.hpp"
#include "test_support.hpp"

namespace agui {
namespace {

struct Replay {
  Thread thread;
  ChangeLog changes;
  EventReducer reducer{thread, changes};
  explicit Replay(const json& input) : thread(input.value("threadId", "thread")) {
    std::vector<json> prior;
    for (const auto& m : input.value("messages", json::array())) prior.push_back(m);
    thread.replace_all(std::move(prior));
    if (input.contains("state")) thread.set_state(input["state"]);
  }
};

std::vector<std::string> corpus_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(test::fixture_path("streams"))) {
    const std::string file = entry.path().filename().string();
    const std::string suffix = ".expected.json";
    if (file.size() > suffix.size() &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      names.push_back(file.substr(0, file.size() - suffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Streams holding several runs are replayed run by run, as the round driver
// would (it begins a run for each request); the reference applies them in one go.
void replay(Replay& r, const std::string& bytes, const std::string& first_run_id) {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed(bytes, events);
  EXPECT_FALSE(parser.finish());
  r.reducer.begin_run(first_run_id);
  for (const auto& e : events) {
    json event = json::parse(e.data);
    if (event.value("type", "") == "RUN_STARTED" && r.reducer.phase() != RunPhase::kNotStarted) {
      r.reducer.begin_run(event.value("runId", ""));
    }
    r.reducer.apply(event);
  }
}

TEST(Corpus, EveryStreamMatchesTheReferenceClient) {
  const auto names = corpus_names();
  ASSERT_GE(names.size(), 10u) << "the corpus is missing";
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const json spec = json::parse(test::read_file(test::fixture_path("streams/" + name + ".json")));
    const json expected =
        json::parse(test::read_file(test::fixture_path("streams/" + name + ".expected.json")));
    Replay r(spec["input"]);
    replay(r, test::read_file(test::fixture_path("streams/" + name + ".sse")),
           spec["input"].value("runId", ""));
    EXPECT_EQ(r.thread.messages(), expected["messages"]) << "messages differ for " << name;
    EXPECT_EQ(r.thread.state(), expected["state"]) << "state differs for " << name;
  }
}

TEST(Corpus, EveryStreamSplitIntoSmallChunksGivesTheSameThread) {
  for (const auto& name : corpus_names()) {
    SCOPED_TRACE(name);
    const json spec = json::parse(test::read_file(test::fixture_path("streams/" + name + ".json")));
    const std::string bytes = test::read_file(test::fixture_path("streams/" + name + ".sse"));
    Replay whole(spec["input"]);
    replay(whole, bytes, spec["input"].value("runId", ""));
    for (std::size_t step : {1u, 3u, 7u, 64u}) {
      Replay r(spec["input"]);
      SseParser parser;
      std::vector<SseEvent> events;
      for (std::size_t i = 0; i < bytes.size(); i += step)
        parser.feed(std::string_view(bytes).substr(i, step), events);
      r.reducer.begin_run(spec["input"].value("runId", ""));
      for (const auto& e : events) {
        json event = json::parse(e.data);
        if (event.value("type", "") == "RUN_STARTED" &&
            r.reducer.phase() != RunPhase::kNotStarted) {
          r.reducer.begin_run(event.value("runId", ""));
        }
        r.reducer.apply(event);
      }
      EXPECT_EQ(r.thread.messages(), whole.thread.messages()) << name << " in chunks of " << step;
    }
  }
}

}  // namespace
}  // namespace agui
