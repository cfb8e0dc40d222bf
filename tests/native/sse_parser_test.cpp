// The SSE parser against the WHATWG event-stream rules, one rule per test, and a
// realistic stream that must parse identically however it is chunked.
#include "protocol/sse_parser.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace agui {
namespace {

// (type, data, id): comparable and printable by gtest without touching SseEvent.
using Ev = std::tuple<std::string, std::string, std::string>;

std::vector<Ev> as_tuples(const std::vector<SseEvent>& events) {
  std::vector<Ev> result;
  for (const auto& e : events) result.emplace_back(e.type, e.data, e.id);
  return result;
}

// Feeds the chunks in order; every feed must succeed.
std::vector<Ev> parse_chunks(std::initializer_list<std::string_view> chunks) {
  SseParser parser;
  std::vector<SseEvent> events;
  for (auto chunk : chunks) EXPECT_TRUE(parser.feed(chunk, events)) << parser.error();
  return as_tuples(events);
}

std::vector<Ev> parse(std::string_view stream) { return parse_chunks({stream}); }

std::vector<Ev> parse_bytewise(std::string_view stream) {
  SseParser parser;
  std::vector<SseEvent> events;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    EXPECT_TRUE(parser.feed(stream.substr(i, 1), events));
  }
  return as_tuples(events);
}

TEST(SseParser, DataEventDefaultsToMessageType) {
  EXPECT_EQ(parse("data: hello\n\n"), (std::vector<Ev>{{"message", "hello", ""}}));
}

TEST(SseParser, EventFieldSetsTheType) {
  EXPECT_EQ(parse("event: RUN_STARTED\ndata: {}\n\n"),
            (std::vector<Ev>{{"RUN_STARTED", "{}", ""}}));
}

TEST(SseParser, TypeResetsAfterEachDispatch) {
  EXPECT_EQ(parse("event: a\ndata: 1\n\ndata: 2\n\n"),
            (std::vector<Ev>{{"a", "1", ""}, {"message", "2", ""}}));
}

TEST(SseParser, LfCrAndCrlfEndLinesAlike) {
  const std::vector<Ev> expected{{"t", "a\nb", ""}};
  EXPECT_EQ(parse("event: t\ndata: a\ndata: b\n\n"), expected);
  EXPECT_EQ(parse("event: t\rdata: a\rdata: b\r\r"), expected);
  EXPECT_EQ(parse("event: t\r\ndata: a\r\ndata: b\r\n\r\n"), expected);
  EXPECT_EQ(parse("event: t\r\ndata: a\rdata: b\n\r\n"), expected);
}

TEST(SseParser, CrlfSplitBetweenCrAndLfIsOneLineEnd) {
  // Were the LF read as a second (blank) line, "a" would dispatch on its own.
  const std::vector<Ev> expected{{"message", "a\nb", ""}};
  EXPECT_EQ(parse_chunks({"data: a\r", "\ndata: b\r\n\r\n"}), expected);
  EXPECT_EQ(parse_chunks({"data: a\r", "", "\ndata: b\r", "\n\r", "\n"}), expected);
}

TEST(SseParser, CrAtChunkEndFollowedByOtherByteIsALineEnd) {
  EXPECT_EQ(parse_chunks({"data: a\r", "data: b\r", "\r"}),
            (std::vector<Ev>{{"message", "a\nb", ""}}));
}

TEST(SseParser, BlankLineAfterCrlfStillDispatches) {
  EXPECT_EQ(parse("data: a\r\n\n"), (std::vector<Ev>{{"message", "a", ""}}));
  EXPECT_EQ(parse("data: a\n\r\n"), (std::vector<Ev>{{"message", "a", ""}}));
}

TEST(SseParser, LeadingBomIsStripped) {
  // Unstripped, the first field would be named "\xEF\xBB\xBF" "data" and ignored.
  EXPECT_EQ(parse("\xEF\xBB\xBF"
                  "data: x\n\n"),
            (std::vector<Ev>{{"message", "x", ""}}));
}

TEST(SseParser, BomSplitAcrossChunksIsStripped) {
  EXPECT_EQ(parse_chunks({"\xEF", "\xBB", "\xBF", "data: x\n\n"}),
            (std::vector<Ev>{{"message", "x", ""}}));
  EXPECT_EQ(parse_chunks({"\xEF\xBB",
                          "\xBF"
                          "data: x\n\n"}),
            (std::vector<Ev>{{"message", "x", ""}}));
  EXPECT_EQ(parse_chunks({"\xEF", "",
                          "\xBB\xBF"
                          "da",
                          "ta: x\n\n"}),
            (std::vector<Ev>{{"message", "x", ""}}));
}

