// The one reader of trace lines against hostile lines (null, wrong types, huge numbers,
// truncated, non-UTF-8, deep nesting), the readers built on it (a session's trace, the view's
// state) skipping and counting what they cannot read, and the trace sink whose write fails
// (W-TRC-003 on stderr, the trace.incomplete marker, one torn line only).
#include "launcher/traces/session_traces.hpp"
#include "launcher/traces/trace_growth.hpp"
#include "launcher/view/view_state.hpp"
#include "member/session_dir.hpp"
#include "member/trace_write_failure.hpp"
#include "messages/vocabulary/trace_line.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// A fresh directory for one test's session.
struct TempDir : mur::test::TempDir {
  TempDir() : mur::test::TempDir("trace-line") {}
};

const std::string start_line =
  R"({"event_type":"session_start","event_id":"evt_1","parent_id":null,"session_id":"ses_01a2338c644a74ebb8c0c85f92ba7d73","timestamp":1000,"capsule_name":"c","capsule_version":"1.0.0","formation_id":"frm_01a2338c638e71c18f328b25795d3715","formation_member":"coder","formation_callees":["reviewer"]})";
const std::string call_line =
  R"({"event_type":"member_call","session_id":"ses_01a2338c644a74ebb8c0c85f92ba7d73","timestamp":1200,"task_id":"tsk_1","call_id":"mcl_1","member":"reviewer","status":"completed","duration_ms":5,"delivered":true})";

// Captures std::cerr while alive.
struct CerrCapture {
  std::ostringstream text;
  std::streambuf* old;
  CerrCapture() : old(std::cerr.rdbuf(text.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old); }
};

} // namespace

TEST_CASE("a trace line mur writes is read whole", "[trace_line]") {
  auto e = mur::read_trace_line(start_line);
  REQUIRE(e);
  CHECK((*e)["formation_member"] == "coder");
  REQUIRE(mur::read_trace_line(call_line));
  // Fields no reader knows are kept and never judged.
  CHECK(mur::read_trace_line(R"({"event_type":"x","timestamp":1,"whatever":[null,{"a":1.5}]})"));
}

TEST_CASE("hostile trace lines are unreadable, never a throw", "[trace_line]") {
  const char* hostile[] = {
    R"({"event_type":"member_call","call_id":null})",                         // the attacker's line
    R"({"event_type":"member_call","timestamp":1,"call_id":null})",           // null where a string is
    R"({"event_type":"member_call","timestamp":1})",                          // a call without its id
    R"({"event_type":"member_call","timestamp":1,"call_id":"mcl_1","delivered":"yes"})", // flag as a string
    R"({"event_type":"member_call","timestamp":1,"call_id":"mcl_1","duration_ms":"5"})", // count as a string
    R"({"event_type":"member_call","timestamp":1,"call_id":"mcl_1","duration_ms":-5})",  // negative
    R"({"event_type":"member_call","timestamp":1,"call_id":"mcl_1","duration_ms":1.5})", // not an integer
    R"({"event_type":"inference","timestamp":1,"prompt_tokens":18446744073709551615})",  // huge
    R"({"event_type":"inference","timestamp":1,"prompt_tokens":9007199254740992})",      // 2^53
    R"({"event_type":"x","timestamp":1e400})",                                // overflows a double
    R"({"event_type":"x","timestamp":99999999999999999999999999999})",
    R"({"event_type":42,"timestamp":1})",                                      // type not a string
    R"({"timestamp":1})",                                                      // no type
    R"({"event_type":"x"})",                                                   // no timestamp
    R"({"event_type":"session_start","timestamp":1,"session_id":"s","formation_callees":"reviewer"})",
    R"({"event_type":"session_start","timestamp":1,"session_id":"s","formation_callees":[1,2]})",
    R"({"event_type":"task_end","timestamp":1,"task_id":"t","no_answer_below":[{"member":null}]})",
    R"({"event_type":"x","timestamp":1,"parent_id":7})",
    R"({"event_type":"member_call","timestamp":1,"call_id":"mcl_1","member":{"a":1}})",
    R"({"event_type":"member_call","timestamp":1,"call_id":"mc)",           // truncated
    R"(["event_type","member_call"])",                                         // not an object
    "null", "", "{", "}", "\"str\"", "12",
    "{\"event_type\":\"x\",\"timestamp\":1,\"text\":\"\xff\xfe\"}",           // not UTF-8
    "{\"event_type\":\"x\",\"timestamp\":1,\"text\":\"\xc3\"}",               // a cut UTF-8 sequence
  };
  for (const char* line : hostile) {
    INFO(line);
    std::optional<json> e;
    REQUIRE_NOTHROW(e = mur::read_trace_line(line));
    CHECK_FALSE(e);
  }
  // Nested far deeper than any trace line: refused before the parser recurses.
  const std::string deep = R"({"event_type":"x","timestamp":1,"a":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK_FALSE(mur::read_trace_line(deep));
  // The largest count allowed is read.
  CHECK(mur::read_trace_line(R"({"event_type":"inference","timestamp":9007199254740991,"prompt_tokens":9007199254740991})"));
}

