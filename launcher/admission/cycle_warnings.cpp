// cycle_warnings.cpp — see cycle_warnings.hpp.
#include "launcher/admission/cycle_warnings.hpp"

#include "messages/vocabulary/comma_list.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <variant>

namespace mur {
namespace {

std::string path_words(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : " \u2192 ") + p;
  return out;
}

// Depth-first from `node`, `on_path` the nodes of the current path in order.
bool visit(const std::string& node, const std::function<std::vector<std::string>(const std::string&)>& next,
           std::vector<std::string>& on_path, std::set<std::string>& done, std::vector<std::string>& cycle) {
  on_path.push_back(node);
  for (const auto& to : next(node)) {
    auto at = std::find(on_path.begin(), on_path.end(), to);
    if (at != on_path.end()) {
      cycle.assign(at, on_path.end());
      cycle.push_back(to);
      return true;
    }
    if (done.count(to)) continue;
    if (visit(to, next, on_path, done, cycle)) return true;
  }
  on_path.pop_back();
  done.insert(node);
  return false;
}

} // namespace

std::optional<std::vector<std::string>> find_cycle(
    const std::vector<std::string>& roots, const std::function<std::vector<std::string>(const std::string&)>& next) {
  std::set<std::string> done;
  for (const auto& r : roots) {
    if (done.count(r)) continue;
    std::vector<std::string> on_path, cycle;
    if (visit(r, next, on_path, done, cycle)) return cycle;
  }
  return std::nullopt;
}

std::optional<Warning> call_cycle_warning(const Admission& a) {
  if (a.roster.chain_rule.allow_cycles) return std::nullopt;
  std::map<std::string, std::vector<std::string>> out;
  std::vector<std::string> roots;
  for (const auto& m : a.members) roots.push_back(m.declared.name);
  for (const auto& e : a.edges) out[e.from].push_back(e.to);
  auto cycle = find_cycle(roots, [&](const std::string& n) { return out.count(n) ? out.at(n) : std::vector<std::string>{}; });
  if (!cycle) return std::nullopt;
  return Warning{"W-ROS-004",
                 "the roster lets calls go round (" + path_words(*cycle) + "): a call to a member already waiting "
                 "further up its chain is refused at run time (call_refused, cause cycle)",
                 "remove one of those reachability rules, or set allow_cycles: true (and limits.max_depth) in "
                 "roster.yaml if members should call back up their chain"};
}

std::optional<Warning> spawn_cycle_warning(const Manifest& m, const StoreRoots& stores, const std::string& who) {
  // Nodes are name@version; the root is the capsule itself, the others resolve from the stores.
  const std::string root = m.name + "@" + m.version;
  std::map<std::string, std::vector<std::string>> memo;
  auto allow_of = [](const Manifest& x) {
    std::vector<std::string> names;
    for (const auto& c : x.spawn_allow) names.push_back(c.name + "@" + c.version);
    return names;
  };
  memo[root] = allow_of(m);
  auto next = [&](const std::string& node) -> std::vector<std::string> {
    if (auto it = memo.find(node); it != memo.end()) return it->second;
    std::vector<std::string> found;
    const auto at = node.rfind('@');
    auto resolved = resolve_capsule(stores, node.substr(0, at), node.substr(at + 1));
    if (auto* r = std::get_if<ResolvedCapsule>(&resolved)) found = allow_of(r->manifest);
    memo[node] = found;
    return found;
  };
  auto cycle = find_cycle({root}, next);
  if (!cycle) return std::nullopt;
  return Warning{"W-ROS-005",
                 who + ": delegation can go round (" + path_words(*cycle) + "): each round starts another child "
                 "process, until the delegation depth limit (3) refuses the next",
                 "remove the capsule that leads back from capabilities.spawn.allow of one of " +
                   comma_list(std::vector<std::string>(cycle->begin(), cycle->end() - 1)) + " and reinstall it"};
}

} // namespace mur
