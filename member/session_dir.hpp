// session_dir.hpp — a session's directory: `<workdir>/.murmur/<ses_id>/` with `trace.jsonl`,
// `out/result.txt` and `logs/`.
//
// Invariant: the directories exist before the first trace line; trace lines are appended whole
// with their newlines, gathered in memory and written in one write(2) per flush, so a reader
// never sees half a line and a line costs no system call; the trace recorder flushes at most
// 200 ms after a line and at the session's end (trace_recorder.hpp), and the sink flushes when
// 64 KiB have gathered and when it is dropped, so a crash loses at most the last 200 ms; a
// write that writes less or fails (ENOSPC) is said once on stderr (W-TRC-003), remembered in
// the session's trace.incomplete marker (member/trace_write_failure.hpp) and cuts at most one
// line (the next flush ends it first);
// result.txt holds the newest finished task (the answer, `error: <why>` or `no answer: <why>`):
// it is kept open and overwritten in place (pwrite at 0, ftruncate only when it shrinks), so a
// door that serves thousands of tasks a second does not reopen and truncate a file for each.
// Spec: docs/spec/capsule.md §Session layout, §Trace format; docs/spec/choices.md §Files.
#pragma once

#include "actors/trace_recorder.hpp"
#include "messages/wire/a2a_task.hpp"
#include "os/unique_fd.hpp"

#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>

namespace mur {

struct SessionDir {
  std::string path;       // <workdir>/.murmur/<ses_id> (or the directory in the store it links to)
  std::string trace_path; // path/trace.jsonl
  std::string result_path;// path/out/result.txt
};

// Creates the directories (E-RUN-007 when it cannot). With `store` set (a directory the member's
// agent program cannot reach: `$MURMUR_HOME/sessions`), the session's directory is made there
// and `<workdir>/.murmur/<ses_id>` is a symbolic link to it: the session keeps its place in the
// user's directory while its trace lies out of the program's reach (session_store.hpp).
SessionDir make_session_dir(const std::string& workdir, const std::string& session_id, const std::string& store = {});

// How the sink writes: write(2) by default; tests hand in one that fails.
using TraceWriteFn = std::function<ssize_t(int fd, const void* data, std::size_t size)>;

// A buffered trace sink appending to trace.jsonl; its blobs go to blobs/ (member/trace_blob_file.hpp).
TraceSink trace_file_sink(const SessionDir& dir, TraceWriteFn write = {});

// What out/result.txt holds for a finished task.
std::string result_text(const TaskView& task);

// out/result.txt, opened once (0644) at the first finished task and kept open for the session.
class ResultFile {
public:
  explicit ResultFile(const SessionDir& dir);
  // Replaces the file's content with the task's result text.
  void write(const TaskView& task);

private:
  std::string path_;
  UniqueFd fd_;
  std::size_t size_ = 0; // bytes the file holds now
};

} // namespace mur
