#include "launcher/base/cli_words.hpp"

#include "messages/vocabulary/duration.hpp"
#include "messages/vocabulary/terminal_text.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace mur {

namespace {

std::string command_path(const CLI::App* app) {
  std::string path;
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

// The option of `app` (or of a parent, for --help/--version) that answers to `name`.
const CLI::Option* option_named(const CLI::App* app, const std::string& name) {
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* o : a->get_options())
      if (o->nonpositional() && o->check_name(name)) return o;
    if (a != app) break; // only the direct parent's --help/--version are inherited
  }
  return nullptr;
}

std::vector<std::string> visible_flags(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app->get_options()) {
    if (o->get_group().empty()) continue; // hidden
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
    for (const auto& s : o->get_snames()) out.push_back("-" + s);
  }
  return out;
}

std::vector<std::string> command_names(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; })) out.push_back(s->get_name());
  return out;
}

std::string listed(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

} // namespace

void check_words(CLI::App& top, int argc, char** argv) {
  const CLI::App* app = &top;
  for (int i = 1; i < argc; ++i) {
    const std::string tok = argv[i];
    if (tok == "--") return;
    if (tok.size() > 1 && tok[0] == '-' && !(tok[1] >= '0' && tok[1] <= '9')) {
      const std::string name = tok.substr(0, tok.find('='));
      const CLI::Option* o = option_named(app, name);
      if (o == nullptr) {
        const std::string near = nearest_word(name, visible_flags(app));
        throw UsageError("E-CLI-001",
                         "unknown flag '" + name + "' for " + command_path(app) +
                           (near.empty() ? "" : " \xE2\x80\x94 did you mean '" + near + "'?"),
                         near.empty() ? "see " + command_path(app) + " --help for its flags"
                                      : "use " + near + " (see " + command_path(app) + " --help)");
      }
      if (tok.find('=') == std::string::npos && o->get_items_expected_min() > 0 && i + 1 < argc) ++i;
      continue;
    }
    const auto commands = command_names(app);
    if (commands.empty()) continue; // a positional argument
    const auto found = std::find(commands.begin(), commands.end(), tok);
    if (found == commands.end()) {
      const std::string near = nearest_word(tok, commands);
      throw UsageError("E-CLI-001",
                       "unknown command '" + tok + "'" + (app == &top ? "" : " for " + command_path(app)) +
                         (near.empty() ? "" : " \xE2\x80\x94 did you mean '" + near + "'?"),
                       near.empty() ? "the commands are: " + listed(commands) + " (see " + command_path(app) + " --help)"
                                    : "use " + command_path(app) + " " + near + " (see " + command_path(app) + " --help)");
    }
    for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; }))
      if (s->get_name() == tok) app = s;
  }
}

void print_failure(const Failure& f, bool json, std::ostream& out, std::ostream& err) {
  if (json) {
    out << nlohmann::json{{"error", {{"code", f.code()}, {"message", f.message()}, {"fix", f.fix()}}}}.dump() << "\n";
    out.flush();
    return;
  }
  err << terminal_safe(f.render()); // a message may quote what a model or a program said
}

std::optional<std::chrono::milliseconds> duration_flag(const std::string& flag, const std::string& text,
                                                       const std::string& zero_why, const std::string& zero_fix) {
  if (text.empty()) return std::nullopt;
  auto d = parse_duration(text);
  if (auto* err = std::get_if<DurationError>(&d))
    throw UsageError("E-CLI-003", flag + " is not a duration: " + err->why, "give " + std::string(duration_forms));
  const auto ms = std::get<std::chrono::milliseconds>(d);
  if (ms.count() == 0) throw UsageError("E-CLI-003", flag + " 0 " + zero_why, zero_fix);
  return ms;
}

} // namespace mur
