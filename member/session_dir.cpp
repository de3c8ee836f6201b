#include "member/session_dir.hpp"

#include "member/trace_blob_file.hpp"
#include "member/trace_write_failure.hpp"
#include "member/workdir_fix.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/unique_fd.hpp"

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {
namespace {

void make_dir(const std::string& p) {
  if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST)
    throw Failure("E-RUN-007", "cannot create the session directory " + p + " (" + std::strerror(errno) + ")",
                  unwritable_dir_fix(p));
}

} // namespace

SessionDir make_session_dir(const std::string& workdir, const std::string& session_id, const std::string& store) {
  SessionDir d;
  make_dir(workdir);
  make_dir(workdir + "/.murmur");
  const std::string place = workdir + "/.murmur/" + session_id;
  if (store.empty()) {
    d.path = place;
    make_dir(d.path);
  } else {
    make_dir(store);
    d.path = store + "/" + session_id;
    make_dir(d.path);
    if (::symlink(d.path.c_str(), place.c_str()) != 0)
      throw Failure("E-RUN-007", "cannot link the session directory " + place + " to " + d.path + " (" + std::strerror(errno) + ")",
                    unwritable_dir_fix(place));
  }
  make_dir(d.path + "/out");
  make_dir(d.path + "/logs");
  d.trace_path = d.path + "/trace.jsonl";
  d.result_path = d.path + "/out/result.txt";
  return d;
}

namespace {

// trace.jsonl, appended in whole lines: lines gather in memory and reach the file in one
// write(2) per flush, when 64 KiB have gathered, when the recorder asks, and when it is dropped.
// A flush that writes less than it holds (a full disk, an I/O error) loses the rest of its
// lines, the session goes on: the first failure of a run of them is one W-TRC-003 line on
// stderr, every failure marks the session (trace.incomplete), and the next flush first ends the
// line the failure cut, so that only that line is unreadable.
class TraceFile {
public:
  TraceFile(const SessionDir& dir, TraceWriteFn write)
      : dir_(dir.path), path_(dir.trace_path), write_(std::move(write)),
        fd_(::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) {
    if (!fd_.valid())
      throw Failure("E-RUN-007", "cannot open " + path_ + " for writing (" + std::strerror(errno) + ")",
                    unwritable_dir_fix(path_));
    if (!write_) write_ = [](int fd, const void* data, std::size_t size) { return ::write(fd, data, size); };
    held_.reserve(held_limit);
  }
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;
  ~TraceFile() { flush(); }

  void write(const std::string& line) {
    held_ += line;
    held_ += '\n';
    if (held_.size() >= held_limit) flush();
  }
  void flush() {
    if (held_.empty()) return;
    if (torn_) held_.insert(held_.begin(), '\n'); // ends the line a failed write cut
    std::size_t done = 0;
    int err = 0;
    while (done < held_.size()) {
      const ssize_t n = write_(fd_.get(), held_.data() + done, held_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        err = n < 0 ? errno : 0;
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    if (done == held_.size()) {
      torn_ = false;
      failing_ = false;
    } else {
      failed(done, err);
    }
    held_.clear();
  }

private:
  void failed(std::size_t done, int err) {
    // The file ends inside a line unless nothing, or everything up to a newline, was written.
    if (done > 0) torn_ = held_[done - 1] != '\n';
    const std::size_t lost = static_cast<std::size_t>(std::count(held_.begin() + static_cast<std::ptrdiff_t>(done), held_.end(), '\n'));
    const std::string why = err ? std::string(std::strerror(err)) : std::string("nothing more was written");
    const std::string what = "writing " + path_ + " failed (" + why + ") after " + std::to_string(done) + " of " +
                             std::to_string(held_.size()) + " bytes: " + std::to_string(lost) + " trace line(s) lost";
    mark_trace_incomplete(dir_, what);
    if (failing_) return; // one line on stderr per run of failures
    failing_ = true;
    std::cerr << "warning W-TRC-003: " << what << "; mur trace show will say the trace is incomplete. Fix: free space on "
              << "the file system that holds " << dir_ << " (df -h)\n" << std::flush;
  }

  static constexpr std::size_t held_limit = 64 * 1024;
  std::string dir_, path_;
  TraceWriteFn write_;
  UniqueFd fd_;
  std::string held_;
  bool torn_ = false;    // the file ends in a line a failed write cut
  bool failing_ = false; // the last flush failed (its W-TRC-003 is said)
};

} // namespace

TraceSink trace_file_sink(const SessionDir& dir, TraceWriteFn write) {
  auto file = std::make_shared<TraceFile>(dir, std::move(write));
  return TraceSink(
    [file](const std::string& line) {
      file->write(line);
    },
    [file] { file->flush(); },
    [dir = dir.path](const std::string& bytes) { write_trace_blob(dir, bytes); });
}

std::string result_text(const TaskView& t) {
  if (t.state == TaskState::completed) return t.answer;
  if (t.no_answer) return "no answer: " + t.status_text;
  return "error: " + (t.status_text.empty() ? "the task ended " + state_word(t.state) : t.status_text);
}

ResultFile::ResultFile(const SessionDir& dir) : path_(dir.result_path) {}

void ResultFile::write(const TaskView& task) {
  if (!fd_.valid()) fd_ = UniqueFd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd_.valid()) return; // the session dir was checked at start; a vanished one loses only this file
  const std::string text = result_text(task);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd_.get(), text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
  if (text.size() < size_) (void)::ftruncate(fd_.get(), static_cast<off_t>(text.size()));
  size_ = text.size();
}

} // namespace mur
