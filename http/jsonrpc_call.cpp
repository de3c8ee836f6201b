#include "http/jsonrpc_call.hpp"
#include "messages/vocabulary/cancel_confirm.hpp"
#include "messages/vocabulary/iso_time.hpp"

#include "http/a2a_json.hpp"
#include "http/budget_json.hpp"
#include "messages/credentials/formation_token.hpp"
#include "messages/vocabulary/call_chain.hpp"
#include "messages/wire/agent_card.hpp"
#include "messages/credentials/door_scope.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/vocabulary/strict_json.hpp"
#include "messages/vocabulary/trace_context.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace mur::a2a {
namespace {

RpcProblem problem(json id, int code, std::string message, std::string reason = {}, json metadata = json::object()) {
  return RpcProblem{std::move(id), code, std::move(message), std::move(reason), std::move(metadata)};
}

RpcProblem invalid_params(const json& id, const std::string& why) {
  return problem(id, rpc::invalid_params, "Invalid params: " + why);
}

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

bool supported_version(const std::string& v) {
  if (v == "1.0") return true;
  if (v.rfind("1.0.", 0) != 0 || v.size() == 4) return false;
  return std::all_of(v.begin() + 4, v.end(), [](unsigned char c) { return std::isdigit(c); });
}

const char* const push_methods[] = {"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
                                    "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig"};

// A message's parts as one text, or the problem with them.
std::variant<std::string, RpcProblem> message_text(const json& id, const json& parts) {
  if (!parts.is_array() || parts.empty()) return invalid_params(id, "message.parts must be a non-empty array");
  std::string text;
  int index = 0;
  for (const auto& p : parts) {
    const std::string at = "message.parts[" + std::to_string(index) + "]";
    if (!p.is_object()) return invalid_params(id, at + " is not an object");
    int kinds = 0;
    for (const char* k : {"text", "raw", "url", "data"}) kinds += p.contains(k) ? 1 : 0;
    if (kinds != 1) return invalid_params(id, at + " must hold exactly one of text, raw, url, data");
    for (const char* k : {"text", "raw", "url"})
      if (p.contains(k) && !p[k].is_string()) return invalid_params(id, at + "." + k + " must be a string");
    // Structured data: an object or an array (null, numbers, strings and booleans are no data part).
    if (p.contains("data") && !p["data"].is_object() && !p["data"].is_array())
      return invalid_params(id, at + ".data must be an object or an array");
    if (p.contains("metadata") && !p["metadata"].is_object())
      return invalid_params(id, at + ".metadata must be an object");
    ++index;
  }
  index = 0;
  for (const auto& p : parts) {
    if (p.contains("raw") || p.contains("url")) {
      json md{{"partIndex", std::to_string(index)}};
      const json* mt = field(p, "mediaType", "media_type");
      if (mt && mt->is_string()) md["mediaType"] = *mt;
      return problem(id, rpc::content_type_not_supported, "Content type not supported: this door reads text and data parts only",
                     "CONTENT_TYPE_NOT_SUPPORTED", md);
    }
    if (!text.empty()) text += "\n";
    text += p.contains("text") ? p["text"].get<std::string>() : p["data"].dump();
    ++index;
  }
  return text;
}

// The call extension's message metadata (agent_card.hpp): message.metadata.murmur.chain, at most
// 64 member names, .deadlineMs, how long the caller still waits (1 ms to 7 days), and .budget,
// what it may still spend (http/budget_json.hpp).
std::optional<RpcProblem> read_call_metadata(const json& id, const json* message_md, DoorRequest& req) {
  if (!message_md) return std::nullopt;
  // W3C trace context (docs/observability.md): any caller's; one not of the W3C form is ignored.
  if (auto tp = message_md->find("traceparent"); tp != message_md->end() && tp->is_string() &&
                                                 parse_traceparent(tp->get_ref<const std::string&>()))
    req.traceparent = tp->get<std::string>();
  auto murmur = message_md->find("murmur");
  if (murmur == message_md->end()) return std::nullopt;
  if (!murmur->is_object()) return invalid_params(id, "message.metadata.murmur must be an object");
  if (auto d = murmur->find("deadlineMs"); d != murmur->end()) {
    if (!d->is_number_integer() || d->get<std::int64_t>() < 1 || d->get<std::int64_t>() > max_deadline_ms)
      return invalid_params(id, "message.metadata.murmur.deadlineMs must be a whole number of ms from 1 to 604800000");
    req.deadline_ms = d->get<std::int64_t>();
  }
  if (auto b = murmur->find("budget"); b != murmur->end())
    if (auto problem = read_budget(*b, req.budget)) return invalid_params(id, *problem);
  if (auto q = murmur->find("question"); q != murmur->end()) {
    if (!q->is_string() || q->get_ref<const std::string&>().size() > 65536)
      return invalid_params(id, "message.metadata.murmur.question must be a string of at most 64 KiB");
    req.question = q->get<std::string>();
  }
  auto c = murmur->find("chain");
  if (c == murmur->end()) return std::nullopt;
  std::vector<std::string>& chain = req.chain;
  const char* shape = "message.metadata.murmur.chain must be a list of at most 64 member names";
  if (!c->is_array() || c->size() > static_cast<std::size_t>(max_chain_length)) return invalid_params(id, shape);
  for (const auto& name : *c) {
    if (!name.is_string() || !is_member_name(name.get_ref<const std::string&>())) return invalid_params(id, shape);
    chain.push_back(name.get<std::string>());
  }
  return std::nullopt;
}

std::variant<DoorRequest, RpcProblem> send_message_request(const RpcCall& call) {
  const json& id = call.id;
  const json* m = field(call.params, "message", "message");
  if (!m || !m->is_object()) return invalid_params(id, "message must be an object");
  const json* mid = field(*m, "messageId", "message_id");
  if (!mid || !mid->is_string() || mid->get_ref<const std::string&>().empty())
    return invalid_params(id, "message.messageId must be a non-empty string");
  const json* role = field(*m, "role", "role");
  if (!role || !((role->is_string() && *role == "ROLE_USER") || (role->is_number_integer() && *role == 1)))
    return invalid_params(id, "message.role must be ROLE_USER");
  const json* parts = field(*m, "parts", "parts");
  if (!parts) return invalid_params(id, "message.parts must be a non-empty array");
  // String-typed fields are checked before the content type.
  const json* task_id = field(*m, "taskId", "task_id");
  const json* context_id = field(*m, "contextId", "context_id");
  if (task_id && !task_id->is_string()) return invalid_params(id, "message.taskId must be a string");
  if (context_id && !context_id->is_string()) return invalid_params(id, "message.contextId must be a string");
  const json* message_md = field(*m, "metadata", "metadata");
  if (message_md && !message_md->is_object()) return invalid_params(id, "message.metadata must be an object");
  DoorRequest req;
  if (auto problem = read_call_metadata(id, message_md, req)) return *problem;
  if (const json* ext = field(*m, "extensions", "extensions")) {
    if (!ext->is_array()) return invalid_params(id, "message.extensions must be an array of strings");
    for (const auto& e : *ext)
      if (!e.is_string()) return invalid_params(id, "message.extensions must be an array of strings");
  }
  std::vector<std::string> references;
  if (const json* refs = field(*m, "referenceTaskIds", "reference_task_ids")) {
    if (!refs->is_array()) return invalid_params(id, "message.referenceTaskIds must be an array of strings");
    std::set<std::string> distinct;
    for (const auto& r : *refs) {
      if (!r.is_string()) return invalid_params(id, "message.referenceTaskIds must be an array of strings");
      if (distinct.insert(r.get<std::string>()).second) references.push_back(r.get<std::string>());
    }
    if (distinct.size() > 16) return invalid_params(id, "message.referenceTaskIds names more than 16 tasks");
  }
  if (const json* md = field(call.params, "metadata", "metadata"); md && !md->is_object())
    return invalid_params(id, "metadata must be an object");
  auto text = message_text(id, *parts);
  if (auto* p = std::get_if<RpcProblem>(&text)) return *p;
  req.method = call.door_method;
  req.message_id = mid->get<std::string>();
  req.text = std::get<std::string>(text);
  req.reference_task_ids = std::move(references);
  if (context_id) req.context_id = context_id->get<std::string>();
  if (task_id) req.task_id = task_id->get<std::string>();
  if (const json* cfg = field(call.params, "configuration", "configuration")) {
    if (!cfg->is_object()) return invalid_params(id, "configuration must be an object");
    if (const json* ri = field(*cfg, "returnImmediately", "return_immediately")) {
      if (!ri->is_boolean()) return invalid_params(id, "configuration.returnImmediately must be a boolean");
      req.return_immediately = ri->get<bool>();
    }
  }
  return req;
}

std::variant<DoorRequest, RpcProblem> list_tasks_request(const RpcCall& call) {
  const json& id = call.id;
  const json& p = call.params;
  DoorRequest req;
  req.method = call.door_method;
  if (const json* size = field(p, "pageSize", "page_size")) {
    if (!size->is_number_integer() || *size < 1 || *size > 100)
      return invalid_params(id, "pageSize must be an integer from 1 to 100");
    req.page_size = size->get<std::int32_t>();
  }
  if (const json* token = field(p, "pageToken", "page_token")) {
    if (!token->is_string()) return invalid_params(id, "pageToken must be a string");
    req.page_token = token->get<std::string>();
  }
  if (const json* ctx = field(p, "contextId", "context_id")) {
    if (!ctx->is_string()) return invalid_params(id, "contextId must be a string");
    req.filter_context_id = ctx->get<std::string>();
  }
  if (const json* hl = field(p, "historyLength", "history_length"))
    if (!hl->is_number_integer() || *hl < 0) return invalid_params(id, "historyLength must be a non-negative integer");
  if (const json* ia = field(p, "includeArtifacts", "include_artifacts"))
    if (!ia->is_boolean()) return invalid_params(id, "includeArtifacts must be a boolean");
  const json* st = field(p, "status", "status");
  const bool unspecified = st && ((st->is_string() && *st == "TASK_STATE_UNSPECIFIED") ||
                                  (st->is_number_integer() && *st == 0));
  if (st && !unspecified) { // the proto default means "no filter"
    auto state = parse_state(*st);
    if (!state) return invalid_params(id, "status must be a TASK_STATE_* name");
    req.filter_state = to_string(*state);
  }
  if (const json* after = field(p, "statusTimestampAfter", "status_timestamp_after")) {
    auto ms = after->is_string() ? parse_iso_utc_ms(after->get<std::string>()) : std::nullopt;
    if (!ms) return invalid_params(id, "statusTimestampAfter must be an ISO-8601 timestamp such as 2026-01-01T00:00:00Z");
    req.filter_updated_after_ms = *ms;
  }
  return req;
}

std::variant<DoorRequest, RpcProblem> task_id_request(const RpcCall& call) {
  const json* tid = field(call.params, "id", "id");
  if (!tid || !tid->is_string() || tid->get_ref<const std::string&>().empty())
    return invalid_params(call.id, call.method + " requires an id");
  if (const json* hl = field(call.params, "historyLength", "history_length"))
    if (!hl->is_number_integer() || *hl < 0) return invalid_params(call.id, "historyLength must be a non-negative integer");
  DoorRequest req;
  req.method = call.door_method;
  req.task_id = tid->get<std::string>();
  if (call.door_method == DoorMethod::cancel_task) { // the cancel extension: how long the canceller waits
    const json* md = field(call.params, "metadata", "metadata");
    if (md && !md->is_object()) return invalid_params(call.id, "metadata must be an object");
    if (md && md->contains("murmur")) {
      const json& m = (*md)["murmur"];
      if (!m.is_object()) return invalid_params(call.id, "metadata.murmur must be an object");
      if (auto c = m.find("confirmWithinMs"); c != m.end()) {
        if (!c->is_number_integer() || c->get<std::int64_t>() < min_confirm_ms || c->get<std::int64_t>() > max_confirm_ms)
          return invalid_params(call.id, "metadata.murmur.confirmWithinMs must be a whole number of ms from 250 to 60000");
        req.deadline_ms = c->get<std::int64_t>();
      }
    }
  }
  return req;
}

bool wants_artifacts(const RpcCall& call) {
  const json* ia = field(call.params, "includeArtifacts", "include_artifacts");
  return ia && ia->is_boolean() && ia->get<bool>();
}

} // namespace

