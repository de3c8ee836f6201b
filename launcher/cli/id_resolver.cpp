// id_resolver.cpp — see id_resolver.hpp.
#include "launcher/cli/id_resolver.hpp"

#include "capsule/murmur_home.hpp"
#include "http/a2a_json.hpp"
#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"
#include "launcher/base/door_target.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "launcher/base/launcher_record.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace mur {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t prefix_len = 4;  // "frm_"
constexpr std::size_t hex_len = 32;
constexpr std::size_t listed_at_most = 10;

bool all_hex(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string lowered(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// The kind prefix `word` starts with when the argument takes that kind ("" when none).
std::string accepted_prefix(const std::string& word, IdKinds kinds) {
  const std::pair<std::string_view, bool> kinds_taken[] = {
    {ids::formation, kinds.formation}, {ids::session, kinds.session}, {ids::task, kinds.task}};
  for (const auto& [prefix, taken] : kinds_taken)
    if (taken && word.rfind(prefix, 0) == 0) return std::string(prefix);
  return "";
}

bool is_whole(const std::string& word, IdKinds kinds) {
  return (kinds.formation && ids::is_valid(word, ids::formation)) || (kinds.session && ids::is_valid(word, ids::session)) ||
         (kinds.task && ids::is_valid(word, ids::task));
}

// "formation or session", "task", …: what the argument names.
std::string kind_words(IdKinds kinds) {
  std::vector<std::string> w;
  if (kinds.formation) w.push_back("formation");
  if (kinds.session) w.push_back("session");
  if (kinds.task) w.push_back("task");
  std::string out;
  for (std::size_t i = 0; i < w.size(); ++i) out += (i == 0 ? "" : i + 1 == w.size() ? " or " : ", ") + w[i];
  return out;
}

// The first line of a session's trace names its formation ("" outside one).
std::string traced_formation(const fs::path& session_dir) {
  std::ifstream in(session_dir / "trace.jsonl");
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto doc = nlohmann::json::parse(line, nullptr, false);
  if (!doc.is_object() || !doc.contains("formation_id") || !doc["formation_id"].is_string()) return "";
  return doc["formation_id"].get<std::string>();
}

// The `ses_…` directories under `dir`.
std::vector<fs::path> session_dirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (ids::is_valid(it->path().filename().string(), ids::session)) out.push_back(it->path());
  return out;
}

// Every task the live doors hold (asked with each running record's operator token).
std::vector<std::string> held_tasks(const std::vector<RunningRecord>& live) {
  std::vector<std::string> out;
  CurlPool pool;
  for (const auto& rec : live) {
    if (!rec.operator_token) continue;
    const DoorTarget door{rec.url, rec.operator_token, rec.session_id, rec.formation_id, rec.workdir};
    DoorRequest list;
    list.method = DoorMethod::list_tasks;
    list.page_size = 100;
    for (int page = 0; page < 100; ++page) {
      const HttpOutcome w = call_door(pool, door, a2a::request_json("resolve-tasks", list));
      if (w.status == 0) break;
      const DoorReply r = a2a::door_reply_from(w.status, w.body);
      if (!r.ok()) break;
      for (const auto& t : r.tasks) out.push_back(t.id);
      if (r.next_page_token.empty()) break;
      list.page_token = r.next_page_token;
    }
  }
  return out;
}

// The ids `typed` could mean, looked for where `scope` says.
KnownIds gather(IdKinds kinds, IdScope scope, bool want_tasks) {
  KnownIds k;
  std::vector<RunningRecord> live;
  for (auto& rec : list_running_records())
    if (record_is_live(rec)) live.push_back(std::move(rec));
  // `last`: formations and the sessions outside one, or (an argument that takes sessions only) every session.
  const bool lone_sessions_only = kinds.formation;
  auto add_session = [&](const std::string& id, bool in_formation) {
    k.ids.push_back(id);
    if (!lone_sessions_only || !in_formation) k.lasts.push_back(id);
  };
  if (kinds.formation) {
    for (const auto& rec : list_launcher_records())
      if (launcher_is_live(rec)) {
        k.ids.push_back(rec.formation_id);
        k.lasts.push_back(rec.formation_id);
      }
    if (scope == IdScope::traced) {
      std::error_code ec;
      for (fs::directory_iterator it(formations_root(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (ids::is_valid(name, ids::formation)) {
          k.ids.push_back(name);
          k.lasts.push_back(name);
        }
      }
    }
  }
  if (kinds.session) {
    for (const auto& rec : live) add_session(rec.session_id, !rec.formation_id.empty() || !rec.spawned_by.empty());
    if (scope == IdScope::traced) {
      std::error_code ec;
      for (const auto& root : {fs::current_path(ec) / ".murmur", fs::path(murmur_home()) / "sessions"})
        for (const auto& dir : session_dirs(root)) add_session(dir.filename().string(), !traced_formation(dir).empty());
      for (fs::directory_iterator f(formations_root(), ec), end; !ec && f != end; f.increment(ec)) {
        std::error_code ec2;
        for (fs::directory_iterator m(f->path(), ec2), mend; !ec2 && m != mend; m.increment(ec2))
          for (const auto& dir : session_dirs(m->path() / ".murmur")) add_session(dir.filename().string(), true);
      }
    }
  }
  if (kinds.task && want_tasks)
    for (auto& id : held_tasks(live)) k.ids.push_back(std::move(id));
  return k;
}

std::string listed(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < listed_at_most; ++i) out += "\n  " + ids[i];
  if (ids.size() > listed_at_most) out += "\n  … and " + std::to_string(ids.size() - listed_at_most) + " more";
  return out;
}

} // namespace

IdMatch match_id(const std::string& typed, IdKinds kinds, const KnownIds& known) {
  IdMatch m;
  m.id = typed;
  const std::string word = lowered(typed);
  if (word == "last") {
    if (known.lasts.empty()) {
      m.kind = IdMatch::Kind::none;
      return m;
    }
    // Ids are UUIDv7: the hex after the kind prefix sorts by the millisecond each was minted.
    m.id = *std::max_element(known.lasts.begin(), known.lasts.end(), [](const std::string& a, const std::string& b) {
      return a.substr(prefix_len) < b.substr(prefix_len);
    });
    m.kind = IdMatch::Kind::found;
    return m;
  }
  if (is_whole(word, kinds)) {
    m.id = word;
    return m; // passed: the command says whether it names anything
  }
  const std::string prefix = accepted_prefix(word, kinds);
  const bool with_kind = !prefix.empty() && word.size() < prefix_len + hex_len && all_hex(word.substr(prefix_len));
  const bool bare = prefix.empty() && !word.empty() && word.size() <= hex_len && all_hex(word);
  if (!with_kind && !bare) return m; // a URL, another kind's id, …: the command's own checks
  std::set<std::string> found;
  for (const auto& id : known.ids) {
    if (id.size() != prefix_len + hex_len || accepted_prefix(id, kinds).empty()) continue;
    if (with_kind ? id.rfind(word, 0) == 0 : id.compare(prefix_len, word.size(), word) == 0) found.insert(id);
  }
  m.matches.assign(found.begin(), found.end());
  if (found.empty()) m.kind = IdMatch::Kind::none;
  else if (found.size() == 1) m.kind = IdMatch::Kind::found, m.id = *found.begin();
  else m.kind = IdMatch::Kind::ambiguous;
  return m;
}

std::string resolve_id(const std::string& typed, IdKinds kinds, IdScope scope) {
  const std::string word = lowered(typed);
  // Tasks are asked of the doors only when the word could name one: a tsk_ prefix, or bare hex.
  const bool want_tasks = kinds.task && word != "last" && (word.rfind(ids::task, 0) == 0 || all_hex(word));
  IdMatch m;
  if (word == "last" || !is_whole(word, kinds)) m = match_id(typed, kinds, gather(kinds, scope, want_tasks));
  else m.id = word;
  const std::string where = scope == IdScope::running ? "running " : "";
  const std::string look = scope == IdScope::running ? "list what runs with mur ps"
                                                     : "list what ran with mur trace list (in the project directory), what runs with mur ps";
  switch (m.kind) {
  case IdMatch::Kind::passed:
  case IdMatch::Kind::found: return m.id;
  case IdMatch::Kind::ambiguous: {
    const bool only_tasks = std::all_of(m.matches.begin(), m.matches.end(),
                                        [](const std::string& id) { return id.rfind(ids::task, 0) == 0; });
    throw Failure("E-ID-001", "'" + typed + "' is the start of " + std::to_string(m.matches.size()) + " ids:" + listed(m.matches),
                  std::string("type more of the id, enough to name only one of them") +
                    (only_tasks ? "" : " (or last for the newest formation or session)"));
  }
  case IdMatch::Kind::none:
  default:
    if (word == "last") {
      IdKinds lasting = kinds;
      lasting.task = false;
      throw Failure("E-ID-002", "last names nothing: there is no " + where + kind_words(lasting), look);
    }
    throw Failure("E-ID-002", "'" + typed + "' is the start of no " + where + kind_words(kinds) + " id", look + "; copy an id from there");
  }
}

} // namespace mur
