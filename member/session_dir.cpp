#include "member/session_dir.hpp"

#include "os/unique_fd.hpp"
#include "messages/failure.hpp"

#include <cerrno>
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
                  "pass --workdir with a directory you can write to");
}

} // namespace

SessionDir make_session_dir(const std::string& workdir, const std::string& session_id) {
  SessionDir d;
  make_dir(workdir);
  make_dir(workdir + "/.murmur");
  d.path = workdir + "/.murmur/" + session_id;
  make_dir(d.path);
  make_dir(d.path + "/out");
  make_dir(d.path + "/logs");
  d.trace_path = d.path + "/trace.jsonl";
  d.result_path = d.path + "/out/result.txt";
  return d;
}

namespace {

// trace.jsonl, appended in whole lines: lines gather in memory and reach the file in one
// write(2) per flush, when 64 KiB have gathered, when the recorder asks, and when it is dropped.
class TraceFile {
public:
  explicit TraceFile(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) {
    if (!fd_.valid())
      throw Failure("E-RUN-007", "cannot open " + path + " for writing (" + std::strerror(errno) + ")",
                    "pass --workdir with a writable directory");
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
    std::size_t done = 0;
    while (done < held_.size()) {
      const ssize_t n = ::write(fd_.get(), held_.data() + done, held_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break; // a full disk: the lines are lost, the session goes on
      done += static_cast<std::size_t>(n);
    }
    held_.clear();
  }

private:
  static constexpr std::size_t held_limit = 64 * 1024;
  UniqueFd fd_;
  std::string held_;
};

} // namespace

TraceSink trace_file_sink(const SessionDir& dir) {
  auto file = std::make_shared<TraceFile>(dir.trace_path);
  return TraceSink(
    [file](const std::string& line) {
      file->write(line);
    },
    [file] { file->flush(); });
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
