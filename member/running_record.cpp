#include "member/running_record.hpp"

#include "capsule/murmur_home.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/process_start.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {

using json = nlohmann::ordered_json;

std::string running_dir() { return murmur_home() + "/running"; }

namespace {

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink((path + ".tmp").c_str());
      throw Failure("E-RUN-048", "cannot write " + path + " (" + std::strerror(errno) + ")",
                    "check that $MURMUR_HOME/running is writable");
    }
    off += static_cast<std::size_t>(n);
  }
}

std::optional<RunningRecord> parse(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    RunningRecord r;
    r.session_id = j.at("session_id").get<std::string>();
    r.pid = j.at("pid").get<std::int64_t>();
    r.process_start = j.value("process_start", "");
    r.url = j.value("url", "");
    r.capsule_name = j.value("capsule_name", "");
    r.capsule_version = j.value("capsule_version", "");
    r.workdir = j.value("workdir", "");
    r.formation_id = j.value("formation_id", "");
    r.formation_member = j.value("formation_member", "");
    r.formation_lifeline = j.value("formation_lifeline", false);
    if (j.contains("formation_launcher") && j["formation_launcher"].is_object()) {
      const auto& l = j["formation_launcher"];
      LauncherIdentity id;
      id.pid = l.value("pid", std::int64_t{0});
      id.process_start = l.value("process_start", "");
      if (id.pid > 0 && !id.process_start.empty()) r.formation_launcher = id;
    }
    r.spawned_by = j.value("spawned_by", "");
    r.started_at = j.value("started_at", std::int64_t{0});
    if (j.contains("operator_token") && j["operator_token"].is_string())
      r.operator_token = DoorToken::adopt(j["operator_token"].get<std::string>());
    if (j.contains("credential_tokens") && j["credential_tokens"].is_object())
      for (const auto& [name, token] : j["credential_tokens"].items())
        if (token.is_string()) r.credential_tokens.emplace_back(name, DoorToken::adopt(token.get<std::string>()));
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

} // namespace

void write_running_record(const RunningRecord& r) {
  const std::string dir = running_dir();
  make_private_dirs(dir);
  ::chmod(dir.c_str(), 0700);
  json j;
  j["session_id"] = r.session_id;
  j["pid"] = r.pid;
  j["process_start"] = r.process_start;
  j["url"] = r.url;
  j["capsule_name"] = r.capsule_name;
  j["capsule_version"] = r.capsule_version;
  j["workdir"] = r.workdir;
  if (!r.formation_id.empty()) {
    j["formation_id"] = r.formation_id;
    j["formation_member"] = r.formation_member;
    j["formation_lifeline"] = r.formation_lifeline;
    if (r.formation_launcher)
      j["formation_launcher"] = {{"pid", r.formation_launcher->pid},
                                 {"process_start", r.formation_launcher->process_start}};
  }
  if (!r.spawned_by.empty()) j["spawned_by"] = r.spawned_by;
  j["started_at"] = r.started_at;
  if (r.operator_token) j["operator_token"] = r.operator_token->expose();
  if (!r.credential_tokens.empty()) {
    json creds = json::object();
    for (const auto& [name, token] : r.credential_tokens) creds[name] = token.expose();
    j["credential_tokens"] = creds;
  }
  std::string text = j.dump() + "\n";
  write_private_file(running_file(r.session_id), text);
  sodium_memzero(text.data(), text.size());
}

void write_private_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    throw Failure("E-RUN-048", "cannot create " + path + " (" + std::strerror(errno) + ")",
                  "check that $MURMUR_HOME/running is writable");
  ::fchmod(fd, 0600);
  write_all(fd, text, path);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Failure("E-RUN-048", "cannot place " + path, "check that $MURMUR_HOME/running is writable");
  }
}

std::optional<RunningRecord> read_running_record(const std::string& session_id) {
  if (!ids::is_valid(session_id, ids::session)) return std::nullopt;
  std::ifstream in(running_file(session_id));
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto r = parse(text);
  if (!text.empty()) sodium_memzero(text.data(), text.size());
  return r;
}

std::string running_file(const std::string& id) { return running_dir() + "/" + id + ".json"; }

std::vector<std::string> running_ids(const std::string& prefix) {
  std::vector<std::string> ids;
  if (DIR* d = ::opendir(running_dir().c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0 && n.rfind(prefix, 0) == 0)
        ids.push_back(n.substr(0, n.size() - 5));
    }
    ::closedir(d);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool process_is_live(std::int64_t pid, const std::string& process_start) {
  if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) return false;
  return process_start_of(static_cast<pid_t>(pid)) == process_start;
}

std::vector<RunningRecord> list_running_records() {
  std::vector<RunningRecord> out;
  for (const auto& n : running_ids("ses_"))
    if (auto r = read_running_record(n)) out.push_back(std::move(*r));
  return out;
}

void remove_running_record(const std::string& session_id) {
  if (ids::is_valid(session_id, ids::session)) ::unlink(running_file(session_id).c_str());
}

bool record_is_live(const RunningRecord& r) { return process_is_live(r.pid, r.process_start); }

} // namespace mur
