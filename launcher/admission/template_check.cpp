#include "launcher/admission/template_check.hpp"

#include "capsule/manifest.hpp"
#include "messages/vocabulary/failure.hpp"

namespace mur {
namespace {

bool known(const std::string& key) {
  return key == "task" || key == "member" || key == "answers" || key == "tool_results" || key == "history" ||
         key == "history_count" || (key.rfind("answer.", 0) == 0 && key.size() > 7);
}

void check_text(const std::string& text, const std::string& label, const std::string& path) {
  std::size_t at = 0;
  while (true) {
    const std::size_t open = text.find("{{", at);
    if (open == std::string::npos) return;
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) return; // no placeholder: the text is sent as written
    const std::string key = text.substr(open + 2, close - open - 2);
    if (!known(key))
      throw Failure(template_code, label + ": " + path + ": unknown placeholder {{" + key + "}}",
                    std::string("use one of ") + known_placeholders + " (NAME: a member this capsule calls)");
    at = close + 2;
  }
}

void check_turns(const std::vector<ScriptTurn>& turns, const std::string& label, const std::string& at) {
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const std::string p = at + "[" + std::to_string(i) + "]";
    const ScriptTurn& t = turns[i];
    for (std::size_t c = 0; c < t.calls.size(); ++c)
      check_text(t.calls[c].task, label,
                 p + (t.calls.size() == 1 ? std::string(".call") : ".call[" + std::to_string(c) + "]") + ".task");
    if (t.reply) check_text(*t.reply, label, p + ".reply");
    if (t.end_without_answer) check_text(*t.end_without_answer, label, p + ".end_without_answer");
    if (t.fail) check_text(*t.fail, label, p + ".fail");
  }
}

} // namespace

void check_templates(const Manifest& m, const std::string& label) {
  if (m.inference.transport != Transport::script) return;
  check_turns(m.inference.turns, label, "inference.turns");
  for (std::size_t r = 0; r < m.inference.routes.size(); ++r)
    check_turns(m.inference.routes[r].turns, label, "inference.routes[" + std::to_string(r) + "].turns");
}

} // namespace mur
