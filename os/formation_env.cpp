#include "os/formation_env.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"

namespace mur {

namespace {

bool blank(const char* v) {
  if (v == nullptr) return true;
  for (std::string_view s(v); !s.empty(); s.remove_prefix(1))
    if (s.front() != ' ' && s.front() != '\t' && s.front() != '\n' && s.front() != '\r')
      return false;
  return true;
}

[[noreturn]] void bad_fd(const char* var, const std::string& why) {
  const bool spawner = std::string_view(var) == SPAWNER_LIFELINE_ENV;
  throw Failure("E-RUN-046", std::string(var) + " " + why,
                std::string("only ") + (spawner ? "a delegating member" : "`mur run --roster`") + " sets " +
                    std::string(var) + "; unset it to run this capsule on its own");
}

enum class FdKind { Channel, Lifeline };

int checked_fd(const char* var, const char* text, FdKind kind) {
  std::string_view s(text);
  if (s.empty() || s.size() > 9) bad_fd(var, "is not a file descriptor number");
  int fd = 0;
  for (char c : s) {
    if (c < '0' || c > '9') bad_fd(var, "is not a file descriptor number (digits only)");
    fd = fd * 10 + (c - '0');
  }
  if (fd < 3) bad_fd(var, "names standard input, output or error, not an inherited pipe");
  int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0) bad_fd(var, "names a file descriptor that is not open");
  // Close-on-exec first, so nothing this process starts inherits it.
  if (::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) bad_fd(var, "could not be made close-on-exec");
  struct stat st {};
  if (::fstat(fd, &st) != 0) bad_fd(var, "names a file descriptor that cannot be inspected");
  const int mode = ::fcntl(fd, F_GETFL) & O_ACCMODE;
  const bool fifo = S_ISFIFO(st.st_mode);
  if (kind == FdKind::Lifeline || !S_ISREG(st.st_mode)) {
    if (!fifo) bad_fd(var, "names a file descriptor that is not a pipe");
    if (mode != O_RDONLY) bad_fd(var, "names the write end of a pipe, not the read end");
  } else if (mode != O_RDONLY && mode != O_RDWR) {
    bad_fd(var, "names a file that is not open for reading");
  }
  return fd;
}

} // namespace

std::optional<FormationEnv> read_formation_env(
    const std::function<const char*(const char*)>& lookup) {
  const char* id = lookup(FORMATION_ID_ENV);
  const char* channel = lookup(FORMATION_CHANNEL_ENV);
  const char* lifeline = lookup(FORMATION_LIFELINE_ENV);
  if (blank(id)) {
    if (!blank(channel) || !blank(lifeline))
      throw Failure("E-RUN-046",
                    "MURMUR_FORMATION_CHANNEL or MURMUR_FORMATION_LIFELINE is set without "
                    "MURMUR_FORMATION_ID",
                    "only `mur run --roster` sets these; unset them");
    return std::nullopt;
  }
  if (!ids::is_valid(id, ids::formation))
    throw Failure("E-RUN-044", "MURMUR_FORMATION_ID is set but is not frm_ + 32 lowercase hex",
                  "unset MURMUR_FORMATION_ID; `mur run --roster` sets it for its members");
  FormationEnv env;
  env.formation_id = id;
  if (!blank(channel)) env.channel_fd = checked_fd(FORMATION_CHANNEL_ENV, channel, FdKind::Channel);
  if (!blank(lifeline))
    env.lifeline_fd = checked_fd(FORMATION_LIFELINE_ENV, lifeline, FdKind::Lifeline);
  return env;
}

std::optional<int> read_spawner_lifeline(const std::function<const char*(const char*)>& lookup) {
  const char* v = lookup(SPAWNER_LIFELINE_ENV);
  if (blank(v)) return std::nullopt;
  return checked_fd(SPAWNER_LIFELINE_ENV, v, FdKind::Lifeline);
}

std::optional<FormationEnv> read_formation_env_once() {
  static std::atomic<bool> read{false};
  if (read.exchange(true))
    throw Failure("E-RUN-046", "the formation environment was read twice",
                  "this is a bug in mur: report it");
  return read_formation_env([](const char* name) -> const char* { return std::getenv(name); });
}

} // namespace mur