TEST(SseParser, BomIsStrippedOnlyOnce) {
  EXPECT_TRUE(parse("\xEF\xBB\xBF\xEF\xBB\xBF"
                    "data: x\n\n")
                  .empty());
  EXPECT_EQ(parse("\xEF\xBB\xBF"
                  "data: x\n\n\xEF\xBB\xBF"
                  "data: y\n\n"),
            (std::vector<Ev>{{"message", "x", ""}}));
}

TEST(SseParser, BomPrefixThatIsNotABomIsKeptAsContent) {
  // ": c" is a comment, but "\xEF: c" is a field: finish() tells them apart.
  SseParser kept;
  std::vector<SseEvent> events;
  ASSERT_TRUE(kept.feed("\xEF", events));
  ASSERT_TRUE(kept.feed(": c\n", events));
  EXPECT_TRUE(kept.finish());

  SseParser stripped;
  ASSERT_TRUE(stripped.feed("\xEF\xBB", events));
  ASSERT_TRUE(stripped.feed("\xBF: c\n", events));
  EXPECT_FALSE(stripped.finish());
  EXPECT_TRUE(events.empty());
}

TEST(SseParser, BomPrefixBytesCountTowardTheLimit) {
  // "\xEF\xBB" plus "xxxxxxxx" is 10 bytes held on the line: over a limit of 9.
  SseParser parser(SseLimits{9});
  std::vector<SseEvent> events;
  ASSERT_TRUE(parser.feed("\xEF\xBB", events));
  EXPECT_FALSE(parser.feed("xxxxxxxx", events));
}

TEST(SseParser, SplitInsideUtf8SequencesIsSafe) {
  const std::string stream = "data: h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x8E\x89\n\n";
  const std::vector<Ev> expected{
      {"message", "h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x8E\x89", ""}};
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const std::string_view s = stream;
    EXPECT_EQ(parse_chunks({s.substr(0, cut), s.substr(cut)}), expected) << "cut at " << cut;
  }
  EXPECT_EQ(parse_bytewise(stream), expected);
}

TEST(SseParser, InvalidUtf8IsDecodedWithReplacementCharactersAndCounted) {
  // The spec decodes the stream as UTF-8, replacing errors (as EventSource does).
  const std::string stream =
      "event: \xFFx\ndata: a\xFF\xC3\x28"
      "b\n\ndata: ok\n\n";
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    SseParser parser;
    std::vector<SseEvent> events;
    ASSERT_TRUE(parser.feed(std::string_view(stream).substr(0, cut), events));
    ASSERT_TRUE(parser.feed(std::string_view(stream).substr(cut), events));
    ASSERT_EQ(events.size(), 2u) << "cut at " << cut;
    EXPECT_EQ(events[0].type, "\xEF\xBF\xBDx");
    EXPECT_EQ(events[0].data, "a\xEF\xBF\xBD\xEF\xBF\xBD(b");
    EXPECT_EQ(events[0].invalid_utf8, 3u);
    EXPECT_EQ(events[1].invalid_utf8, 0u);
  }
}

TEST(SseParser, CommentsAreIgnored) {
  EXPECT_TRUE(parse(": ping\n\n").empty());
  EXPECT_TRUE(parse(":\n:\n\n").empty());
  EXPECT_EQ(parse("data: a\n: in the middle\ndata: b\n\n"),
            (std::vector<Ev>{{"message", "a\nb", ""}}));
}

TEST(SseParser, OneLeadingSpaceIsStrippedFromTheValue) {
  EXPECT_EQ(parse("data:no-space\n\n"), (std::vector<Ev>{{"message", "no-space", ""}}));
  EXPECT_EQ(parse("data:  two\n\n"), (std::vector<Ev>{{"message", " two", ""}}));
  EXPECT_EQ(parse("data:\tab\n\n"), (std::vector<Ev>{{"message", "\tab", ""}}));
}

TEST(SseParser, ValueKeepsLaterColons) {
  EXPECT_EQ(parse("data: a:b: c\n\n"), (std::vector<Ev>{{"message", "a:b: c", ""}}));
}

