// libFuzzer target: the JSON-RPC/A2A codec both ways — a request body read as a door reads it
// (envelope, params, every answer written back), and a door's answer read as a caller reads it
// (door_reply_from, SSE events folded into a task). Invariant under test: no input crashes,
// leaks or trips UBSan, and every answer the codec writes is JSON again.
#include "http/a2a_json.hpp"
#include "http/door_intake.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/vocabulary/strict_json.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace mur;
using namespace mur::a2a;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The door side.
  auto env = parse_envelope(text);
  if (auto* p = std::get_if<RpcProblem>(&env)) {
    (void)wire_dump(error_response(*p));
  } else {
    const RpcCall& call = std::get<RpcCall>(env);
    (void)check_version({"1.0"}, call.id);
    auto dr = door_request_from(call);
    if (auto* p = std::get_if<RpcProblem>(&dr)) {
      (void)wire_dump(error_response(*p));
    } else {
      DoorReply ok;
      ok.task.id = "tsk_1";
      ok.task.state = TaskState::completed;
      ok.task.answer = std::get<DoorRequest>(dr).text;
      (void)wire_dump(door_reply_response(call, ok));
      DoorReply err;
      err.rpc_code = -32001;
      err.rpc_message = "Task not found";
      err.rpc_reason = "TASK_NOT_FOUND";
      (void)wire_dump(door_reply_response(call, err));
      (void)request_json(call.id.is_string() ? call.id : nlohmann::json("1"), std::get<DoorRequest>(dr));
    }
  }
  // The caller side: the same bytes as a door's answer, and as an SSE event.
  for (long status : {200L, 401L, 403L, 500L}) (void)door_reply_from(status, text);
  if (auto doc = parse_bounded_json(text); doc && doc->is_object() && doc->contains("result")) {
    TaskView t;
    t.id = "tsk_1";
    try {
      (void)apply_stream_event(t, (*doc)["result"]);
      (void)task_from_json((*doc)["result"]);
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
