// The member's channel reader thread: first line deadline, later lines, refusals, EOF, stop.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "os/channel_reader.hpp"
#include "os/channel_writer.hpp"
#include "os/member_pipes.hpp"

using namespace mur;
using namespace std::chrono_literals;

namespace {

// Everything the reader reported, in order, and a way to wait for it.
struct Log {
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::string> events;
  bool ended = false;

  void add(std::string e, bool end = false) {
    std::lock_guard<std::mutex> lock(m);
    events.push_back(std::move(e));
    ended = ended || end;
    cv.notify_all();
  }
  // Generous bound: a hang fails the test instead of blocking the suite.
  bool wait_for_events(std::size_t n) {
    std::unique_lock<std::mutex> lock(m);
    return cv.wait_for(lock, 30s, [&] { return events.size() >= n; });
  }
  ChannelReader::Handlers handlers() {
    return {[this](std::string l) { add("first:" + l); }, [this](std::string l) { add("line:" + l); },
            [this](const std::string& r) { add("bad:" + r); },
            [this](const Failure& f) { add("failed:" + f.code() + ":" + f.what(), true); },
            [this] { add("closed", true); }};
  }
};

} // namespace

TEST_CASE("channel: first line, later lines as they come, then EOF", "[credentials]") {
  PipeEnds p = make_pipe();
  Log log;
  ChannelReader reader(std::move(p.read), log.handlers());
  REQUIRE(write_channel_line(p.write.get(), "{\"first\":1}"));
  REQUIRE(log.wait_for_events(1));
  CHECK(log.events[0] == "first:{\"first\":1}");
  // A line split across writes, a CRLF line, and two lines in one write.
  REQUIRE(::write(p.write.get(), "par", 3) == 3);
  REQUIRE(::write(p.write.get(), "tial\r\nx\ny\n", 10) == 10);
  REQUIRE(log.wait_for_events(4));
  CHECK(log.events[1] == "line:partial");
  CHECK(log.events[2] == "line:x");
  CHECK(log.events[3] == "line:y");
  // A non-UTF-8 line and an oversized line are refused by reason, and reading goes on.
  REQUIRE(write_channel_line(p.write.get(), "secret\xff"));
  REQUIRE(log.wait_for_events(5));
  CHECK(log.events[4] == "bad:the line is not UTF-8");
  std::thread big([&] { write_channel_line(p.write.get(), std::string(FORMATION_CHANNEL_LINE_MAX + 10, 's')); });
  REQUIRE(log.wait_for_events(6));
  big.join();
  CHECK(log.events[5] == "bad:the line is longer than 1 MiB");
  REQUIRE(write_channel_line(p.write.get(), "after"));
  p.write.reset();
  REQUIRE(log.wait_for_events(8));
  CHECK(log.events[6] == "line:after");
  CHECK(log.events[7] == "closed");
  for (const auto& e : log.events) CHECK(e.find("secret") == std::string::npos);
  CHECK(log.events.size() == 8);
}

namespace {

// What a reader with this first-line deadline reports when no line comes: an E-RUN-046 failure.
std::string first_line_refusal(std::chrono::milliseconds deadline) {
  PipeEnds p = make_pipe();
  Log log;
  ChannelReader reader(std::move(p.read), log.handlers(), deadline);
  REQUIRE(log.wait_for_events(1));
  CHECK(log.events[0].rfind("failed:E-RUN-046:", 0) == 0);
  return log.events[0];
}

} // namespace

TEST_CASE("channel: no first line before the deadline is E-RUN-046", "[credentials]") {
  const std::string refusal = first_line_refusal(200ms);
  CHECK(refusal.find("within 200 ms") != std::string::npos); // the deadline it was given
  CHECK(refusal.find("10 s") == std::string::npos);
}

TEST_CASE("channel: the first-line refusal names a whole-second deadline in seconds", "[credentials]") {
  CHECK(first_line_refusal(1s).find("no first line arrived within 1 s") != std::string::npos);
}

TEST_CASE("channel: a bad or missing first line refuses the launch without echo", "[credentials]") {
  SECTION("EOF first") {
    PipeEnds p = make_pipe();
    Log log;
    ChannelReader reader(std::move(p.read), log.handlers());
    p.write.reset();
    REQUIRE(log.wait_for_events(1));
    CHECK(log.events[0].rfind("failed:E-RUN-046:", 0) == 0);
  }
  SECTION("not UTF-8") {
    PipeEnds p = make_pipe();
    Log log;
    ChannelReader reader(std::move(p.read), log.handlers());
    write_channel_line(p.write.get(), "mft1.tokentext\xc3(");
    REQUIRE(log.wait_for_events(1));
    CHECK(log.events[0].rfind("failed:E-RUN-046:", 0) == 0);
    CHECK(log.events[0].find("tokentext") == std::string::npos);
  }
  SECTION("over 1 MiB") {
    PipeEnds p = make_pipe();
    Log log;
    ChannelReader reader(std::move(p.read), log.handlers());
    std::thread big([&] { write_channel_line(p.write.get(), std::string(FORMATION_CHANNEL_LINE_MAX + 2, 't')); });
    REQUIRE(log.wait_for_events(1));
    p.write.reset(); // unblocks the writer
    big.join();
    CHECK(log.events[0].rfind("failed:E-RUN-046:", 0) == 0);
    CHECK(log.events[0].find("tttt") == std::string::npos);
  }
}

TEST_CASE("channel: a 1 MiB first line is accepted, stop() ends a blocked reader", "[credentials]") {
  PipeEnds p = make_pipe();
  Log log;
  auto reader = std::make_unique<ChannelReader>(std::move(p.read), log.handlers());
  std::thread big([&] { write_channel_line(p.write.get(), std::string(FORMATION_CHANNEL_LINE_MAX, 'k')); });
  REQUIRE(log.wait_for_events(1));
  big.join();
  CHECK(log.events[0].size() == 6 + FORMATION_CHANNEL_LINE_MAX);
  reader->stop(); // blocked in poll with no deadline: returns, reports nothing more
  reader.reset();
  CHECK(log.events.size() == 1);
}

TEST_CASE("channel writer: a gone reader is a failed write, not SIGPIPE", "[credentials]") {
  PipeEnds p = make_pipe();
  p.read.reset();
  CHECK_FALSE(write_channel_line(p.write.get(), "hello")); // the process is still here
  CHECK_THROWS_AS(write_channel_line(p.write.get(), "a\nb"), std::invalid_argument);
}