TEST(SseParser, LineWithoutColonIsAFieldWithEmptyValue) {
  EXPECT_EQ(parse("data\n\n"), (std::vector<Ev>{{"message", "", ""}}));
  EXPECT_EQ(parse("data\ndata\n\n"), (std::vector<Ev>{{"message", "\n", ""}}));
  EXPECT_EQ(parse("event: t\nevent\ndata: x\n\n"), (std::vector<Ev>{{"message", "x", ""}}));
}

TEST(SseParser, MultiLineDataIsJoinedWithLf) {
  EXPECT_EQ(parse("data: a\ndata: b\ndata: c\n\n"), (std::vector<Ev>{{"message", "a\nb\nc", ""}}));
}

TEST(SseParser, OnlyOneTrailingLfIsStripped) {
  EXPECT_EQ(parse("data: a\ndata:\n\n"), (std::vector<Ev>{{"message", "a\n", ""}}));
}

TEST(SseParser, BlankLineWithEmptyDataBufferDoesNotDispatch) {
  // The type of the undispatched event must not leak into the next one.
  EXPECT_EQ(parse("event: lonely\n\n\n\ndata: x\n\n"), (std::vector<Ev>{{"message", "x", ""}}));
}

TEST(SseParser, UnknownAndMiscasedFieldsAreIgnored) {
  EXPECT_EQ(parse("foo: bar\ndata: x\n\n"), (std::vector<Ev>{{"message", "x", ""}}));
  EXPECT_TRUE(parse("Data: x\n\n").empty());
  EXPECT_TRUE(parse("data : x\n\n").empty());
  EXPECT_TRUE(parse(" data: x\n\n").empty());
}

TEST(SseParser, IdIsStickyAcrossEvents) {
  EXPECT_EQ(parse("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"),
            (std::vector<Ev>{{"message", "a", "1"}, {"message", "b", "1"}, {"message", "c", ""}}));
}

TEST(SseParser, IdWithoutDataStillUpdatesTheLastEventId) {
  EXPECT_EQ(parse("id: 5\n\ndata: x\n\n"), (std::vector<Ev>{{"message", "x", "5"}}));
}

TEST(SseParser, IdContainingNulIsIgnored) {
  std::string stream = "id: 7\nid: x";
  stream += '\0';
  stream += "y\ndata: z\n\n";
  EXPECT_EQ(parse(stream), (std::vector<Ev>{{"message", "z", "7"}}));
}

TEST(SseParser, RetryAcceptsOnlyAsciiDigits) {
  SseParser parser;
  std::vector<SseEvent> events;
  EXPECT_FALSE(parser.retry().has_value());
  ASSERT_TRUE(parser.feed("retry: 3000\n", events));
  EXPECT_EQ(parser.retry(), 3000u);
  for (std::string_view bad : {"retry: 30a\n", "retry: -1\n", "retry: 1.5\n", "retry:\n",
                               "retry:  100\n", "retry: 99999999999999999999999\n"}) {
    ASSERT_TRUE(parser.feed(bad, events));
    EXPECT_EQ(parser.retry(), 3000u) << bad;
  }
  ASSERT_TRUE(parser.feed("retry:0\n", events));
  EXPECT_EQ(parser.retry(), 0u);
  ASSERT_TRUE(parser.feed("retry: 18446744073709551615\n", events));
  EXPECT_EQ(parser.retry(), 18446744073709551615u);
  EXPECT_TRUE(events.empty());  // retry alone dispatches nothing
}

TEST(SseParser, LimitAllowsAnEventOfExactlyTheLimit) {
  // "data: abcd" is 10 bytes; then the buffer "abcd\n" plus the blank line is 5.
  SseParser parser(SseLimits{10});
  std::vector<SseEvent> events;
  EXPECT_TRUE(parser.feed("data: abcd\n\n", events));
  EXPECT_EQ(as_tuples(events), (std::vector<Ev>{{"message", "abcd", ""}}));
  EXPECT_TRUE(parser.error().empty());
}

TEST(SseParser, LimitExceededByOneLine) {
  SseParser parser(SseLimits{9});
  std::vector<SseEvent> events;
  EXPECT_FALSE(parser.feed("data: abcd\n\n", events));
  EXPECT_EQ(parser.error(), "SSE event exceeds max_event_bytes (9 bytes)");
  EXPECT_TRUE(events.empty());
}

