#include "capsule/manifest.hpp"
#include "capsule/limits_section.hpp"

#include "capsule/capsule_names.hpp"
#include "capsule/http_inference.hpp"
#include "capsule/yaml_reader.hpp"
#include "messages/vocabulary/duration.hpp"
#include "messages/vocabulary/nearest_word.hpp"
#include "messages/wire/child_spawn.hpp"

#include <algorithm>
#include <fnmatch.h>
#include <cctype>
#include <regex>
#include <sys/stat.h>

namespace mur {
namespace {

using yaml::Value;

const char* const fix_manifest = "correct murmur.yaml (see the manifest section of the README)";

enum class Home { private_dir, real };
constexpr EnumWords<Home, 2> home_words{{{Home::private_dir, "private"}, {Home::real, "real"}}};

// The enum a manifest word names, from the enum's one words table; any other word is refused
// naming every word of the table.
template <class Enum, std::size_t N>
Enum one_of(const Value& v, const EnumWords<Enum, N>& words) {
  const std::string s = v.string();
  if (auto e = value_of(words, s)) return *e;
  std::string list;
  for (const auto& w : words) list += (list.empty() ? "" : ", ") + std::string(w.second);
  v.fail("'" + s + "' is not one of " + list, "use one of " + list);
}

// A turn's `call` or `delegate`: one {<who>: a name, task: a template}, or a non-empty list of
// them; `problem` judges the name, which the refusal calls `what`.
template <class Item>
std::vector<Item> addressed_items(const Value& v, const char* who, std::string Item::*whom,
                                  std::optional<std::string> (*problem)(std::string_view),
                                  const std::string& what, const std::string& plural) {
  auto one = [&](const Value& c) {
    c.expect_map({who, "task"});
    Item item;
    Value named = c.require(who);
    item.*whom = named.string();
    if (auto p = problem(item.*whom)) named.fail("the " + what + " name " + *p);
    item.task = c.require("task").text();
    return item;
  };
  std::vector<Item> out;
  if (!v.is_seq()) return {one(v)};
  for (const auto& c : v.items()) out.push_back(one(c));
  if (out.empty()) v.fail("lists no " + plural, "name at least one {" + std::string(who) + ", task}");
  return out;
}

// A script turn's `use`: one {tool, arguments} or a non-empty list of them.
std::vector<ScriptToolUse> parse_uses(const Value& v) {
  auto one = [](const Value& u) {
    u.expect_map({"tool", "arguments"});
    ScriptToolUse use;
    Value tool = u.require("tool");
    use.tool = tool.string();
    if (use.tool.find("__") == std::string::npos)
      tool.fail("'" + use.tool + "' is not <server>__<tool>", "name a tool of the capsule's tools, e.g. files__read_file");
    nlohmann::json args = nlohmann::json::object();
    if (auto a = u.get("arguments")) {
      if (!a->is_map()) a->fail("must be a mapping", "write the tool's arguments as a mapping");
      args = yaml_as_json(*a);
    }
    use.arguments = args.dump();
    return use;
  };
  std::vector<ScriptToolUse> out;
  if (!v.is_seq()) return {one(v)};
  for (const auto& u : v.items()) out.push_back(one(u));
  if (out.empty()) v.fail("lists no tool uses", "name at least one {tool, arguments}");
  return out;
}

ScriptTurn parse_turn(const Value& v) {
  v.expect_map({"call", "delegate", "use", "ask", "reply", "end_without_answer", "think_ms", "fail"});
  ScriptTurn t;
  if (auto c = v.get("call"))
    t.calls = addressed_items(*c, "member", &ScriptCall::member, names::member_name_problem, "member", "calls");
  if (auto d = v.get("delegate"))
    t.delegations = addressed_items(*d, "capsule", &ScriptDelegation::capsule, names::capsule_name_problem,
                                    "capsule", "delegations");
  if (auto u = v.get("use")) t.uses = parse_uses(*u);
  if (auto a = v.get("ask")) t.ask = a->string();
  if (auto r = v.get("reply")) t.reply = r->text();
  if (auto e = v.get("end_without_answer")) t.end_without_answer = e->string();
  if (auto f = v.get("fail")) t.fail = f->string();
  if (auto ms = v.get("think_ms")) t.think_ms = ms->integer(0, 86'400'000);
  const int endings = (t.reply ? 1 : 0) + (t.end_without_answer ? 1 : 0) + (t.fail ? 1 : 0);
  if (endings > 1)
    v.fail_with("E-MAN-003", "holds more than one of reply, end_without_answer and fail",
                "keep one way for this turn to end the task");
  if (endings == 1 && (!t.calls.empty() || !t.delegations.empty() || !t.uses.empty() || t.ask))
    v.fail_with("E-MAN-003", "both calls (delegates or uses a tool) and ends the task in the same turn",
                "put the call in one turn and the reply in the next");
  if (endings == 0 && t.calls.empty() && t.delegations.empty() && t.uses.empty() && !t.ask)
    v.fail("neither calls a member, delegates, uses a tool, asks nor ends the task",
           "give the turn a call, delegate, use, ask, reply, end_without_answer or fail");
  return t;
}

std::vector<ScriptTurn> parse_turns(const Value& v) {
  std::vector<ScriptTurn> turns;
  for (const auto& t : v.items()) turns.push_back(parse_turn(t));
  return turns;
}

// The largest {n} / {n,m} a script route's `match` may hold: the standard library builds a
// regular expression by copying the repeated part that many times (and overflows on a count
// of 19 digits), so a manifest could otherwise take any amount of memory, or worse.
constexpr long max_regex_repeat = 1000;

// Whether `re` holds a brace count above max_regex_repeat (counted wherever digits follow a
// `{`, escaped or in a class too: refusing those as well costs nothing a route needs).
bool repeats_too_often(const std::string& re) {
  // The digits from `at` on are a count too large (more than 4 digits, or above the bound);
  // `at` moves past them.
  const auto too_large = [&](std::size_t& at) {
    const std::size_t from = at;
    while (at < re.size() && std::isdigit(static_cast<unsigned char>(re[at]))) ++at;
    return at - from > 4 || (at > from && std::stol(re.substr(from, at - from)) > max_regex_repeat);
  };
  for (std::size_t i = 0; i < re.size(); ++i) {
    if (re[i] != '{') continue;
    std::size_t j = i + 1;
    if (too_large(j)) return true;
    if (j < re.size() && re[j] == ',' && too_large(++j)) return true;
  }
  return false;
}

void parse_script(const Value& inf, Inference& out) {
  if (auto routes = inf.get("routes")) {
    for (const auto& r : routes->items()) {
      r.expect_map({"match", "turns"});
      ScriptRoute route;
      Value m = r.require("match");
      route.match = m.text();
      if (repeats_too_often(route.match))
        m.fail("repeats a part more than " + std::to_string(max_regex_repeat) +
                   " times ({n} or {n,m}): the regular expression would be built that large",
               "use a count of at most " + std::to_string(max_regex_repeat) + ", or + and * for \"any number\"");
      try {
        std::regex re(route.match, std::regex::ECMAScript);
      } catch (const std::regex_error&) {
        m.fail("is not a valid regular expression", "write an ECMAScript regular expression");
      }
      route.turns = parse_turns(r.require("turns"));
      out.routes.push_back(std::move(route));
    }
  }
  if (auto turns = inf.get("turns")) out.turns = parse_turns(*turns);
}

Inference parse_inference(const Value& inf) {
  inf.expect_map({"transport", "turns", "routes", "max_turns", "endpoint", "model", "api_key",
                  "system_prompt", "system_prompt_file", "max_tokens", "temperature", "stream",
                  "request_timeout_secs", "params", "command", "env", "turn_timeout_secs",
                  "allow_insecure_http", "price"});
  Inference out;
  if (auto t = inf.get("transport"))
    out.transport = one_of(*t, transport_words);
  if (auto mt = inf.get("max_turns")) out.max_turns = static_cast<int>(mt->integer(1, 10'000));

  auto refuse_foreign = [&](std::vector<const char*> keys, const char* transport) {
    for (const char* k : keys)
      if (auto v = inf.get(k))
        v->fail_with("E-MAN-003",
                     std::string("does not apply to transport: ") + transport,
                     "remove it, or choose the transport it belongs to");
  };
  switch (out.transport) {
  case Transport::script:
    refuse_foreign(http_only_inference_keys(), "script");
    refuse_foreign({"system_prompt", "system_prompt_file", "command", "env", "turn_timeout_secs"}, "script");
    parse_script(inf, out);
    break;
  case Transport::http:
    refuse_foreign({"turns", "routes", "command", "env", "turn_timeout_secs"}, "http");
    parse_http_inference(inf, out);
    break;
  case Transport::process: {
    refuse_foreign({"turns", "routes"}, "process");
    refuse_foreign(http_only_inference_keys(), "process");
    Value cmd = inf.require("command");
    out.command = cmd.strings();
    if (out.command.empty()) cmd.fail("is an empty list", "give the program and its arguments");
    if (auto sp = inf.get("system_prompt")) out.system_prompt = sp->text();
    if (auto spf = inf.get("system_prompt_file"))
      spf->fail_with("E-MAN-003", "does not apply to transport: process",
                     "use system_prompt, or choose transport: http");
    if (auto tt = inf.get("turn_timeout_secs")) out.turn_timeout_secs = static_cast<int>(tt->integer(1, 86'400));
    if (auto env = inf.get("env")) out.env = parse_env_map(*env);
    break;
  }
  }
  return out;
}

Lifecycle parse_lifecycle(const Value& v) {
  v.expect_map({"task_acceptance", "queue_depth", "after_task", "delegation_deadline_secs", "retain_tasks",
                "input_timeout_secs", "conversation"});
  Lifecycle l;
  if (auto c = v.get("conversation")) l.conversation = one_of(*c, conversation_words);
  if (auto t = v.get("input_timeout_secs")) l.input_timeout_secs = static_cast<int>(t->integer(1, 7 * 86'400));
  if (auto a = v.get("task_acceptance"))
    l.task_acceptance = one_of(*a, task_acceptance_words);
  if (auto d = v.get("queue_depth")) {
    l.queue_depth = static_cast<int>(d->integer(0, 10'000));
    if (l.task_acceptance != TaskAcceptance::queue)
      d->fail_with("E-MAN-003", "is set but task_acceptance is not queue",
                   "set lifecycle.task_acceptance: queue, or remove queue_depth");
  }
  if (auto a = v.get("after_task"))
    l.after_task = one_of(*a, after_task_words);
  if (auto d = v.get("delegation_deadline_secs"))
    l.delegation_deadline_secs = static_cast<int>(d->integer(1, 7 * 86'400));
  if (auto r = v.get("retain_tasks")) {
    r->expect_map({"max", "max_age"});
    auto n = r->get("max");
    auto a = r->get("max_age");
    if (!n && !a) r->fail("is empty", "give max, max_age or both, or remove lifecycle.retain_tasks");
    if (n) l.retain_tasks_max = static_cast<int>(n->integer(1, 1'000'000));
    if (a) {
      auto parsed = parse_duration(a->text());
      if (auto* err = std::get_if<DurationError>(&parsed))
        a->fail("is not a duration: " + err->why, std::string(duration_forms));
      l.retain_tasks_max_age = std::get<std::chrono::milliseconds>(parsed);
      if (l.retain_tasks_max_age.count() == 0) a->fail("must be longer than zero", std::string(duration_forms));
    }
  } else if (v.node()["retain_tasks"].IsDefined()) {
    v.fail("retain_tasks is empty", "give max, max_age or both, or remove lifecycle.retain_tasks");
  }
  return l;
}

void parse_network_allow(const Value& v, std::vector<std::string>& out) {
  static const std::regex entry(
    R"(^((https?)://)?([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$)");
  for (const auto& item : v.items()) {
    std::string s = item.string();
    if (!std::regex_match(s, entry))
      item.fail_with("E-CAP-001", "'" + s + "' is not host, host:port or http(s)://host[:port]",
                     "write a host such as localhost, with no path or query");
    out.push_back(s);
  }
}

// capabilities.spawn.allow: each entry `name@version`, an exact version, never `self`, no name twice.
void parse_spawn_allow(const Value& v, const std::string& self, std::vector<CapsuleRef>& out) {
  const char* const form = "write each entry as <capsule>@<exact version>, e.g. helper@1.0.0";
  std::vector<Value> items = v.items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Value& item = items[i];
    const std::string s = item.string();
    const auto at = s.find('@');
    if (at == std::string::npos || at == 0 || at + 1 == s.size())
      item.fail("'" + s + "' is not <capsule>@<version>", form);
    CapsuleRef ref{s.substr(0, at), s.substr(at + 1)};
    if (auto p = names::capsule_name_problem(ref.name))
      item.fail("'" + s + "': the capsule name '" + ref.name + "' " + *p, form);
    if (auto p = names::version_problem(ref.version))
      item.fail("'" + s + "': the version '" + ref.version + "' " + *p,
                "pin the exact version the capsule is installed at, e.g. " + ref.name + "@1.0.0 (see mur list)");
    if (ref.name == self)
      item.fail("'" + s + "' names this capsule itself; a capsule may not delegate to itself",
                "remove the entry");
    for (std::size_t j = 0; j < out.size(); ++j)
      if (out[j].name == ref.name)
        item.fail("'" + s + "' names the capsule '" + ref.name + "' again (capabilities.spawn.allow[" +
                    std::to_string(j) + "] is '" + out[j].text() +
                    "'); a delegation names its child by capsule name, so each may be listed once",
                  "keep one entry for " + ref.name);
    out.push_back(std::move(ref));
  }
}

// A script turn's `delegate` names a capsule of capabilities.spawn.allow (E-MAN-003).
// A script turn's `ask:` needs capabilities.ask_operator: without it the tool is not offered.
void check_script_asks(const Manifest& m, const std::string& label) {
  if (m.ask_operator) return;
  auto asks = [](const std::vector<ScriptTurn>& turns) {
    return std::any_of(turns.begin(), turns.end(), [](const ScriptTurn& t) { return t.ask.has_value(); });
  };
  bool any = asks(m.inference.turns);
  for (const auto& r : m.inference.routes) any = any || asks(r.turns);
  if (any)
    throw Failure("E-MAN-003", label + ": a script turn asks the operator (ask:) but capabilities.ask_operator is not true",
                  "set capabilities.ask_operator: true, or remove the ask");
}

void check_script_delegations(const Manifest& m, const std::string& label) {
  auto check = [&](const std::vector<ScriptTurn>& turns, const std::string& where) {
    for (std::size_t i = 0; i < turns.size(); ++i) {
      const auto& ds = turns[i].delegations;
      const std::string at = label + ": " + where + "[" + std::to_string(i) + "].delegate";
      if (ds.size() > max_children_at_once)
        throw Failure("E-MAN-003",
                      at + ": " + std::to_string(ds.size()) + " delegations in one turn, but at most " +
                        std::to_string(max_children_at_once) + " run at once: the rest would be refused",
                      "delegate to at most " + std::to_string(max_children_at_once) +
                        " capsules in a turn, and to the others in a later turn");
      for (std::size_t a = 0; a < ds.size(); ++a)
        for (std::size_t b = a + 1; b < ds.size(); ++b)
          if (ds[a].capsule == ds[b].capsule)
            throw Failure("E-MAN-003",
                          at + "[" + std::to_string(b) + "]: '" + ds[b].capsule +
                            "' again in the same turn: one delegation per capsule may be out at a time, so the second would be refused",
                          "give " + ds[b].capsule + " the whole task once, or delegate to it again in a later turn");
      for (const auto& d : ds) {
        const bool listed = std::any_of(m.spawn_allow.begin(), m.spawn_allow.end(),
                                        [&](const CapsuleRef& r) { return r.name == d.capsule; });
        if (!listed)
          throw Failure("E-MAN-003",
                        label + ": " + where + "[" + std::to_string(i) + "].delegate: '" + d.capsule +
                          "' is not listed in capabilities.spawn.allow, so this capsule may not delegate to it",
                        "add " + d.capsule + "@<its exact version> to capabilities.spawn.allow, or delegate to a listed capsule");
      }
      for (const auto& u : turns[i].uses) {
        const std::string server = u.tool.substr(0, u.tool.find("__"));
        const bool declared = std::any_of(m.tools.begin(), m.tools.end(),
                                          [&](const ToolServerSpec& t) { return t.name == server; });
        if (!declared)
          throw Failure("E-MAN-003",
                        label + ": " + where + "[" + std::to_string(i) + "].use: '" + u.tool +
                          "' names no tool server of this capsule ('" + server + "' is not in tools)",
                        "declare the server under tools, or use one of its tools");
      }
    }
  };
  check(m.inference.turns, "inference.turns");
  for (std::size_t r = 0; r < m.inference.routes.size(); ++r)
    check(m.inference.routes[r].turns, "inference.routes[" + std::to_string(r) + "].turns");
}

Authentication parse_authentication(const Value& v) {
  v.expect_map({"scheme", "credentials"});
  Authentication a;
  if (auto s = v.get("scheme")) {
    a.scheme = s->string();
    if (a.scheme != "bearer") s->fail("'" + a.scheme + "' is not a supported scheme", "use scheme: bearer");
  }
  if (auto creds = v.get("credentials")) {
    static const std::regex name_re("^[a-z0-9][a-z0-9_-]{0,63}$");
    for (const auto& [name, body] : creds->entries()) {
      if (!std::regex_match(name, name_re))
        body.fail("the credential name '" + name + "' may hold only a-z, 0-9, '_' and '-' (max 64)",
                  "rename the credential");
      if (name == "operator")
        body.fail("'operator' is the runtime's own credential", "choose another name");
      body.expect_map({"scopes"});
      DeclaredCredential c{name, {}};
      Value scopes = body.require("scopes");
      for (const auto& s : scopes.items()) {
        const std::string scope = s.string();
        const auto method = door_method_named(scope);
        if (!method) {
          std::string list;
          for (const auto& k : DoorScopes::all().words()) list += (list.empty() ? "" : ", ") + k;
          s.fail("'" + scope + "' is not a door method", "use some of " + list);
        }
        c.scopes.add(*method);
      }
      if (c.scopes.empty()) scopes.fail("is empty", "list the door methods this credential reaches");
      a.credentials.push_back(std::move(c));
    }
  }
  return a;
}

Retention parse_retention(const Value& v) {
  v.expect_map({"max_sessions", "max_age"});
  Retention r;
  if (auto s = v.get("max_sessions")) r.max_sessions = static_cast<int>(s->integer(1, 1'000'000));
  if (auto a = v.get("max_age")) {
    auto parsed = parse_duration(a->text());
    if (auto* err = std::get_if<DurationError>(&parsed))
      a->fail("is not a duration: " + err->why, std::string(duration_forms));
    auto ms = std::get<std::chrono::milliseconds>(parsed);
    if (ms.count() == 0) a->fail("must be longer than zero", std::string(duration_forms));
    r.max_age = ms;
  }
  if (!r.max_sessions && !r.max_age)
    v.fail("is empty", "give max_sessions, max_age or both, or remove trace.retain");
  return r;
}

// trace.capture: none, meta or content; another word is refused naming the nearest one.
TraceCapture parse_capture(const Value& v) {
  const std::string word = v.string();
  if (auto c = value_of(trace_capture_words, word)) return *c;
  std::vector<std::string> words;
  for (const auto& w : trace_capture_words) words.emplace_back(w.second);
  const std::string near = nearest_word(word, words);
  v.fail("'" + word + "' is not one of none, meta, content" + (near.empty() ? "" : " (did you mean '" + near + "'?)"),
         near.empty() ? "write capture: meta (the default), content (also each task's transcript) or none"
                      : "write capture: " + near);
}

// install.exclude: a list of globs (fnmatch) of relative paths; one without '/' names any file or
// folder by its name, one with '/' a path from the capsule folder. A folder matched is left out
// whole. It may not leave out a file the manifest names (murmur.yaml, a prompt file, a program).
std::vector<std::string> parse_install_exclude(const Value& v, const Manifest& m) {
  std::vector<std::string> out = v.strings();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::string& g = out[i];
    if (g.empty() || g.front() == '/' || g.find("..") != std::string::npos)
      v.fail("[" + std::to_string(i) + "]: '" + g + "' is not a relative glob inside the capsule folder",
             "write a name such as __pycache__ or a path such as node_modules/.cache");
    for (const auto& named : m.files())
      if (install_excludes({g}, named))
        v.fail("[" + std::to_string(i) + "]: '" + g + "' would leave out " + named + ", which this manifest names",
               "narrow the glob so that " + named + " is installed");
  }
  return out;
}

} // namespace

bool install_excludes(const std::vector<std::string>& globs, const std::string& rel) {
  std::vector<std::string> paths; // each folder above `rel`, then `rel`
  for (std::size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1))
    paths.push_back(rel.substr(0, slash));
  paths.push_back(rel);
  for (const auto& g : globs) {
    const bool by_name = g.find('/') == std::string::npos;
    for (const auto& p : paths) {
      const std::size_t slash = p.rfind('/');
      const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
      if (::fnmatch(g.c_str(), (by_name ? name : p).c_str(), by_name ? 0 : FNM_PATHNAME) == 0) return true;
    }
  }
  return false;
}

std::string to_string(TaskAcceptance a) { return word_of(task_acceptance_words, a); }
std::string to_string(AfterTask a) { return word_of(after_task_words, a); }
std::string to_string(Transport t) { return word_of(transport_words, t); }
std::optional<TaskAcceptance> parse_task_acceptance(std::string_view word) { return value_of(task_acceptance_words, word); }
std::optional<AfterTask> parse_after_task(std::string_view word) { return value_of(after_task_words, word); }

int Manifest::tasks_held_at_once() const {
  switch (lifecycle.task_acceptance) {
  case TaskAcceptance::none: return 0;
  case TaskAcceptance::single: return 1;
  case TaskAcceptance::queue: return lifecycle.queue_depth == 0 ? 0 : lifecycle.queue_depth + 1;
  }
  return 0;
}

bool Manifest::allows_localhost() const {
  return std::find(network_allow.begin(), network_allow.end(), "localhost") != network_allow.end();
}

std::vector<std::string> Manifest::files() const {
  std::vector<std::string> out{"murmur.yaml"};
  if (!inference.system_prompt_file.empty()) out.push_back(inference.system_prompt_file);
  return out;
}

Manifest parse_manifest(const std::string& text, const std::string& label) {
  const yaml::Origin origin{label, "E-MAN-002", fix_manifest};
  const yaml::Origin file_origin{label, "E-MAN-001", fix_manifest};
  Value top(yaml::load_text(text, file_origin), "", &origin);
  if (top.is_null()) top.fail_with("E-MAN-001", "is empty", "write at least name and version");
  top.expect_map({"name", "version", "description", "inference", "lifecycle", "exports",
                  "capabilities", "network", "trace", "install", "tools", "limits"});
  Manifest m;
  Value name = top.require("name");
  m.name = name.string();
  if (auto p = names::capsule_name_problem(m.name)) name.fail("'" + m.name + "' " + *p, "rename the capsule");
  Value version = top.require("version");
  m.version = version.text();
  if (auto p = names::version_problem(m.version)) version.fail(*p, "pin an exact version such as 1.0.0");
  if (auto d = top.get("description")) m.description = d->text();
  if (auto inf = top.get("inference")) m.inference = parse_inference(*inf);
  else m.inference.turns = {ScriptTurn{{}, std::string("{{task}}"), {}, {}, 0}}; // the echo script
  if (auto l = top.get("lifecycle")) m.lifecycle = parse_lifecycle(*l);
  if (auto l = top.get("limits")) {
    l->expect_map({MUR_SPEND_LIMIT_KEYS, "max_depth"});
    m.limits = read_spend_limits(*l);
    if (auto d = l->get("max_depth")) m.max_depth = static_cast<int>(d->integer(1, max_chain_length));
  }
  if (auto e = top.get("exports")) {
    e->expect_map({"peer_tasks"});
    if (auto pt = e->get("peer_tasks")) {
      pt->expect_map({"accept"});
      if (auto a = pt->get("accept")) m.accepts_peer_tasks = a->boolean();
    }
  }
  if (auto c = top.get("capabilities")) {
    c->expect_map({"network", "spawn", "ask_operator", "home", "limits"});
    if (auto l = c->get("limits")) {
      l->expect_map({"memory_mib", "pids", "cpu_percent", "open_files"});
      if (auto v = l->get("memory_mib")) m.resources.memory_mib = v->integer(16, 1'048'576);
      if (auto v = l->get("pids")) m.resources.pids = v->integer(8, 4'194'304);
      if (auto v = l->get("cpu_percent")) m.resources.cpu_percent = v->integer(1, 100'000);
      if (auto v = l->get("open_files")) m.resources.open_files = v->integer(16, 1'048'576);
    }
    if (auto a = c->get("ask_operator")) m.ask_operator = a->boolean();
    if (auto h = c->get("home")) m.real_home = one_of(*h, home_words) == Home::real;
    if (auto n = c->get("network")) {
      n->expect_map({"allow"});
      if (auto a = n->get("allow")) parse_network_allow(*a, m.network_allow);
    }
    if (auto sp = c->get("spawn")) {
      sp->expect_map({"allow"});
      if (auto a = sp->get("allow")) parse_spawn_allow(*a, m.name, m.spawn_allow);
    }
  }
  if (auto n = top.get("network")) {
    n->expect_map({"authentication"});
    if (auto a = n->get("authentication")) m.authentication = parse_authentication(*a);
    else if (n->node()["authentication"].IsDefined())
      n->fail("authentication is empty", "write authentication: {scheme: bearer}");
  }
  if (auto t = top.get("trace")) {
    t->expect_map({"retain", "capture"});
    if (auto r = t->get("retain")) m.retain = parse_retention(*r);
    else if (t->node()["retain"].IsDefined())
      t->fail("retain is empty", "give max_sessions, max_age or both, or remove trace.retain");
    if (auto c = t->get("capture")) m.capture = parse_capture(*c);
  }
  if (auto i = top.get("install")) {
    i->expect_map({"exclude"});
    if (auto x = i->get("exclude")) m.install_exclude = parse_install_exclude(*x, m);
  }
  if (auto t = top.get("tools")) m.tools = parse_tool_servers(*t);
  check_script_delegations(m, label);
  check_script_asks(m, label);
  return m;
}

namespace {
void check_capsule_program(const std::string& dir, const std::string& what, const std::string& program);
} // namespace

Manifest load_manifest_dir(const std::string& dir) {
  const std::string path = dir + "/murmur.yaml";
  const yaml::Origin file_origin{path, "E-MAN-001",
                                 "point at a capsule folder that holds a murmur.yaml"};
  Manifest m = parse_manifest(yaml::read_text_file(path, file_origin), path);
  if (!m.inference.system_prompt_file.empty()) {
    struct stat st {};
    const std::string f = dir + "/" + m.inference.system_prompt_file;
    if (::stat(f.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      throw Failure("E-MAN-002",
                    path + ": inference.system_prompt_file: '" + m.inference.system_prompt_file +
                      "' is not a readable file in the capsule folder",
                    "create the file or correct the path");
  }
  if (m.inference.transport == Transport::process)
    check_capsule_program(dir, path + ": inference.command[0]", m.inference.command.front());
  for (std::size_t i = 0; i < m.tools.size(); ++i)
    if (!m.tools[i].command.empty())
      check_capsule_program(dir, path + ": tools[" + std::to_string(i) + "].command[0]", m.tools[i].command.front());
  m.folder = dir;
  return m;
}

namespace {

// A program named with a '/' and not absolute is a file of the capsule; a bare name is one
// when the folder holds it, else it is looked up on PATH at launch (capsule/harness_program).
void check_capsule_program(const std::string& dir, const std::string& what, const std::string& program) {
  {
    if (program.find('/') != std::string::npos && program.front() != '/') {
      const std::string where = what + ": '" + program + "'";
      std::string part;
      for (std::size_t i = 0; i <= program.size(); ++i) {
        if (i < program.size() && program[i] != '/') { part += program[i]; continue; }
        if (part == "..")
          throw Failure("E-MAN-002", where + " leaves the capsule folder",
                        "put the program inside the capsule folder and name it from there, e.g. ./bin/agent");
        part.clear();
      }
      struct stat st {};
      const std::string f = dir + "/" + program;
      if (::stat(f.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw Failure("E-MAN-002", where + " is not a file in the capsule folder",
                      "create it there, correct the path, or name a program on PATH without a '/'");
      if ((st.st_mode & 0111) == 0)
        throw Failure("E-MAN-002", where + " is not executable",
                      "chmod +x it (with a #! line naming its interpreter)");
    }
  }
}

} // namespace

} // namespace mur