TEST_CASE("lines of a text: whole lines read, unreadable ones counted, the tail left", "[trace_line]") {
  const std::string text = start_line + "\n" + R"({"event_type":"member_call","call_id":null})" + "\n\n  \n" +
                           call_line + "\n" + R"({"event_type":"x","timest)";
  auto lines = mur::read_trace_lines(text);
  CHECK(lines.events.size() == 2);
  CHECK(lines.unreadable == 1); // blank lines are nothing
  CHECK(lines.tail == std::string(R"({"event_type":"x","timest)").size());
}

TEST_CASE("a session's trace with forged and torn lines: read, the rest counted", "[trace_line]") {
  TempDir t;
  std::ofstream(t.dir / "trace.jsonl") << start_line << "\n"
                                       << R"({"event_type":"member_call","call_id":null})" << "\n"
                                       << R"({"event_type":"member_call","timestamp":1,"call_id":"mcl_x","member":"reviewer","delivered":"yes"})" << "\n"
                                       << call_line << "\n"
                                       << R"({"event_type":"session_end","timestamp":13)";
  std::optional<mur::SessionTrace> s;
  REQUIRE_NOTHROW(s = mur::read_session_trace(t.dir.string()));
  REQUIRE(s);
  CHECK(s->member == "coder");
  CHECK(s->callees == std::vector<std::string>{"reviewer"});
  REQUIRE(s->calls.size() == 1);
  CHECK(s->calls[0].call_id == "mcl_1");
  CHECK(s->unreadable == 3); // two forged lines, the unterminated last one
  CHECK(s->write_failure.empty());
  CHECK_FALSE(s->session_end);
}

TEST_CASE("the view's state skips and counts a forged line", "[trace_line]") {
  TempDir t;
  std::ofstream(t.dir / "trace.jsonl") << start_line << "\n" << R"({"event_type":"member_call","call_id":null})" << "\n"
                                       << call_line << "\n";
  auto v = mur::ViewSource::session("ses_01a2338c644a74ebb8c0c85f92ba7d73", t.dir.string());
  REQUIRE_NOTHROW(v.poll());
  json st;
  REQUIRE_NOTHROW(st = v.state(false, 2000));
  REQUIRE(st["members"].size() == 1);
  CHECK(st["members"][0]["name"] == "coder");
  CHECK(st["members"][0]["unreadable_lines"] == 1);
  // read_new_events counts the same way, and leaves a line still being written for later.
  std::uint64_t offset = 0;
  int unreadable = 0;
  std::ofstream(t.dir / "trace.jsonl", std::ios::app) << R"({"event_type":"x","timestamp":)";
  auto events = mur::read_new_events((t.dir / "trace.jsonl").string(), offset, &unreadable);
  CHECK(events.size() == 2);
  CHECK(unreadable == 1);
  CHECK(offset == fs::file_size(t.dir / "trace.jsonl") - std::string(R"({"event_type":"x","timestamp":)").size());
}

TEST_CASE("a trace write that fails: W-TRC-003 on stderr once, the marker, one torn line", "[trace_line]") {
  TempDir t;
  auto dir = mur::make_session_dir(t.dir.string(), "ses_01a2338c644a74ebb8c0c85f92ba7d73");
  int calls = 0;
  bool failing = true;
  // The first write takes 10 bytes, then the disk is full; later writes go through.
  auto write = [&](int fd, const void* data, std::size_t size) -> ssize_t {
    ++calls;
    if (failing && calls == 1) return ::write(fd, data, std::min<std::size_t>(size, 10));
    if (failing) {
      errno = ENOSPC;
      return -1;
    }
    return ::write(fd, data, size);
  };
  CerrCapture err;
  {
    auto sink = mur::trace_file_sink(dir, write);
    sink.write(start_line);
    sink.write(call_line);
    sink.flush();                        // 10 bytes, then ENOSPC
    sink.write(call_line);
    sink.flush();                        // still full: no second stderr line
    failing = false;
    sink.write(call_line);
    sink.flush();                        // room again: the torn line is ended first
  }
  const std::string said = err.text.str();
  INFO(said);
  CHECK(said.find("warning W-TRC-003: writing " + dir.trace_path + " failed (No space left on device) after 10 of ") !=
        std::string::npos);
  CHECK(said.find("Fix: ") != std::string::npos);
  CHECK(std::count(said.begin(), said.end(), '\n') == 1);
  CHECK(fs::exists(mur::trace_incomplete_path(dir.path)));
  CHECK(mur::trace_write_failure(dir.path).find("No space left on device") != std::string::npos);
  // The file: the torn start of the first line, ended, then the line written after the disk had room.
  std::ifstream in(dir.trace_path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto lines = mur::read_trace_lines(text);
  CHECK(lines.unreadable == 1);
  CHECK(lines.events.size() == 1);
  CHECK(lines.tail == 0);
}

TEST_CASE("a trace sink on /dev/full says so on stderr", "[trace_line]") {
  TempDir t;
  auto dir = mur::make_session_dir(t.dir.string(), "ses_01a2338c644a74ebb8c0c85f92ba7d73");
  fs::create_symlink("/dev/full", dir.trace_path);
  CerrCapture err;
  {
    auto sink = mur::trace_file_sink(dir);
    sink.write(start_line);
  } // dropped: flushed
  CHECK(err.text.str().find("W-TRC-003") != std::string::npos);
  CHECK(mur::trace_write_failure(dir.path).find("No space left on device") != std::string::npos);
}