TEST(SseParser, LimitCountsTheWholeEventAcrossLines) {
  SseParser parser(SseLimits{16});
  std::vector<SseEvent> events;
  EXPECT_TRUE(parser.feed("data: 12345\n", events));  // buffer 6
  EXPECT_TRUE(parser.feed("data: 1234\n", events));   // 6 + 10 = 16: still fits
  EXPECT_FALSE(parser.feed("data: 1\n", events));     // 12 + 7 = 19
  EXPECT_NE(parser.error().find("max_event_bytes (16 bytes)"), std::string::npos);
}

TEST(SseParser, LimitBoundsAnUnterminatedLine) {
  SseParser parser(SseLimits{64});
  std::vector<SseEvent> events;
  EXPECT_TRUE(parser.feed(std::string(64, 'x'), events));
  EXPECT_FALSE(parser.feed("x", events));
  EXPECT_EQ(parser.error(), "SSE event exceeds max_event_bytes (64 bytes)");
}

TEST(SseParser, LimitIsPerEvent) {
  SseParser parser(SseLimits{16});
  std::vector<SseEvent> events;
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(parser.feed("data: 0123456789\n\n", events));
  EXPECT_EQ(events.size(), 100u);
}

TEST(SseParser, AfterTheLimitLaterFeedsAreIgnored) {
  SseParser parser(SseLimits{12});
  std::vector<SseEvent> events;
  // The first event completes before the oversized one: it is still delivered.
  EXPECT_FALSE(parser.feed("data: ok\n\ndata: far too long\n\n", events));
  EXPECT_EQ(as_tuples(events), (std::vector<Ev>{{"message", "ok", ""}}));
  const std::size_t seen = parser.bytes_seen();
  EXPECT_FALSE(parser.feed("data: x\n\n", events));
  EXPECT_EQ(events.size(), 1u);
  EXPECT_EQ(parser.bytes_seen(), seen);
  EXPECT_EQ(parser.error(), "SSE event exceeds max_event_bytes (12 bytes)");
}

TEST(SseParser, ZeroLimitMeansNone) {
  SseParser parser;
  std::vector<SseEvent> events;
  const std::string big = "data: " + std::string(1 << 20, 'x') + "\n\n";
  EXPECT_TRUE(parser.feed(big, events));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data.size(), std::size_t{1} << 20);
}

TEST(SseParser, FinishReportsADroppedPartialEvent) {
  SseParser parser;
  std::vector<SseEvent> events;
  ASSERT_TRUE(parser.feed("data: complete\n\ndata: cut\n", events));
  EXPECT_TRUE(parser.finish());
  EXPECT_EQ(as_tuples(events), (std::vector<Ev>{{"message", "complete", ""}}));
}

TEST(SseParser, FinishReportsADroppedPartialLine) {
  SseParser parser;
  std::vector<SseEvent> events;
  ASSERT_TRUE(parser.feed("data: complete\n\ndata: cu", events));
  EXPECT_TRUE(parser.finish());
  EXPECT_EQ(events.size(), 1u);
}

TEST(SseParser, FinishAfterCleanEndDropsNothing) {
  SseParser parser;
  std::vector<SseEvent> events;
  ASSERT_TRUE(parser.feed("data: a\n\n: trailing comment\n", events));
  EXPECT_FALSE(parser.finish());
  SseParser empty;
  EXPECT_FALSE(empty.finish());
}

TEST(SseParser, FinishReportsAnIdWaitingForItsBlankLine) {
  SseParser parser;
  std::vector<SseEvent> events;
  ASSERT_TRUE(parser.feed("id: 9\n", events));
  EXPECT_TRUE(parser.finish());
}

TEST(SseParser, AfterFinishAReconnectedStreamKeepsIdAndRetry) {
  SseParser parser;
  std::vector<SseEvent> events;
  ASSERT_TRUE(parser.feed("retry: 10\nid: 3\ndata: a\n\ndata: partial", events));
  EXPECT_TRUE(parser.finish());
  // The new stream may start with its own BOM; the partial line is gone.
  ASSERT_TRUE(
      parser.feed("\xEF\xBB\xBF"
                  "data: b\n\n",
                  events));
  EXPECT_EQ(as_tuples(events), (std::vector<Ev>{{"message", "a", "3"}, {"message", "b", "3"}}));
  EXPECT_EQ(parser.retry(), 10u);
  EXPECT_FALSE(parser.finish());
}

