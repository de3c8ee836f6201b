// W3C traceparent and mur's derived span ids (messages/vocabulary/trace_context.hpp).
#include "messages/vocabulary/trace_context.hpp"

#include <catch2/catch.hpp>

TEST_CASE("a traceparent of the W3C form is read, anything else is ignored", "[otel][traceparent]") {
  auto ok = mur::parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  REQUIRE(ok);
  CHECK(ok->trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK(ok->span_id == "00f067aa0ba902b7");
  CHECK(mur::parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"));
  for (const char* bad : {"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                          "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                          "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                          "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                          "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                          "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
                          "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                          "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-"}) {
    INFO(bad);
    CHECK_FALSE(mur::parse_traceparent(bad));
  }
  CHECK(mur::format_traceparent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7") ==
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
}

TEST_CASE("span ids come from mur's ids alone, one per kind of span", "[otel][traceparent]") {
  const std::string t = mur::trace_id_of_task("tsk_a");
  CHECK(t.size() == 32);
  CHECK(t == mur::trace_id_of_task("tsk_a"));
  CHECK(t != mur::trace_id_of_task("tsk_b"));
  const std::string ids[] = {mur::task_span_id("tsk_a"), mur::call_span_id("mcl_a"), mur::chat_span_id("tsk_a", 0, 0),
                             mur::chat_span_id("tsk_a", 0, 1), mur::tool_span_id("tsk_a", "call_0", 0),
                             mur::tool_span_id("tsk_a", "call_0", 1)};
  for (std::size_t i = 0; i < std::size(ids); ++i) {
    CHECK(ids[i].size() == 16);
    CHECK(mur::parse_traceparent(mur::format_traceparent(t, ids[i])));
    for (std::size_t j = i + 1; j < std::size(ids); ++j) CHECK(ids[i] != ids[j]);
  }
  CHECK(mur::call_span_id("mcl_a") == mur::call_span_id("mcl_a"));
}