std::variant<RpcCall, RpcProblem> parse_envelope(std::string_view body) {
  // The nesting bound comes first: nothing deeper than max_json_depth is ever parsed.
  if (!json_depth_within(body))
    return problem(nullptr, rpc::parse_error,
                   "Invalid JSON payload: nested deeper than " + std::to_string(max_json_depth) + " levels");
  json doc = json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded()) return problem(nullptr, rpc::parse_error, "Invalid JSON payload");
  const char* invalid = "Request payload validation error";
  if (!doc.is_object()) return problem(nullptr, rpc::invalid_request, invalid);
  json id = nullptr;
  auto it = doc.find("id");
  const bool id_ok = it != doc.end() && (it->is_string() || it->is_number_integer());
  if (id_ok) id = *it;
  if (!id_ok) return problem(nullptr, rpc::invalid_request, invalid);
  auto v = doc.find("jsonrpc");
  if (v == doc.end() || !v->is_string() || *v != "2.0") return problem(id, rpc::invalid_request, invalid);
  auto m = doc.find("method");
  if (m == doc.end() || !m->is_string()) return problem(id, rpc::invalid_request, invalid);
  RpcCall call;
  call.id = id;
  call.method = m->get<std::string>();
  call.door_method = door_method_named(call.method).value_or(DoorMethod::unknown);
  auto p = doc.find("params");
  call.params = p == doc.end() ? json::object() : std::move(*p);
  return call;
}