TEST(SseParser, BytesSeenCountsEveryByteFed) {
  SseParser parser;
  std::vector<SseEvent> events;
  ASSERT_TRUE(parser.feed("\xEF\xBB", events));
  ASSERT_TRUE(
      parser.feed("\xBF"
                  "data: x\n\n",
                  events));
  EXPECT_EQ(parser.bytes_seen(), 12u);
}

// A stream as a server might send it: BOM, mixed line endings, comments,
// retry, sticky ids, multi-line data, UTF-8, ignored fields, and a last event
// cut off by the end of the stream.
const std::string kStream =
    "\xEF\xBB\xBF: connected\r\n"
    "retry: 2500\r\n"
    "\r\n"
    "event: RUN_STARTED\r\n"
    "id: 1\r\n"
    "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\r\n"
    "\r\n"
    "id: 2\n"
    "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"h\xC3\xA9llo \xE2\x80\x94 "
    "\xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x8E\x89\"}\n"
    "\n"
    ": keep-alive\r"
    "data: line one\r"
    "data:line two\r"
    "data:  indented\r"
    "\r"
    "event: multi\n"
    "data\n"
    "data: \n"
    "data: x:y\n"
    "\n"
    "id\r\n"
    "data: after id reset\r\n"
    "\r\n"
    "event: no-data\n"
    "\n"
    "foo: bar\n"
    "data: last\n"
    "\n"
    "data: cut off mid-event\n";

const std::vector<Ev> kExpected{
    {"RUN_STARTED", "{\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"}", "1"},
    {"message",
     "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"h\xC3\xA9llo \xE2\x80\x94 "
     "\xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x8E\x89\"}",
     "2"},
    {"message", "line one\nline two\n indented", "2"},
    {"multi", "\n\nx:y", "2"},
    {"message", "after id reset", ""},
    {"message", "last", ""},
};

// Parses kStream cut at the given offsets and checks everything observable.
void expect_stream_parses(const std::vector<std::size_t>& cuts) {
  SseParser parser;
  std::vector<SseEvent> events;
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    ASSERT_TRUE(parser.feed(std::string_view(kStream).substr(from, cut - from), events));
    from = cut;
  }
  ASSERT_TRUE(parser.feed(std::string_view(kStream).substr(from), events));
  ASSERT_EQ(as_tuples(events), kExpected);
  EXPECT_EQ(parser.retry(), 2500u);
  EXPECT_EQ(parser.bytes_seen(), kStream.size());
  EXPECT_TRUE(parser.finish());
}

TEST(SseParserStream, FedWhole) { expect_stream_parses({}); }

TEST(SseParserStream, FedOneByteAtATime) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < kStream.size(); ++i) cuts.push_back(i);
  expect_stream_parses(cuts);
}

TEST(SseParserStream, SplitIntoTwoAtEveryOffset) {
  for (std::size_t i = 0; i <= kStream.size(); ++i) {
    SCOPED_TRACE("cut at " + std::to_string(i));
    expect_stream_parses({i});
    if (HasFatalFailure()) return;
  }
}

TEST(SseParserStream, SplitIntoThreeAtManyOffsetPairs) {
  // Every first cut, and every fifth second cut after it (plus the cut right
  // after the first, which puts a one-byte chunk in the middle).
  for (std::size_t i = 0; i <= kStream.size(); ++i) {
    for (std::size_t j = i; j <= kStream.size(); j += (j == i ? 1 : 5)) {
      SCOPED_TRACE("cuts at " + std::to_string(i) + ", " + std::to_string(j));
      expect_stream_parses({i, j});
      if (HasFatalFailure()) return;
    }
  }
}

TEST(SseParserStream, OneBytePerFeedOnAHugeLineStaysLinear) {
  // 4 MiB fed a byte at a time: a parser that rescanned its line buffer on each
  // feed would do ~8e12 byte comparisons here and never finish.
  const std::size_t size = std::size_t{4} << 20;
  SseParser parser;
  std::vector<SseEvent> events;
  const std::string x = "x";
  ASSERT_TRUE(parser.feed("data: ", events));
  for (std::size_t i = 0; i < size; ++i) parser.feed(x, events);
  ASSERT_TRUE(parser.feed("\n\n", events));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data.size(), size);
}

}  // namespace
}  // namespace agui
