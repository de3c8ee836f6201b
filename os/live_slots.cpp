// live_slots.cpp — see live_slots.hpp.
#include "os/live_slots.hpp"

#include "messages/wire/live_slot.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mur {
namespace {

std::runtime_error failed(const std::string& what, int err) {
  return std::runtime_error(what + " (" + std::strerror(err) + ")");
}

} // namespace

void make_live_ledger(const std::string& dir, LiveLimit limit) {
  if (limit.members < 1 || limit.max_live < limit.members || limit.max_live > max_live_limit)
    throw std::runtime_error("the live ledger's limit is out of range");
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) throw failed("the live ledger could not be made", errno);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw std::runtime_error("the live ledger's path is not a directory");
  const std::string tmp = dir + "/limit.json.tmp";
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) throw failed("the live ledger's limit could not be written", errno);
  const std::string text = nlohmann::json{{"max_live", limit.max_live}, {"members", limit.members}}.dump() + "\n";
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw failed("the live ledger's limit could not be written", errno);
  fd.reset();
  if (std::rename(tmp.c_str(), (dir + "/limit.json").c_str()) != 0)
    throw failed("the live ledger's limit could not be written", errno);
}

LiveSlots LiveSlots::open(const std::string& dir) {
  std::ifstream in(dir + "/limit.json");
  if (!in) throw std::runtime_error("the formation's live ledger could not be read");
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  auto number = [&](const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<long long>() : -1LL;
  };
  const long long max_live = number("max_live"), members = number("members");
  if (members < 1 || max_live < members || max_live > max_live_limit)
    throw std::runtime_error("the formation's live ledger is damaged");
  LiveSlots s;
  s.dir_ = dir;
  s.limit_ = LiveLimit{static_cast<int>(max_live), static_cast<int>(members)};
  return s;
}

std::optional<UniqueFd> LiveSlots::take() const {
  for (int i = 0; i < limit_.max_live - limit_.members; ++i) {
    const std::string path = dir_ + "/slot-" + std::to_string(i);
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) throw failed("a slot of the formation's live ledger could not be opened", errno);
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno != EWOULDBLOCK) throw failed("a slot of the formation's live ledger could not be locked", errno);
  }
  return std::nullopt;
}

} // namespace mur
