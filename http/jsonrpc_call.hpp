// jsonrpc_call.hpp — one JSON-RPC 2.0 call to a door, read in the order docs/spec/door.md
// §Request processing order fixes,
// and every answer a door gives, written as JSON-RPC.
//
// Invariant: the steps run in this order and the first that fails answers: -32700 (not JSON,
// id null) → -32600 (not one request object: jsonrpc exactly "2.0", method a string, id a string
// or integer and present, params absent or anything) → -32009 (A2A-Version not exactly one line
// whose trimmed value is `1.0` or `1.0.<digits>`) → [the door: unknown method -32601, scope 403]
// → -32602 (params not an object, or a method's own params wrong) / -32005 (raw or url parts).
// Standard codes carry no `data`; A2A codes carry one google.rpc.ErrorInfo in a `data` array.
// Push-notification methods answer -32003. The id is echoed whenever it was valid.
// Spec: docs/spec/door.md §Request processing order, §JSON-RPC errors on the wire; docs/spec/a2a.md
// §JSON-RPC binding, §Methods, §Errors, §ListTasks; docs/spec/choices.md §Protocol choices.
#pragma once

#include "messages/wire/door_request.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mur::a2a {

using json = nlohmann::json;

// A JSON-RPC error about to be answered.
struct RpcProblem {
  json id;                 // null when the request's id could not be read
  int code = 0;
  std::string message;
  std::string reason;      // ErrorInfo reason; "" for the standard codes
  json metadata = json::object();
};

struct RpcCall {
  json id;
  std::string method;                          // the wire word, as sent
  DoorMethod door_method = DoorMethod::unknown; // the door method it names, if any
  json params = json::object(); // absent ⇒ {}
};

// Steps 6–7.
std::variant<RpcCall, RpcProblem> parse_envelope(std::string_view body);

// Step 8: every A2A-Version header line of the request, in order.
std::variant<std::monostate, RpcProblem> check_version(const std::vector<std::string>& header_values,
                                                       const json& id);

// CreateTaskPushNotificationConfig, … (answered -32003).
bool is_push_method(const std::string& method);

// Steps 13–14 for a door method: the DoorRequest the params describe (method, task id, text,
// paging), or the -32602/-32005 problem. The verdict and peer origin are the caller's to set.
std::variant<DoorRequest, RpcProblem> door_request_from(const RpcCall& call);

// Error and result envelopes.
json error_response(const RpcProblem& p);
json result_response(const json& id, json result);
// A door's JSON-RPC answer to `call` (a success or an rpc error; never an HTTP refusal).
json door_reply_response(const RpcCall& call, const DoorReply& reply);

// The client side: a call's request object, and a door's HTTP answer read back.
json request_json(const json& id, const DoorRequest& req);
// `status` 401/403 ⇒ the refusal from {"error","message"}; 200 ⇒ the JSON-RPC answer.
// Anything unreadable is an rpc error -32603 (so callers count it as a failure).
DoorReply door_reply_from(long status, std::string_view body);

} // namespace mur::a2a
