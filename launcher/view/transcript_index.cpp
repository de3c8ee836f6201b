#include "launcher/view/transcript_index.hpp"

#include "launcher/traces/trace_fields.hpp"
#include "messages/vocabulary/sha256.hpp"
#include "os/unique_fd.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {
namespace {

bool lower_hex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

} // namespace

TranscriptIndex transcript_index(const std::vector<SessionEvents>& sessions, const std::vector<std::string>& dirs) {
  using trace_fields::str;
  TranscriptIndex out;
  for (std::size_t i = 0; i < sessions.size() && i < dirs.size(); ++i)
    for (const auto& e : sessions[i].events) {
      const std::string type = str(e, "event_type"), task = str(e, "task_id");
      if (task.empty() || (type != "task_start" && type != "task_end")) continue;
      TranscriptEntry& t = out[task];
      if (type != "task_end") continue;
      t.ended = true;
      const std::string sha = str(e, "transcript_sha256");
      if (lower_hex64(sha)) t.blob_path = dirs[i] + "/blobs/" + sha;
    }
  return out;
}

std::optional<std::string> read_transcript_blob(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st{};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::size_t>(st.st_size) > max_blob_bytes)
    return std::nullopt;
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    done += static_cast<std::size_t>(n);
  }
  const std::string name = path.substr(path.rfind('/') + 1);
  if (sha256_hex(bytes) != name) return std::nullopt;
  return bytes;
}

} // namespace mur
