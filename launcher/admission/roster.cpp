#include "launcher/admission/roster.hpp"

#include "capsule/capsule_names.hpp"
#include "capsule/limits_section.hpp"
#include "capsule/yaml_reader.hpp"
#include "messages/vocabulary/failure.hpp"

#include <sys/stat.h>

namespace mur {
namespace {

using yaml::Value;
const char* const roster_fix = "correct roster.yaml (see the roster section of the README)";
constexpr std::int64_t max_restarts = 100; // restarts within one window

// A member's `restart: {max, within_secs}` (none: max 0, its death ends the formation).
RestartPolicy parse_restart(const Value& member) {
  RestartPolicy p;
  auto r = member.get("restart");
  if (!r) return p;
  if (!r->is_map()) r->fail("must be a mapping", "write restart: {max: 3, within_secs: 60}");
  r->expect_map({"max", "within_secs"});
  p.max = static_cast<int>(r->require("max").integer(1, max_restarts));
  if (auto w = r->get("within_secs")) p.within = std::chrono::seconds(w->integer(1, 86'400));
  return p;
}

RosterMember parse_member(const Value& raw) {
  raw.expect_map({"name", "capsule", "version", "path", "entry", "host", "restart"});
  RosterMember m;
  Value name = raw.require("name");
  m.name = name.string();
  if (auto p = names::member_name_problem(m.name))
    name.fail("'" + m.name + "' " + *p, "name members with ^[a-z][a-z0-9-]{0,31}$");
  Value v = raw.about("(member '" + m.name + "')");
  if (auto path = v.get("path")) { // a capsule folder, installed by admission when its bytes changed
    m.path = path->string();
    if (v.get("capsule") || v.get("version"))
      path->fail_with("E-ROS-012",
                      "names the capsule by its folder, and capsule:/version: name an installed one too",
                      "keep either path: (a capsule folder, installed by mur run and mur doctor whenever it changed) "
                      "or capsule: and version: (an exact installed capsule), not both");
    if (auto h = v.get("host"))
      path->fail_with("E-ROS-012",
                      "names a folder on this machine, but the member runs on host '" + h->text() +
                        "', which runs only what is installed there",
                      "install the folder there (mur install --host " + h->text() + " " + m.path +
                        ") and name it with capsule: and version: instead of path:");
    if (auto e = v.get("entry")) m.entry = e->boolean();
    m.restart = parse_restart(v);
    return m;
  }
  Value capsule = v.require("capsule");
  m.capsule = capsule.string();
  if (auto p = names::capsule_name_problem(m.capsule))
    capsule.fail("'" + m.capsule + "' " + *p, "give the capsule's name as its murmur.yaml spells it");
  Value version = v.require("version");
  m.version = version.text();
  if (auto p = names::version_problem(m.version))
    version.fail(*p, "pin the exact installed version, e.g. version: 1.0.0");
  if (auto e = v.get("entry")) m.entry = e->boolean();
  if (auto h = v.get("host")) m.host = h->string();
  m.restart = parse_restart(v);
  return m;
}

RosterHost parse_host(const std::string& name, const Value& raw) {
  RosterHost h;
  h.name = name;
  if (auto p = names::member_name_problem(name))
    raw.fail("host '" + name + "' " + *p, "name hosts as members are named: ^[a-z][a-z0-9-]{0,31}$");
  raw.expect_map({"address", "key"});
  Value address = raw.require("address");
  h.address = address.string();
  const auto split = split_host_port(h.address);
  if (!split)
    address.fail("'" + h.address + "' is not HOST:PORT", "write the address mur host listens on, e.g. 10.0.0.2:7420");
  h.host = split->host;
  h.port_text = split->port_text;
  h.port = split->port;
  h.key = raw.require("key").string();
  return h;
}

ReachabilityRule parse_rule(const Value& raw) {
  raw.expect_map({"from", "to"});
  ReachabilityRule r;
  r.from = raw.require("from").string();
  Value to = raw.require("to");
  if (!to.is_seq()) to.fail("must be a list of member names", "write to: [name, …]");
  r.to = to.strings();
  if (r.to.empty()) to.fail("is empty", "list at least one member, or remove the rule");
  for (const auto& t : r.to)
    if (t == r.from)
      to.fail("lists '" + r.from + "', the rule's own from", "a member never calls itself; remove it");
  return r;
}

} // namespace

std::optional<HostPort> split_host_port(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  HostPort hp{text.substr(0, colon), text.substr(colon + 1), 0};
  if (hp.host.size() > 2 && hp.host.front() == '[' && hp.host.back() == ']') hp.host = hp.host.substr(1, hp.host.size() - 2);
  bool digits = !hp.port_text.empty() && hp.port_text.size() <= 5;
  for (char c : hp.port_text) digits = digits && c >= '0' && c <= '9';
  if (hp.host.empty() || !digits) return std::nullopt;
  hp.port = std::stoi(hp.port_text);
  if (hp.port < 1 || hp.port > 65535) return std::nullopt;
  return hp;
}

RosterLocation locate_roster(const std::string& arg) {
  const std::string path = arg.empty() ? std::string(".") : arg;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::string dir = path;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return {dir, dir + "/roster.yaml"};
  }
  const std::string leaf = "roster.yaml";
  const auto slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base != leaf)
    throw Failure("E-ROS-001", path + ": is neither a directory nor a file named roster.yaml",
                  "give the formation's project directory or its roster.yaml");
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  return {dir, path};
}

Roster parse_roster(const std::string& text, const std::string& label) {
  const yaml::Origin origin{label, "E-ROS-001", roster_fix};
  Value top(yaml::load_text(text, origin), "", &origin);
  if (top.is_null()) top.fail("is empty", "declare roster_version: 1 and members");
  top.expect_map({"roster_version", "hosts", "members", "reachability", "allow_cycles", "limits"});

  Value version = top.require("roster_version");
  if (!version.is_scalar() || version.node().Tag() != "?" || version.text() != "1")
    version.fail("must be the number 1", "write roster_version: 1 (unquoted)");

  Roster r;
  if (auto hosts = top.get("hosts")) {
    if (!hosts->is_map()) hosts->fail("must be a mapping of host names to {address, key}");
    for (const auto& [name, h] : hosts->entries()) r.hosts.push_back(parse_host(name, h));
  }
  Value members = top.require("members");
  if (!members.is_seq()) members.fail("must be a list of members");
  for (const auto& m : members.items()) r.members.push_back(parse_member(m));
  if (r.members.empty()) members.fail("is empty", "declare at least one member, the entry member");

  if (auto reach = top.get("reachability")) {
    if (reach->is_scalar()) {
      if (reach->text() != "all")
        reach->fail("'" + reach->text() + "' is not a reachability rule",
                    "write reachability: all, or a list of {from, to} rules");
      r.reach_all = true;
    } else if (reach->is_seq()) {
      for (const auto& rule : reach->items()) r.rules.push_back(parse_rule(rule));
    } else {
      reach->fail("must be 'all' or a list of {from, to} rules");
    }
  }
  if (auto cycles = top.get("allow_cycles")) r.chain_rule.allow_cycles = cycles->boolean();
  if (auto limits = top.get("limits")) {
    limits->expect_map({"max_depth", "max_live", MUR_SPEND_LIMIT_KEYS});
    r.spend = read_spend_limits(*limits);
    if (auto depth = limits->get("max_depth")) r.chain_rule.max_depth = static_cast<int>(depth->integer(1, max_chain_length));
    if (auto live = limits->get("max_live")) r.max_live = static_cast<int>(live->integer(1, max_live_limit));
  }
  return r;
}

Roster load_roster(const RosterLocation& where) {
  const yaml::Origin origin{where.file, "E-ROS-001",
                            "create roster.yaml in the project directory, or point at the right one"};
  Roster r = parse_roster(yaml::read_text_file(where.file, origin), where.file);
  r.project_dir = where.project_dir;
  r.file = where.file;
  return r;
}

} // namespace mur
