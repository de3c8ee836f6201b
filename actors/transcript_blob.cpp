#include "actors/transcript_blob.hpp"

#include "messages/vocabulary/text_cut.hpp"

#include <nlohmann/json.hpp>

namespace mur {
namespace {

using json = nlohmann::json;

std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json message_json(const TranscriptMessage& m, int& cut) {
  auto text = [&](std::string s) {
    if (cut_to(s, answer_cap, answer_cut_marker)) ++cut;
    return s;
  };
  json out{{"role", to_string(m.role)}, {"content", text(m.content)}};
  if (m.role == TranscriptRole::assistant) {
    json calls = json::array();
    for (const auto& c : m.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", text(c.arguments)}});
    out["tool_calls"] = std::move(calls);
  }
  if (m.role == TranscriptRole::tool) out["tool_call_id"] = m.tool_call_id;
  return out;
}

} // namespace

std::string transcript_blob(const std::string& task_id, const std::string& member, const Transcript& transcript,
                            std::size_t cap) {
  int cut = 0;
  std::vector<std::string> parts; // each message, dumped
  std::size_t total = 0;
  for (const auto& m : transcript) {
    parts.push_back(dumped(message_json(m, cut)));
    total += parts.back().size() + 1;
  }
  // The head, "messages":[] and the count's digits: a bound on what is not a message.
  const std::size_t frame = dumped(json{{"task_id", task_id}, {"member", member}}).size() + 96;
  // Oldest first after the system message (index 0), never the last.
  std::size_t left_out = 0, from = parts.size() > 1 ? 1 : parts.size();
  while (frame + total > cap && from + 1 < parts.size()) {
    total -= parts[from].size() + 1;
    parts[from].clear();
    ++from, ++left_out;
  }
  std::string out = dumped(json{{"task_id", task_id}, {"member", member}, {"texts_cut", cut}, {"messages_left_out", left_out}});
  out.pop_back(); // the closing brace: the messages follow
  out += ",\"messages\":[";
  bool first = true;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!first) out += ',';
    out += p;
    first = false;
  }
  out += "]}";
  return out;
}

} // namespace mur
