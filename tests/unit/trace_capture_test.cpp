// trace.capture: the manifest's word, the transcript blob's shape and cap, and a blob written
// through the trace port's file sink into blobs/<sha256> (owner-only) before the line naming it.
#include "actors/trace_recorder.hpp"
#include "actors/transcript_blob.hpp"
#include "capsule/manifest.hpp"
#include "manifest_refusal.hpp"
#include "member/session_dir.hpp"
#include "member/trace_blob_file.hpp"
#include "messages/vocabulary/sha256.hpp"
#include "messages/wire/register_messages.hpp"
#include "temp_dir.hpp"

#include <caf/all.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;
using json = nlohmann::json;
using mur::TraceCapture;

namespace {
const std::string head = "name: worker\nversion: 1.0.0\n";

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

unsigned mode_of(const fs::path& p) {
  struct stat st{};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 0777;
}
} // namespace

TEST_CASE("trace.capture: meta by default, none or content, a wrong word refused with the nearest", "[manifest][capture]") {
  CHECK(mur::parse_manifest(head, "m").capture == TraceCapture::meta);
  CHECK(mur::parse_manifest(head + "trace: {capture: content}\n", "m").capture == TraceCapture::content);
  CHECK(mur::parse_manifest(head + "trace: {capture: none}\n", "m").capture == TraceCapture::none);
  CHECK(mur::parse_manifest(head + "trace: {capture: meta, retain: {max_sessions: 3}}\n", "m").capture == TraceCapture::meta);
  mur::test::manifest_refused(head + "trace: {capture: contents}\n", "E-MAN-002", "did you mean 'content'?");
  mur::test::manifest_refused(head + "trace: {capture: everything}\n", "E-MAN-002", "is not one of none, meta, content");
  mur::test::manifest_refused(head + "trace: {capture: true}\n", "E-MAN-002", "trace.capture");
  mur::test::manifest_refused(head + "trace: {captures: content}\n", "E-MAN-002", "did you mean `capture`?");
}

TEST_CASE("a transcript blob: every message with its role, tool calls and results, texts cut, capped", "[capture]") {
  using mur::TranscriptMessage;
  mur::Transcript t{TranscriptMessage::system("you are lead"), TranscriptMessage::user("build it"),
                    TranscriptMessage::assistant("", {mur::ToolCall{"c1", "call-member", R"({"member":"coder"})"}}),
                    TranscriptMessage::tool_result("c1", "<member:coder>done</member:coder>"),
                    TranscriptMessage::assistant("<script>alert(1)</script>")};
  const json j = json::parse(mur::transcript_blob("tsk_1", "lead", t));
  CHECK(j["task_id"] == "tsk_1");
  CHECK(j["member"] == "lead");
  CHECK(j["messages_left_out"] == 0);
  CHECK(j["texts_cut"] == 0);
  REQUIRE(j["messages"].size() == 5);
  CHECK(j["messages"][0] == json{{"role", "system"}, {"content", "you are lead"}});
  CHECK(j["messages"][2]["tool_calls"][0] == json{{"id", "c1"}, {"name", "call-member"}, {"arguments", R"({"member":"coder"})"}});
  CHECK(j["messages"][3]["tool_call_id"] == "c1");
  CHECK(j["messages"][4]["content"] == "<script>alert(1)</script>");

  // A text above 64 KiB is cut; a whole above the cap leaves out the oldest after the system message.
  mur::Transcript big{TranscriptMessage::system("sys"), TranscriptMessage::user(std::string(100 * 1024, 'u'))};
  for (int i = 0; i < 6; ++i) big.push_back(TranscriptMessage::assistant(std::string(60 * 1024, 'a')));
  big.push_back(TranscriptMessage::assistant("the answer"));
  const std::string text = mur::transcript_blob("tsk_2", "lead", big, 200 * 1024);
  CHECK(text.size() <= 200 * 1024);
  const json b = json::parse(text);
  CHECK(b["texts_cut"] == 1);
  CHECK(b["messages_left_out"].get<int>() >= 2);
  CHECK(b["messages"].front()["content"] == "sys");
  CHECK(b["messages"].back()["content"] == "the answer");
  CHECK(b["messages"].size() + b["messages_left_out"].get<std::size_t>() == big.size());
}

TEST_CASE("a blob through the trace port: blobs/<sha256 of its bytes>, 0600 in a 0700 dir, before its line", "[capture][trace_line]") {
  mur::test::TempDir t("capture");
  const auto dir = mur::make_session_dir(t.dir.string(), "ses_01a2338c644a74ebb8c0c85f92ba7d73");
  caf::actor_system_config cfg;
  mur::register_message_types(cfg);
  caf::actor_system sys{cfg};
  const std::string blob = R"({"messages":[]})";
  const std::string sha = mur::sha256_hex(blob);
  bool blob_first = false;
  auto file = mur::trace_file_sink(dir);
  mur::TraceSink sink([&](const std::string& line) {
                        if (line.find("task_end") != std::string::npos) blob_first = fs::exists(fs::path(dir.path) / "blobs" / sha);
                        file.write(line);
                      },
                      file.flush, file.blob);
  auto trace = mur::spawn_trace_recorder(sys, "ses_01a2338c644a74ebb8c0c85f92ba7d73", std::move(sink));
  caf::scoped_actor self{sys};
  self->send(trace, mur::TraceEvent{"task_end", json{{"task_id", "tsk_1"}, {"transcript_sha256", sha}}.dump()}, blob);
  self->request(trace, caf::infinite, mur::trace_atom_v).receive([](const std::vector<std::string>&) {},
                                                                  [](caf::error&) { FAIL("the recorder did not answer"); });
  CHECK(blob_first);
  const fs::path written = fs::path(dir.path) / "blobs" / sha;
  CHECK(file_text(written) == blob);
  CHECK(mode_of(written) == 0600);
  CHECK(mode_of(written.parent_path()) == 0700);
  CHECK(file_text(dir.trace_path).find(sha) != std::string::npos);
  // The same bytes again: the same name, the file untouched.
  CHECK(mur::write_trace_blob(dir.path, blob) == sha);
  CHECK(fs::directory_iterator(written.parent_path()) != fs::directory_iterator());
  CHECK(std::distance(fs::directory_iterator(written.parent_path()), fs::directory_iterator()) == 1);
  caf::anon_send_exit(trace, caf::exit_reason::user_shutdown);
}
