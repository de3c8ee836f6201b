// The A2A JSON codec (http/a2a_json, http/jsonrpc_call): good and bad input, in the
// order of docs/spec/door.md §Request processing order, and the exact output shapes of
// docs/spec/a2a.md.
#include <catch2/catch.hpp>

#include "http/a2a_json.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/wire/agent_card.hpp"

using namespace mur;
using namespace mur::a2a;

namespace {

RpcProblem problem_of(std::string_view body) {
  auto r = parse_envelope(body);
  REQUIRE(std::holds_alternative<RpcProblem>(r));
  return std::get<RpcProblem>(r);
}

RpcCall call_of(std::string_view body) {
  auto r = parse_envelope(body);
  REQUIRE(std::holds_alternative<RpcCall>(r));
  return std::get<RpcCall>(r);
}

std::variant<DoorRequest, RpcProblem> params_of(const std::string& method, json params) {
  RpcCall c;
  c.id = "1";
  c.method = method;
  c.door_method = door_method_named(method).value_or(DoorMethod::unknown);
  c.params = std::move(params);
  return door_request_from(c);
}

int code_of(const std::variant<DoorRequest, RpcProblem>& v) {
  REQUIRE(std::holds_alternative<RpcProblem>(v));
  return std::get<RpcProblem>(v).code;
}

json good_message() {
  return json{{"message", {{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", "hi"}}})}}}};
}

} // namespace

TEST_CASE("envelope: -32700, then -32600, and the id is echoed only when valid", "[a2a]") {
  auto p = problem_of("{not json");
  CHECK(p.code == -32700);
  CHECK(p.id.is_null());
  CHECK(p.message == "Invalid JSON payload");
  CHECK(error_response(p).dump() == R"({"error":{"code":-32700,"message":"Invalid JSON payload"},"id":null,"jsonrpc":"2.0"})");
  CHECK(problem_of("[]").code == -32600);                                                  // batch
  CHECK(problem_of(R"([{"jsonrpc":"2.0","id":1,"method":"GetTask"}])").code == -32600);
  CHECK(problem_of(R"({"jsonrpc":"2.0","method":"GetTask"})").code == -32600);          // no id
  CHECK(problem_of(R"({"jsonrpc":"2.0","id":1.5,"method":"GetTask"})").code == -32600); // id not integer
  auto noversion = problem_of(R"({"jsonrpc":"1.0","id":"a","method":"GetTask"})");
  CHECK(noversion.code == -32600);
  CHECK(noversion.id == "a");
  CHECK(problem_of(R"({"jsonrpc":"2.0","id":7,"method":5})").id == 7);
  auto c = call_of(R"({"jsonrpc":"2.0","id":7,"method":"GetTask"})");
  CHECK(c.params == json::object());
  CHECK(c.method == "GetTask");
  CHECK(c.door_method == DoorMethod::get_task);
  CHECK(call_of(R"({"jsonrpc":"2.0","id":7,"method":"getTask"})").door_method == DoorMethod::unknown);
  CHECK(call_of(R"({"jsonrpc":"2.0","id":7,"method":"agent-card"})").door_method == DoorMethod::unknown);
}

TEST_CASE("A2A-Version: exactly one line, 1.0 or 1.0.<digits>", "[a2a]") {
  const json id = "x";
  CHECK(std::holds_alternative<std::monostate>(check_version({"1.0"}, id)));
  CHECK(std::holds_alternative<std::monostate>(check_version({" 1.0.12 "}, id)));
  for (auto bad : std::vector<std::vector<std::string>>{{}, {"0.3"}, {"1"}, {"1.0."}, {"1.0.x"}, {"1.1"}, {"1.0", "1.0"}}) {
    auto r = check_version(bad, id);
    REQUIRE(std::holds_alternative<RpcProblem>(r));
    const auto& p = std::get<RpcProblem>(r);
    CHECK(p.code == -32009);
    json e = error_response(p);
    CHECK(e["error"]["data"][0]["reason"] == "VERSION_NOT_SUPPORTED");
    CHECK(e["error"]["data"][0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo");
    CHECK(e["error"]["data"][0]["metadata"]["supportedVersions"] == "1.0");
    CHECK(e["error"]["message"].get<std::string>().find("A2A-Version: 1.0") != std::string::npos);
  }
  auto two = std::get<RpcProblem>(check_version({"0.3", " 2.0"}, id));
  CHECK(two.metadata["requestedVersion"] == "0.3, 2.0");
}

TEST_CASE("SendMessage params: checked in order, raw/url parts are -32005", "[a2a]") {
  auto ok = params_of("SendMessage", good_message());
  REQUIRE(std::holds_alternative<DoorRequest>(ok));
  CHECK(std::get<DoorRequest>(ok).text == "hi");
  CHECK(std::get<DoorRequest>(ok).message_id == "m1");
  // snake_case accepted
  auto snake = params_of("SendMessage", json{{"message", {{"message_id", "m2"}, {"role", "ROLE_USER"},
                                                          {"parts", json::array({{{"text", "a"}}})},
                                                          {"context_id", "ctx_1"}}}});
  REQUIRE(std::holds_alternative<DoorRequest>(snake));
  CHECK(std::get<DoorRequest>(snake).context_id == "ctx_1");
  CHECK(code_of(params_of("SendMessage", json::array())) == -32602);
  CHECK(code_of(params_of("SendMessage", json::object())) == -32602);
  json m = good_message();
  m["message"]["messageId"] = "";
  CHECK(code_of(params_of("SendMessage", m)) == -32602);
  m = good_message();
  m["message"]["role"] = "ROLE_AGENT";
  CHECK(code_of(params_of("SendMessage", m)) == -32602);
  m = good_message();
  m["message"]["parts"] = json::array();
  CHECK(code_of(params_of("SendMessage", m)) == -32602);
  m = good_message();
  m["message"]["parts"] = json::array({{{"text", "a"}, {"url", "http://x"}}});
  CHECK(code_of(params_of("SendMessage", m)) == -32602); // two kinds in one part
  m = good_message();
  m["message"]["parts"] = json::array({{{"text", "a"}}, {{"url", "http://x"}, {"mediaType", "image/png"}}});
  auto unsupported = params_of("SendMessage", m);
  CHECK(code_of(unsupported) == -32005);
  auto e = error_response(std::get<RpcProblem>(unsupported));
  CHECK(e["error"]["data"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED");
  CHECK(e["error"]["data"][0]["metadata"]["partIndex"] == "1");
  // a string-typed field wrong is -32602 even with an unsupported part
  m["message"]["contextId"] = 5;
  CHECK(code_of(params_of("SendMessage", m)) == -32602);
}

TEST_CASE("GetTask and ListTasks params", "[a2a]") {
  CHECK(code_of(params_of("GetTask", json::object())) == -32602);
  CHECK(std::get<RpcProblem>(params_of("GetTask", json::object())).message == "Invalid params: GetTask requires an id");
  CHECK(std::get<DoorRequest>(params_of("GetTask", {{"id", "tsk_1"}})).task_id == "tsk_1");
  CHECK(code_of(params_of("ListTasks", {{"pageSize", 0}})) == -32602);
  CHECK(code_of(params_of("ListTasks", {{"pageSize", 101}})) == -32602);
  CHECK(code_of(params_of("ListTasks", {{"pageSize", "5"}})) == -32602);
  auto l = std::get<DoorRequest>(params_of("ListTasks", {{"page_size", 3}, {"contextId", "ctx_a"}}));
  CHECK(l.page_size == 3);
  CHECK(l.filter_context_id == "ctx_a");
  CHECK(std::get<DoorRequest>(params_of("ListTasks", {{"status", "TASK_STATE_COMPLETED"}})).filter_state ==
        "TASK_STATE_COMPLETED");
  CHECK(std::get<DoorRequest>(params_of("ListTasks", {{"status", "TASK_STATE_UNSPECIFIED"}})).filter_state.empty());
  CHECK(code_of(params_of("ListTasks", {{"status", "DONE"}})) == -32602);
  CHECK(std::get<DoorRequest>(params_of("ListTasks", {{"statusTimestampAfter", "2026-01-01T00:00:00Z"}}))
          .filter_updated_after_ms == 1767225600000);
  CHECK(code_of(params_of("ListTasks", {{"statusTimestampAfter", "soon"}})) == -32602);
  CHECK(is_push_method("CreateTaskPushNotificationConfig"));
  CHECK_FALSE(door_method_named("message/send"));
  CHECK(door_method_named("session/stop") == DoorMethod::session_stop);
}

TEST_CASE("Task JSON: camelCase, wire enums, response artifact, murmur metadata only when set", "[a2a]") {
  TaskView t;
  t.id = "tsk_0192";
  t.context_id = "ctx_1";
  t.state = TaskState::working;
  t.submitter = "member:lead";
  json w = task_json(t);
  CHECK(w == json{{"id", "tsk_0192"}, {"contextId", "ctx_1"}, {"status", {{"state", "TASK_STATE_WORKING"}}}});
  CHECK(w.dump().find("submitter") == std::string::npos);
  CHECK(w.dump().find("member:lead") == std::string::npos);
  t.state = TaskState::completed;
  t.answer = "done";
  json c = task_json(t);
  CHECK(c["artifacts"] == json::array({{{"artifactId", "response"}, {"name", "response"},
                                        {"parts", json::array({{{"text", "done"}, {"mediaType", "text/plain"}}})}}}));
  CHECK(c["status"]["message"]["role"] == "ROLE_AGENT");
  CHECK(c["status"]["message"]["parts"][0]["text"] == "done");
  CHECK_FALSE(c.contains("metadata"));
  CHECK_FALSE(task_json(t, false).contains("artifacts"));
  t.state = TaskState::rejected;
  t.busy = true;
  t.status_text = busy_status_text;
  json b = task_json(t);
  CHECK(b["metadata"] == json{{"murmur", {{"busy", true}}}});
  CHECK(b["status"]["message"]["parts"][0]["text"] == busy_status_text);
  // and back
  TaskView back = task_from_json(b);
  CHECK(back.busy);
  CHECK(back.state == TaskState::rejected);
  CHECK(back.status_text == busy_status_text);
  CHECK_THROWS(task_from_json(json{{"id", "x"}, {"status", {{"state", "working"}}}})); // 0.3 spelling
}

TEST_CASE("stream events fold back into a task", "[a2a]") {
  TaskView t;
  t.id = "tsk_1";
  t.context_id = "ctx_1";
  t.state = TaskState::submitted;
  TaskView seen;
  CHECK(apply_stream_event(seen, task_event(t)));
  t.state = TaskState::completed;
  t.answer = "42";
  CHECK_FALSE(apply_stream_event(seen, artifact_update_event(t)));
  CHECK(apply_stream_event(seen, status_update_event(t)));
  CHECK(seen.state == TaskState::completed);
  CHECK(seen.answer == "42");
  CHECK_THROWS(apply_stream_event(seen, json{{"kind", "status-update"}}));
}

TEST_CASE("door replies as JSON-RPC and back", "[a2a]") {
  RpcCall c = call_of(R"({"jsonrpc":"2.0","id":"q","method":"GetTask","params":{"id":"tsk_9"}})");
  DoorReply nf;
  nf.rpc_code = -32001;
  nf.rpc_message = "Task not found: tsk_9";
  nf.rpc_reason = "TASK_NOT_FOUND";
  json e = door_reply_response(c, nf);
  CHECK(e["id"] == "q");
  CHECK(e["error"]["code"] == -32001);
  CHECK(e["error"]["data"][0]["metadata"]["taskId"] == "tsk_9");
  DoorReply back = door_reply_from(200, e.dump());
  CHECK(back.rpc_code == -32001);
  CHECK(back.rpc_reason == "TASK_NOT_FOUND");
  DoorReply unknown;
  unknown.rpc_code = -32601;
  unknown.rpc_message = "Method not found";
  CHECK_FALSE(door_reply_response(c, unknown)["error"].contains("data"));

  RpcCall l = call_of(R"({"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":2}})");
  DoorReply list;
  list.total_size = 0;
  json lr = door_reply_response(l, list);
  CHECK(lr["result"] == json{{"tasks", json::array()}, {"nextPageToken", ""}, {"pageSize", 2}, {"totalSize", 0}});

  RpcCall s = call_of(R"({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}})");
  DoorReply sent;
  sent.task.id = "tsk_1";
  sent.task.context_id = "ctx_1";
  json sr = door_reply_response(s, sent);
  CHECK(sr["result"]["task"]["id"] == "tsk_1");
  CHECK(door_reply_from(200, sr.dump()).task.id == "tsk_1");
  DoorReply refused = door_reply_from(403, R"({"error":"peer_not_accepted","message":"m"})");
  CHECK(refused.refusal == DoorRefusal::peer_not_accepted);
  CHECK(door_reply_from(401, "").refusal == DoorRefusal::invalid_token); // a 401 without a body still refuses
  CHECK(door_reply_from(200, "garbage").rpc_code == -32603);
  CHECK(door_reply_from(500, "").rpc_code == -32603);
}

TEST_CASE("agent card: one JSONRPC 1.0 interface, door extension with the session", "[a2a]") {
  CardFacts f;
  f.capsule_name = "reviewer";
  f.capsule_version = "1.0.0";
  f.session_id = "ses_1";
  f.url = "http://127.0.0.1:4000";
  f.authenticated = true;
  f.accepts_peer_tasks = true;
  json card = agent_card(f);
  CHECK(card["supportedInterfaces"] ==
        json::array({{{"url", "http://127.0.0.1:4000"}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", "1.0"}}}));
  CHECK(card["capabilities"]["pushNotifications"] == false);
  CHECK(card["capabilities"]["streaming"] == true);
  CHECK(card["capabilities"]["extendedAgentCard"] == true);
  CHECK(card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer");
  CHECK(card["securityRequirements"] == json::array({{{"schemes", {{"bearer", {{"list", json::array()}}}}}}}));
  CHECK(card_session_id(card) == "ses_1");
  f.authenticated = false;
  f.takes_tasks = false;
  json pub = agent_card(f);
  CHECK(pub["securitySchemes"] == json::object());
  CHECK(pub["skills"] == json::array());
  CHECK(card_methods(f) == std::vector<std::string>{"GetTask", "ListTasks", "CancelTask", "SubscribeToTask"});
}
