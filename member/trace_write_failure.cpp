// trace_write_failure.cpp — see trace_write_failure.hpp.
#include "member/trace_write_failure.hpp"

#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace mur {

std::string trace_incomplete_path(const std::string& session_dir) { return session_dir + "/trace.incomplete"; }

void mark_trace_incomplete(const std::string& session_dir, const std::string& what) {
  const std::string path = trace_incomplete_path(session_dir);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  const std::string line = what + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

std::string trace_write_failure(const std::string& session_dir) {
  std::ifstream in(trace_incomplete_path(session_dir));
  if (!in) return "";
  std::string line;
  std::getline(in, line);
  if (line.size() > 400) line.resize(400);
  return line.empty() ? "a write of the trace failed" : line;
}

} // namespace mur
