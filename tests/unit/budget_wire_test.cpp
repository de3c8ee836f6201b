// The budget on the A2A wire (http/budget_json, http/jsonrpc_call, http/a2a_json): a call's
// message.metadata.murmur.budget (strict: a bad one is invalid params) and a finished task's
// metadata.murmur.usage (lenient: an answer is never lost to its usage).
#include "http/a2a_json.hpp"
#include "http/budget_json.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/wire/agent_card.hpp"

#include <catch2/catch.hpp>

#include "budget_values.hpp"

using namespace mur;
using nlohmann::json;

namespace {

const std::string budget_sentence =
    "message.metadata.murmur.budget must be an object of maxTokens, maxModelRequests, maxToolCalls and maxCalls, "
    "each a whole number from 0 to 1000000000000";


void check_usage(const Usage& u, std::int64_t tokens, std::int64_t model_requests, std::int64_t tool_calls,
                 std::int64_t calls) {
  CHECK(u.tokens == tokens);
  CHECK(u.model_requests == model_requests);
  CHECK(u.tool_calls == tool_calls);
  CHECK(u.calls == calls);
}

const std::int64_t none = no_limit;

std::variant<DoorRequest, a2a::RpcProblem> send_with(json metadata, const char* method = "SendMessage") {
  a2a::RpcCall c;
  c.id = "1";
  c.method = method;
  c.door_method = door_method_named(method).value_or(DoorMethod::unknown);
  c.params = json{{"message", {{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", "hi"}}})}}}};
  if (!metadata.is_null()) c.params["message"]["metadata"] = std::move(metadata);
  return a2a::door_request_from(c);
}

std::variant<DoorRequest, a2a::RpcProblem> send_with_budget(json b, const char* method = "SendMessage") {
  return send_with(json{{"murmur", {{"budget", std::move(b)}}}}, method);
}

} // namespace

TEST_CASE("budget_json writes only the limits that bound something and reads them back", "[budget][a2a]") {
  CHECK(budget_json(Budget{}) == json::object());
  CHECK(budget_json(budget(1000, none, none, 0)) == json{{"maxTokens", 1000}, {"maxCalls", 0}});
  CHECK(budget_json(budget(1, 2, 3, 4)).dump() ==
        R"({"maxCalls":4,"maxModelRequests":2,"maxTokens":1,"maxToolCalls":3})");

  for (const Budget& b : {budget(1, 2, 3, 4), budget(none, 0, none, none), budget(max_limit_value, none, 7, none),
                          Budget{}}) {
    Budget back = budget(99, 99, 99, 99);
    CHECK_FALSE(read_budget(budget_json(b), back));
    check_budget(back, b.max_tokens, b.max_model_requests, b.max_tool_calls, b.max_calls);
  }
  // Read from text, as a peer sends it: the limits named are set, the rest bound nothing.
  Budget read = budget(5, 5, 5, 5);
  CHECK_FALSE(read_budget(json::parse(R"({"maxModelRequests": 3, "maxToolCalls": 1000000000000})"), read));
  check_budget(read, none, 3, max_limit_value, none);
  CHECK_FALSE(read_budget(json::object(), read));
  CHECK(read.bounds_nothing());
}

TEST_CASE("read_budget refuses any other shape and leaves the budget as it was", "[budget][a2a]") {
  const std::vector<std::string> bad = {
      R"({"maxTurns": 3})",                         // unknown key
      R"({"max_tokens": 3})",                       // the file's spelling, not the wire's
      R"({"maxTokens": 3, "extra": 1})",            // one good, one unknown
      R"({"maxTokens": -1})",                       // negative (even none's own -1)
      R"({"maxCalls": -5})",
      R"({"maxTokens": 1000000000001})",            // > 10^12
      R"({"maxToolCalls": 9223372036854775807})",
      R"({"maxToolCalls": 9223372036854775808})",   // beyond int64, read as unsigned
      R"({"maxToolCalls": 18446744073709551615})",
      R"({"maxTokens": 1.5})",                      // not a whole number
      R"({"maxTokens": 5.0})",
      R"({"maxTokens": 1e3})",
      R"({"maxTokens": "5"})",
      R"({"maxTokens": true})",
      R"({"maxTokens": null})",
      R"({"maxTokens": [5]})",
      R"({"maxCalls": 2, "maxTokens": -1})",        // a good limit first: nothing of it is kept
      R"([])", R"([{"maxTokens": 5}])", R"(5)", R"("maxTokens")", R"(null)", R"(true)",
  };
  for (const auto& text : bad) {
    INFO(text);
    Budget b = budget(11, 12, 13, 14);
    auto why = read_budget(json::parse(text), b);
    REQUIRE(why);
    CHECK(*why == budget_sentence);
    check_budget(b, 11, 12, 13, 14);
  }
  // The bounds themselves are fine.
  Budget edges;
  CHECK_FALSE(read_budget(json::parse(R"({"maxTokens": 0, "maxCalls": 1000000000000})"), edges));
  check_budget(edges, 0, none, none, max_limit_value);
}

TEST_CASE("usage_json writes all four counts, and read_usage reads a bad count as 0", "[budget][a2a]") {
  CHECK(usage_json(usage(120, 2, 0, 1)) == json{{"tokens", 120}, {"modelRequests", 2}, {"toolCalls", 0}, {"calls", 1}});
  CHECK(usage_json(Usage{}).dump() == R"({"calls":0,"modelRequests":0,"tokens":0,"toolCalls":0})");
  check_usage(read_usage(usage_json(usage(120, 2, 5, 1))), 120, 2, 5, 1);
  check_usage(read_usage(usage_json(usage(max_limit_value, 0, 0, 3))), max_limit_value, 0, 0, 3);

  check_usage(read_usage(json::parse(R"({"tokens": -5, "modelRequests": "2", "toolCalls": 1.5, "calls": 1000000000001})")),
              0, 0, 0, 0);
  check_usage(read_usage(json::parse(R"({"tokens": 7, "calls": "x", "extra": 1, "toolCalls": null})")), 7, 0, 0, 0);
  check_usage(read_usage(json::parse(R"({"modelRequests": 18446744073709551615, "toolCalls": 4})")), 0, 0, 4, 0);
  check_usage(read_usage(json::parse(R"({"max_tokens": 4, "model_requests": 4})")), 0, 0, 0, 0); // not the wire's names
  for (const char* not_object : {"[]", "5", "\"lots\"", "null", "[{\"tokens\": 5}]"}) {
    INFO(not_object);
    CHECK(read_usage(json::parse(not_object)).is_zero());
  }
}

TEST_CASE("SendMessage: message.metadata.murmur.budget reaches the door request, a bad one is -32602",
          "[budget][a2a]") {
  auto ok = send_with_budget(json{{"maxTokens", 500}, {"maxCalls", 2}});
  REQUIRE(std::holds_alternative<DoorRequest>(ok));
  check_budget(std::get<DoorRequest>(ok).budget, 500, none, none, 2);
  // With no budget, the request bounds nothing.
  auto plain = send_with(json::object());
  REQUIRE(std::holds_alternative<DoorRequest>(plain));
  CHECK(std::get<DoorRequest>(plain).budget.bounds_nothing());
  auto plain_murmur = send_with(json{{"murmur", {{"deadlineMs", 10}}}});
  REQUIRE(std::holds_alternative<DoorRequest>(plain_murmur));
  CHECK(std::get<DoorRequest>(plain_murmur).budget.bounds_nothing());
  // Beside the chain and the deadline, all three are read.
  auto all = send_with(json{{"murmur", {{"chain", {"lead"}}, {"deadlineMs", 4000},
                                        {"budget", {{"maxModelRequests", 0}, {"maxToolCalls", 7}}}}}});
  REQUIRE(std::holds_alternative<DoorRequest>(all));
  const DoorRequest& r = std::get<DoorRequest>(all);
  CHECK(r.chain == std::vector<std::string>{"lead"});
  CHECK(r.deadline_ms == 4000);
  check_budget(r.budget, none, 0, 7, none);
  // The streaming method reads it too.
  auto streamed = send_with_budget(json{{"maxTokens", 9}}, "SendStreamingMessage");
  REQUIRE(std::holds_alternative<DoorRequest>(streamed));
  CHECK(std::get<DoorRequest>(streamed).budget.max_tokens == 9);

  for (const json& bad : {json{{"maxTokens", -1}}, json{{"maxTurns", 1}}, json{{"maxTokens", 1000000000001LL}},
                          json{{"maxTokens", 2.5}}, json{{"maxTokens", "5"}}, json::array(), json("all"), json(3),
                          json(nullptr)}) {
    for (const char* method : {"SendMessage", "SendStreamingMessage"}) {
      INFO(method << " " << bad.dump());
      auto refused = send_with_budget(bad, method);
      REQUIRE(std::holds_alternative<a2a::RpcProblem>(refused));
      const auto& p = std::get<a2a::RpcProblem>(refused);
      CHECK(p.code == -32602);
      CHECK(p.message == "Invalid params: " + budget_sentence);
      CHECK(p.id == "1");
      const json e = a2a::error_response(p);
      CHECK(e["error"]["code"] == -32602);
      CHECK(e["error"]["message"] == "Invalid params: " + budget_sentence);
    }
  }
}

TEST_CASE("request_json writes murmur.budget only when a limit bounds something", "[budget][a2a]") {
  DoorRequest out;
  out.method = DoorMethod::send_message;
  out.text = "do it";
  json bare = a2a::request_json("c-1", out);
  CHECK_FALSE(bare["params"]["message"].contains("metadata"));
  CHECK_FALSE(bare["params"]["message"].contains("extensions"));

  out.budget.max_model_requests = 0; // nothing left bounds something
  json spent = a2a::request_json("c-2", out);
  CHECK(spent["params"]["message"]["metadata"] == json{{"murmur", {{"budget", {{"maxModelRequests", 0}}}}}});
  CHECK(spent["params"]["message"]["extensions"] == json::array({a2a::call_extension_uri}));

  out.budget = budget(4000, 3, none, 1);
  out.chain = {"lead", "a"};
  out.deadline_ms = 2500;
  json wire = a2a::request_json("c-3", out);
  CHECK(wire["params"]["message"]["metadata"] ==
        json{{"murmur", {{"chain", {"lead", "a"}}, {"deadlineMs", 2500},
                         {"budget", {{"maxTokens", 4000}, {"maxModelRequests", 3}, {"maxCalls", 1}}}}}});
  CHECK(wire["params"]["message"]["extensions"] == json::array({a2a::call_extension_uri}));
  // And back through the door's reading of it.
  auto back = a2a::door_request_from(std::get<a2a::RpcCall>(a2a::parse_envelope(wire.dump())));
  REQUIRE(std::holds_alternative<DoorRequest>(back));
  check_budget(std::get<DoorRequest>(back).budget, 4000, 3, none, 1);
  CHECK(std::get<DoorRequest>(back).chain == out.chain);
  CHECK(std::get<DoorRequest>(back).deadline_ms == 2500);

  // A streaming send carries it too; other methods never do.
  out.method = DoorMethod::send_streaming_message;
  CHECK(a2a::request_json("c-4", out)["params"]["message"]["metadata"]["murmur"]["budget"] ==
        json{{"maxTokens", 4000}, {"maxModelRequests", 3}, {"maxCalls", 1}});
  out.method = DoorMethod::get_task;
  out.task_id = "tsk_1";
  CHECK(a2a::request_json("c-5", out)["params"] == json{{"id", "tsk_1"}});
}

TEST_CASE("task_json writes metadata.murmur.usage once a task has ended having spent something", "[budget][a2a]") {
  TaskView t;
  t.id = "tsk_0192";
  t.context_id = "ctx_1";
  t.usage = usage(120, 2, 0, 1);
  t.budget = budget(5000, 4, none, none); // what its caller had left: never sent back
  const json usage_wire{{"tokens", 120}, {"modelRequests", 2}, {"toolCalls", 0}, {"calls", 1}};

  for (TaskState running : {TaskState::submitted, TaskState::working, TaskState::input_required}) {
    t.state = running;
    INFO(to_string(running));
    CHECK_FALSE(a2a::task_json(t).contains("metadata"));
  }
  for (TaskState ended : {TaskState::completed, TaskState::failed, TaskState::canceled, TaskState::rejected}) {
    t.state = ended;
    INFO(to_string(ended));
    const json j = a2a::task_json(t);
    CHECK(j["metadata"] == json{{"murmur", {{"usage", usage_wire}}}});
    CHECK(j.dump().find("maxTokens") == std::string::npos);
    CHECK(j.dump().find("budget") == std::string::npos);
    const TaskView back = a2a::task_from_json(j);
    check_usage(back.usage, 120, 2, 0, 1);
    CHECK(back.budget.bounds_nothing());
  }
  // Ended having spent nothing: no usage.
  t.state = TaskState::completed;
  t.answer = "done";
  t.usage = Usage{};
  CHECK_FALSE(a2a::task_json(t).contains("metadata"));
  t.usage.calls = 1;
  CHECK(a2a::task_json(t)["metadata"]["murmur"]["usage"] ==
        json{{"tokens", 0}, {"modelRequests", 0}, {"toolCalls", 0}, {"calls", 1}});

  // Beside the other murmur metadata.
  t.state = TaskState::failed;
  t.no_answer = true;
  t.usage = usage(7, 1, 0, 0);
  CHECK(a2a::task_json(t)["metadata"] ==
        json{{"murmur", {{"noAnswer", true}, {"usage", {{"tokens", 7}, {"modelRequests", 1}, {"toolCalls", 0}, {"calls", 0}}}}}});
}

TEST_CASE("a finished task's usage comes back through replies and stream events", "[budget][a2a]") {
  TaskView t;
  t.id = "tsk_1";
  t.context_id = "ctx_1";
  t.state = TaskState::completed;
  t.answer = "42";
  t.usage = usage(300, 3, 2, 1);

  a2a::RpcCall s;
  s.id = 1;
  s.method = "SendMessage";
  s.door_method = DoorMethod::send_message;
  DoorReply sent;
  sent.task = t;
  const json reply = a2a::door_reply_response(s, sent);
  const DoorReply back = a2a::door_reply_from(200, reply.dump());
  CHECK(back.rpc_code == 0);
  CHECK(back.task.answer == "42");
  check_usage(back.task.usage, 300, 3, 2, 1);

  // The status update that ends a stream carries it.
  TaskView seen;
  TaskView working = t;
  working.state = TaskState::working;
  working.usage = Usage{};
  CHECK(a2a::apply_stream_event(seen, a2a::task_event(working)));
  CHECK(seen.usage.is_zero());
  const json update = a2a::status_update_event(t);
  CHECK(update["statusUpdate"]["metadata"]["murmur"]["usage"] ==
        json{{"tokens", 300}, {"modelRequests", 3}, {"toolCalls", 2}, {"calls", 1}});
  CHECK(a2a::apply_stream_event(seen, update));
  CHECK(seen.state == TaskState::completed);
  check_usage(seen.usage, 300, 3, 2, 1);

  // A peer's bad usage is read leniently: the answer is kept.
  json odd = a2a::task_json(t);
  odd["metadata"]["murmur"]["usage"] = json{{"tokens", "many"}, {"modelRequests", -1}, {"toolCalls", 2}, {"calls", 1.0}};
  TaskView lenient = a2a::task_from_json(odd);
  CHECK(lenient.answer == "42");
  check_usage(lenient.usage, 0, 0, 2, 0);
  odd["metadata"]["murmur"]["usage"] = "lots";
  CHECK(a2a::task_from_json(odd).usage.is_zero());
  CHECK(a2a::task_from_json(odd).answer == "42");
}
