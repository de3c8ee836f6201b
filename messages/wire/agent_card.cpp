#include "messages/wire/agent_card.hpp"

#include "messages/vocabulary/door_method.hpp"

namespace mur::a2a {

using json = nlohmann::json;

std::vector<std::string> card_methods(const CardFacts& f) {
  std::vector<DoorMethod> served;
  if (f.takes_tasks) served = {DoorMethod::send_message, DoorMethod::send_streaming_message};
  for (DoorMethod m : {DoorMethod::get_task, DoorMethod::list_tasks, DoorMethod::cancel_task, DoorMethod::subscribe_to_task})
    served.push_back(m);
  if (f.authenticated) {
    served.push_back(DoorMethod::session_stop);
    served.push_back(DoorMethod::get_extended_agent_card);
  }
  std::vector<std::string> words;
  for (DoorMethod m : served) words.push_back(to_string(m));
  return words;
}

json agent_card(const CardFacts& f, bool extended) {
  json extensions = json::array();
  extensions.push_back({{"uri", door_extension_uri},
                        {"description", "Murmur door: the session behind this card and the methods it serves"},
                        {"required", false},
                        {"params", {{"sessionId", f.session_id}, {"methods", card_methods(f)},
                                    {"peerTasks", f.accepts_peer_tasks}}}});
  if (f.authenticated)
    extensions.push_back({{"uri", call_extension_uri},
                          {"description", "Murmur call tree: a formation call's message names the members above it "
                                          "(metadata.murmur.chain); a call that would loop is refused before it is sent"},
                          {"required", false}});
  if (extended || !f.authenticated)
    extensions.push_back({{"uri", capsule_extension_uri},
                          {"description", "Murmur capsule: which capsule this session runs"},
                          {"required", false},
                          {"params", {{"sessionId", f.session_id}, {"capsule", f.capsule_name},
                                      {"version", f.capsule_version}}}});
  json skill{{"id", "task"},
             {"name", "Run a task"},
             {"description", "Runs one task given as a text message and reports its outcome."},
             {"tags", json::array({"task"})}};
  if (f.authenticated)
    skill["securityRequirements"] = json::array({{{"schemes", {{"bearer", {{"list", json::array({to_string(DoorMethod::send_message)})}}}}}}});
  json card{{"name", f.capsule_name},
            {"description", f.description.empty() ? "Murmur capsule " + f.capsule_name + " " + f.capsule_version : f.description},
            {"version", f.capsule_version},
            {"supportedInterfaces",
             json::array({{{"url", f.url}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", "1.0"}}})},
            {"capabilities",
             {{"streaming", f.takes_tasks}, {"pushNotifications", false}, {"extendedAgentCard", f.authenticated},
              {"extensions", extensions}}},
            {"defaultInputModes", json::array({"text/plain", "application/json"})},
            {"defaultOutputModes", json::array({"text/plain", "application/json"})},
            {"skills", f.takes_tasks ? json::array({skill}) : json::array()}};
  if (f.authenticated) {
    card["securitySchemes"] = {{"bearer", {{"httpAuthSecurityScheme", {{"scheme", "Bearer"}, {"bearerFormat", "mdt1"}}}}}};
    card["securityRequirements"] = json::array({{{"schemes", {{"bearer", {{"list", json::array()}}}}}}});
  } else {
    card["securitySchemes"] = json::object();
    card["securityRequirements"] = json::array();
  }
  return card;
}

std::string card_session_id(const json& card) {
  if (!card.is_object() || !card.contains("capabilities") || !card["capabilities"].is_object()) return {};
  const json& caps = card["capabilities"];
  if (!caps.contains("extensions") || !caps["extensions"].is_array()) return {};
  for (const auto& e : caps["extensions"])
    if (e.is_object() && e.value("uri", "") == door_extension_uri && e.contains("params") &&
        e["params"].is_object() && e["params"].contains("sessionId") && e["params"]["sessionId"].is_string())
      return e["params"]["sessionId"].get<std::string>();
  return {};
}

} // namespace mur::a2a
