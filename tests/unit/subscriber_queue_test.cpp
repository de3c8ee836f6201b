// The bounded queue of one SSE subscriber (http/subscriber_queue.hpp): the window, text
// coalesced while it is full, state events kept in order, overflow past either bound.
#include <catch2/catch.hpp>

#include "http/subscriber_queue.hpp"

using namespace mur;

namespace {

// The queue's next item, which must be there.
SubscriberQueue::Item next(SubscriberQueue& q) {
  auto item = q.take();
  REQUIRE(item);
  return *item;
}

// The queue's next item is there and is `expected` (text or event, and its bytes).
void takes(SubscriberQueue& q, const SubscriberQueue::Item& expected) {
  const auto item = next(q);
  CHECK(item.text == expected.text);
  CHECK(item.bytes == expected.bytes);
}

} // namespace

TEST_CASE("subscriber queue: writes what the window allows, coalesces text behind it", "[unit][bounds]") {
  SubscriberQueue q(SubscriberLimits{100, 1000, 4});
  REQUIRE(q.push_text("a"));
  takes(q, {true, "a"});
  q.sent(150); // the rendered chunk is larger than its text: the window is now full
  for (int i = 0; i < 50; ++i) REQUIRE(q.push_text("xy"));
  CHECK_FALSE(q.take()); // nothing while the window is full
  CHECK(q.pending_bytes() == 100);
  q.confirmed(150);
  const auto merged = next(q);
  std::string expected;
  for (int i = 0; i < 50; ++i) expected += "xy";
  CHECK(merged.bytes == expected);
  CHECK(merged.bytes.size() == 100); // fifty fragments, one chunk
  CHECK(q.empty());
}

TEST_CASE("subscriber queue: state events keep their place after the text before them", "[unit][bounds]") {
  // Text, a state event, text: pushed while the window is full, then taken in that order, each
  // sent as it is (4, 5, then 3 bytes: the last taken with 9 of 10 bytes in flight, still room).
  const std::vector<SubscriberQueue::Item> pushed{{true, "one "}, {false, "EVENT"}, {true, "two"}};
  SubscriberQueue q(SubscriberLimits{10, 1000, 8});
  q.sent(10);
  for (const auto& item : pushed) REQUIRE((item.text ? q.push_text(item.bytes) : q.push_event(item.bytes)));
  q.confirmed(10);
  for (const auto& item : pushed) {
    takes(q, item);
    q.sent(item.bytes.size());
  }
  CHECK_FALSE(q.idle()); // 12 bytes on their way
  CHECK(q.empty());
  CHECK_FALSE(q.take());
}

TEST_CASE("subscriber queue: overflows past its bytes or its items, never grows", "[unit][bounds]") {
  SubscriberQueue bytes(SubscriberLimits{1, 10, 64});
  bytes.sent(1);
  CHECK(bytes.push_text("0123456789"));
  CHECK_FALSE(bytes.push_text("x"));
  CHECK(bytes.pending_bytes() == 10);

  SubscriberQueue items(SubscriberLimits{1, 1000, 3});
  items.sent(1);
  CHECK(items.push_event("1"));
  CHECK(items.push_event("2"));
  CHECK(items.push_event("3"));
  CHECK_FALSE(items.push_event("4"));
  CHECK_FALSE(items.push_text("t")); // a new text item would be a fourth
}

TEST_CASE("subscriber queue: state events are bounded by count, not bytes (a whole answer)", "[unit][bounds]") {
  SubscriberQueue q(SubscriberLimits{1, 10, 2});
  q.sent(1);
  CHECK(q.push_event(std::string(100, 'a')));
  CHECK(q.push_event("b"));
  CHECK_FALSE(q.push_event("c")); // a third item is past the count
  CHECK_FALSE(q.push_text("t"));
  q.confirmed(1);
  CHECK(next(q).bytes.size() == 100);
  q.sent(100);
  CHECK_FALSE(q.take()); // the window is full again
  q.confirmed(100);
  CHECK(q.take()->bytes == "b");
  CHECK(q.idle());
}