std::variant<std::monostate, RpcProblem> check_version(const std::vector<std::string>& header_values,
                                                       const json& id) {
  std::string requested;
  for (const auto& v : header_values) requested += (requested.empty() ? "" : ", ") + trim(v);
  if (header_values.size() == 1 && supported_version(trim(header_values[0]))) return std::monostate{};
  return problem(id, rpc::version_not_supported,
                 "A2A version '" + requested + "' is not supported; this agent speaks 1.0: send the header A2A-Version: 1.0",
                 "VERSION_NOT_SUPPORTED", json{{"requestedVersion", requested}, {"supportedVersions", "1.0"}});
}

bool is_push_method(const std::string& method) {
  return std::find(std::begin(push_methods), std::end(push_methods), method) != std::end(push_methods);
}

std::variant<DoorRequest, RpcProblem> door_request_from(const RpcCall& call) {
  if (!call.params.is_object()) return invalid_params(call.id, "params must be an object");
  if (starts_task(call.door_method)) return send_message_request(call);
  if (call.door_method == DoorMethod::list_tasks) return list_tasks_request(call);
  if (names_task(call.door_method)) return task_id_request(call);
  DoorRequest req;
  req.method = call.door_method;
  return req;
}

json error_response(const RpcProblem& p) {
  json err{{"code", p.code}, {"message", p.message}};
  if (!p.reason.empty()) {
    json md = json::object();
    for (auto it = p.metadata.begin(); it != p.metadata.end(); ++it)
      md[it.key()] = it.value().is_string() ? it.value() : json(it.value().dump());
    err["data"] = json::array({json{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                                    {"reason", p.reason},
                                    {"domain", "a2a-protocol.org"},
                                    {"metadata", md}}});
  }
  return json{{"jsonrpc", "2.0"}, {"id", p.id}, {"error", err}};
}

