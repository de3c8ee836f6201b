#include "member/session_dir.hpp"

#include "messages/failure.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sys/stat.h>

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

std::function<void(const std::string&)> trace_file_sink(const SessionDir& dir,
                                                        std::function<void(const std::string&)> observe) {
  auto out = std::make_shared<std::ofstream>(dir.trace_path, std::ios::app);
  if (!*out)
    throw Failure("E-RUN-007", "cannot open " + dir.trace_path + " for writing", "pass --workdir with a writable directory");
  return [out, observe = std::move(observe)](const std::string& line) {
    *out << line << '\n';
    out->flush();
    if (observe) observe(line);
  };
}

std::string result_text(const TaskView& t) {
  if (t.state == TaskState::completed) return t.answer;
  if (t.no_answer) return "no answer: " + t.status_text;
  return "error: " + (t.status_text.empty() ? "the task ended " + state_word(t.state) : t.status_text);
}

void write_result(const SessionDir& dir, const TaskView& task) {
  std::ofstream out(dir.result_path, std::ios::trunc);
  out << result_text(task);
}

} // namespace mur