json result_response(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json door_reply_response(const RpcCall& call, const DoorReply& reply) {
  if (reply.rpc_code != 0) {
    json md = json::object();
    if (reply.rpc_code == rpc::task_not_found || reply.rpc_code == rpc::task_not_cancelable) {
      const json* tid = field(call.params, "id", "id");
      if (tid && tid->is_string()) md["taskId"] = *tid;
    }
    const bool standard = rpc::is_standard(reply.rpc_code);
    return error_response(problem(call.id, reply.rpc_code, reply.rpc_message, standard ? "" : reply.rpc_reason, md));
  }
  const DoorMethod m = call.door_method;
  if (m == DoorMethod::send_message) return result_response(call.id, json{{"task", task_json(reply.task)}});
  if (m == DoorMethod::list_tasks) {
    json tasks = json::array();
    const bool artifacts = wants_artifacts(call);
    for (const auto& t : reply.tasks) tasks.push_back(task_json(t, artifacts));
    const json* size = field(call.params, "pageSize", "page_size");
    return result_response(call.id, json{{"tasks", tasks},
                                         {"nextPageToken", reply.next_page_token},
                                         {"pageSize", size ? size->get<int>() : 50},
                                         {"totalSize", reply.total_size}});
  }
  if (m == DoorMethod::session_stop)
    return result_response(call.id, json{{"session_id", reply.session_id}, {"canceled", json::array()},
                                         {"residue", json::array()}});
  return result_response(call.id, task_json(reply.task));
}

json request_json(const json& id, const DoorRequest& req) {
  json params = json::object();
  if (starts_task(req.method)) {
    json msg{{"messageId", req.message_id.empty() ? "msg_" + id.get<std::string>() : req.message_id},
             {"role", "ROLE_USER"},
             {"parts", json::array({json{{"text", req.text}}})}};
    if (!req.context_id.empty()) msg["contextId"] = req.context_id;
    if (!req.task_id.empty()) msg["taskId"] = req.task_id; // a message for a task that waits for input
    if (!req.reference_task_ids.empty()) msg["referenceTaskIds"] = req.reference_task_ids;
    json murmur = json::object();
    if (!req.chain.empty()) murmur["chain"] = req.chain;
    if (req.deadline_ms > 0) murmur["deadlineMs"] = req.deadline_ms;
    if (!req.budget.bounds_nothing()) murmur["budget"] = budget_json(req.budget);
    if (!req.question.empty()) murmur["question"] = req.question;
    if (!murmur.empty()) {
      msg["metadata"] = json{{"murmur", std::move(murmur)}};
      msg["extensions"] = json::array({call_extension_uri});
    }
    if (!req.traceparent.empty()) msg["metadata"]["traceparent"] = req.traceparent;
    params["message"] = msg;
    if (req.return_immediately && req.method == DoorMethod::send_message)
      params["configuration"] = json{{"returnImmediately", true}};
  } else if (req.method == DoorMethod::list_tasks) {
    params["pageSize"] = req.page_size;
    if (!req.page_token.empty()) params["pageToken"] = req.page_token;
    if (!req.filter_context_id.empty()) params["contextId"] = req.filter_context_id;
    if (!req.filter_state.empty()) params["status"] = req.filter_state;
    if (req.filter_updated_after_ms > 0) params["statusTimestampAfter"] = iso_utc_ms(req.filter_updated_after_ms);
  } else if (!req.task_id.empty()) {
    params["id"] = req.task_id;
    if (req.method == DoorMethod::cancel_task && req.deadline_ms > 0)
      params["metadata"] = json{{"murmur", json{{"confirmWithinMs", req.deadline_ms}}}};
  }
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", to_string(req.method)}, {"params", params}};
}

DoorReply door_reply_from(long status, std::string_view body) {
  DoorReply r;
  // A peer's answer is untrusted too: bounded like a request (too deep reads as not JSON).
  json doc = parse_bounded_json(body).value_or(json(json::value_t::discarded));
  if (status == 401 || status == 403) {
    // An unknown or missing error word still refuses: 401 reads as invalid_token, 403 as not_permitted.
    r.refusal = status == 401 ? DoorRefusal::invalid_token : DoorRefusal::not_permitted;
    if (doc.is_object()) {
      if (doc.contains("error") && doc["error"].is_string())
        r.refusal = door_refusal_from(doc["error"].get<std::string>()).value_or(r.refusal);
      if (doc.contains("message") && doc["message"].is_string()) r.refusal_message = doc["message"].get<std::string>();
    }
    return r;
  }
  auto fail = [&](const std::string& why) {
    DoorReply f;
    f.rpc_code = rpc::internal_error;
    f.rpc_message = why;
    return f;
  };
  if (status != 200) return fail("the door answered HTTP " + std::to_string(status));
  if (!doc.is_object()) return fail("the door's answer is not a JSON-RPC response");
  if (doc.contains("error") && doc["error"].is_object()) {
    const json& e = doc["error"];
    r.rpc_code = e.contains("code") && e["code"].is_number_integer() ? e["code"].get<std::int32_t>() : rpc::internal_error;
    if (e.contains("message") && e["message"].is_string()) r.rpc_message = e["message"].get<std::string>();
    if (e.contains("data") && e["data"].is_array() && !e["data"].empty() && e["data"][0].is_object() &&
        e["data"][0].contains("reason") && e["data"][0]["reason"].is_string())
      r.rpc_reason = e["data"][0]["reason"].get<std::string>();
    return r;
  }
  if (!doc.contains("result")) return fail("the door's answer holds neither result nor error");
  const json& res = doc["result"];
  try {
    if (res.is_object() && res.contains("task")) {
      r.task = task_from_json(res["task"]);
    } else if (res.is_object() && res.contains("tasks") && res["tasks"].is_array()) {
      for (const auto& t : res["tasks"]) r.tasks.push_back(task_from_json(t));
      if (const json* n = field(res, "nextPageToken", "next_page_token"); n && n->is_string())
        r.next_page_token = n->get<std::string>();
      if (const json* n = field(res, "totalSize", "total_size"); n && n->is_number_integer())
        r.total_size = n->get<std::int32_t>();
    } else if (res.is_object() && res.contains("status")) {
      r.task = task_from_json(res);
    } else if (res.is_object() && res.contains("session_id") && res["session_id"].is_string()) {
      r.session_id = res["session_id"].get<std::string>();
    }
  } catch (const std::exception& ex) {
    return fail(std::string("the door's task is unreadable: ") + ex.what());
  }
  return r;
}

} // namespace mur::a2a
