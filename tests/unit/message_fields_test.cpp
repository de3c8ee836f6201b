// Each message struct lists its fields once (MUR_FIELDS): equality and inspection see every
// field of the struct, the type-ID block names every type, and registration follows the block.
#include "messages/vocabulary/formation_event.hpp"
#include "messages/vocabulary/message_types.hpp"
#include "messages/wire/a2a_task.hpp"
#include "messages/wire/call_status.hpp"
#include "messages/wire/child_spawn.hpp"
#include "messages/wire/live_slot.hpp"
#include "messages/wire/operator_question.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/formation_messages.hpp"
#include "messages/wire/host_messages.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/register_messages.hpp"
#include "messages/wire/task_progress.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <tuple>
#include <typeindex>
#include <utility>
#include <vector>

using namespace mur;

namespace {

// Converts to anything: counts how many initialisers an aggregate takes, i.e. its fields.
struct any_field {
  template <class U>
  operator U() const;
};

template <class T, std::size_t... I>
constexpr auto takes(std::index_sequence<I...>) -> decltype(T{(void(I), any_field{})...}, true) {
  return true;
}
template <class T>
constexpr bool takes(...) {
  return false;
}

template <class T, std::size_t N = 0>
constexpr std::size_t field_count() {
  if constexpr (takes<T>(std::make_index_sequence<N + 1>{}))
    return field_count<T, N + 1>();
  else
    return N;
}

template <class T>
constexpr std::size_t listed_count() {
  return std::tuple_size<decltype(std::declval<T&>().tie())>::value;
}

template <class T>
void every_field_listed(const char* name) {
  INFO(name);
  CHECK(field_count<T>() == listed_count<T>());
}

// Changing any one field makes two values unequal.
template <class T>
void each_change_is_seen(const std::vector<std::pair<const char*, std::function<void(T&)>>>& changes) {
  const T base{};
  CHECK(base == T{});
  for (const auto& [field, change] : changes) {
    INFO(field);
    T other{};
    change(other);
    CHECK_FALSE(base == other);
    CHECK(base != other);
  }
}

} // namespace

TEST_CASE("every field of every message struct is in its MUR_FIELDS list", "[vocabulary]") {
  every_field_listed<NoAnswer>("NoAnswer");
  every_field_listed<TaskView>("TaskView");
  every_field_listed<DoorAuthorization>("DoorAuthorization");
  every_field_listed<DoorRequest>("DoorRequest");
  every_field_listed<DoorReply>("DoorReply");
  every_field_listed<TaskEvent>("TaskEvent");
  every_field_listed<TaskStreamLost>("TaskStreamLost");
  every_field_listed<DoorCallTo>("DoorCallTo");
  every_field_listed<CallMember>("CallMember");
  every_field_listed<CallStart>("CallStart");
  every_field_listed<CallEnded>("CallEnded");
  every_field_listed<AbandonCall>("AbandonCall");
  every_field_listed<CallCanceled>("CallCanceled");
  every_field_listed<MemberText>("MemberText");
  every_field_listed<ModelTurnRequest>("ModelTurnRequest");
  every_field_listed<ModelTurn>("ModelTurn");
  every_field_listed<TraceEvent>("TraceEvent");
  every_field_listed<TaskWorking>("TaskWorking");
  every_field_listed<TaskFinished>("TaskFinished");
  every_field_listed<SpawnMember>("SpawnMember");
  every_field_listed<MemberStarted>("MemberStarted");
  every_field_listed<MemberExited>("MemberExited");
  every_field_listed<KillMember>("KillMember");
  every_field_listed<SendAddresses>("SendAddresses");
  every_field_listed<FormationProgress>("FormationProgress");
}

TEST_CASE("DoorReply equality sees every field, the refusal and rpc texts too", "[vocabulary]") {
  each_change_is_seen<DoorReply>({
    {"refusal", [](DoorReply& r) { r.refusal = DoorRefusal::invalid_token; }},
    {"refusal_message", [](DoorReply& r) { r.refusal_message = "the token is not valid here"; }},
    {"refusal_scope", [](DoorReply& r) { r.refusal_scope = DoorMethod::send_message; }},
    {"rpc_code", [](DoorReply& r) { r.rpc_code = -32001; }},
    {"rpc_message", [](DoorReply& r) { r.rpc_message = "task not found"; }},
    {"rpc_reason", [](DoorReply& r) { r.rpc_reason = "TASK_NOT_FOUND"; }},
    {"task", [](DoorReply& r) { r.task.id = "tsk_1"; }},
    {"tasks", [](DoorReply& r) { r.tasks.emplace_back(); }},
    {"next_page_token", [](DoorReply& r) { r.next_page_token = "p2"; }},
    {"total_size", [](DoorReply& r) { r.total_size = 3; }},
    {"session_id", [](DoorReply& r) { r.session_id = "ses_1"; }},
  });
}

TEST_CASE("DoorRequest equality sees the whole verdict, caller and formation flag included", "[vocabulary]") {
  each_change_is_seen<DoorRequest>({
    {"method", [](DoorRequest& r) { r.method = DoorMethod::get_task; }},
    {"reference_task_ids", [](DoorRequest& r) { r.reference_task_ids.push_back("tsk_1"); }},
    {"verdict.kind", [](DoorRequest& r) { r.verdict.kind = DoorAuthorization::Kind::Ok; }},
    {"verdict.credential", [](DoorRequest& r) { r.verdict.credential = "operator"; }},
    {"verdict.scopes", [](DoorRequest& r) { r.verdict.scopes = {DoorMethod::send_message}; }},
    {"verdict.is_formation", [](DoorRequest& r) { r.verdict.is_formation = true; }},
    {"verdict.caller", [](DoorRequest& r) { r.verdict.caller = "lead"; }},
    {"peer_origin", [](DoorRequest& r) { r.peer_origin = true; }},
    {"text", [](DoorRequest& r) { r.text = "hello"; }},
    {"message_id", [](DoorRequest& r) { r.message_id = "m1"; }},
    {"context_id", [](DoorRequest& r) { r.context_id = "ctx_1"; }},
    {"return_immediately", [](DoorRequest& r) { r.return_immediately = true; }},
    {"task_id", [](DoorRequest& r) { r.task_id = "tsk_1"; }},
    {"page_size", [](DoorRequest& r) { r.page_size = 10; }},
    {"page_token", [](DoorRequest& r) { r.page_token = "p2"; }},
    {"filter_context_id", [](DoorRequest& r) { r.filter_context_id = "ctx_2"; }},
    {"filter_state", [](DoorRequest& r) { r.filter_state = "TASK_STATE_WORKING"; }},
    {"filter_updated_after_ms", [](DoorRequest& r) { r.filter_updated_after_ms = 5; }},
  });
}

TEST_CASE("CallEnded equality sees the duration", "[vocabulary]") {
  each_change_is_seen<CallEnded>({
    {"call_id", [](CallEnded& e) { e.call_id = "mcl_1"; }},
    {"member", [](CallEnded& e) { e.member = "coder"; }},
    {"status", [](CallEnded& e) { e.status = CallStatus::timed_out; }},
    {"output", [](CallEnded& e) { e.output = "done"; }},
    {"member_task_id", [](CallEnded& e) { e.member_task_id = "tsk_2"; }},
    {"below", [](CallEnded& e) { e.below.push_back(NoAnswer{"reviewer", "failed"}); }},
    {"duration_ms", [](CallEnded& e) { e.duration_ms = 42; }},
  });
}

TEST_CASE("a message prints under its block name with every listed field", "[vocabulary]") {
  CHECK(std::string(caf::type_name<CallEnded>::value) == "mur::CallEnded");
  CHECK(std::string(caf::type_name<std::vector<TaskView>>::value) == "std::vector<mur::TaskView>");
  CallEnded e;
  e.call_id = "mcl_7";
  e.duration_ms = 1234;
  const auto printed = caf::deep_to_string(e);
  CHECK(printed.find("mur::CallEnded") != std::string::npos);
  CHECK(printed.find("mcl_7") != std::string::npos);
  CHECK(printed.find("1234") != std::string::npos);
}

TEST_CASE("a bundle on its way to a host is serialized whole and never printed", "[vocabulary][hosts]") {
  const HostSecret secret{"{\"calls\":[{\"token\":\"mft1.sEcReT\"}]}"};
  const auto printed = caf::deep_to_string(secret);
  CHECK(printed.find("sEcReT") == std::string::npos);
  CHECK(printed.find("<withheld>") != std::string::npos);
  caf::actor_system_config cfg;
  register_message_types(cfg);
  caf::actor_system sys{cfg};
  std::vector<char> buf;
  caf::binary_serializer out{sys, buf};
  HostSecret copy = secret;
  CHECK(!out(copy));
  HostSecret back;
  caf::binary_deserializer in{sys, buf};
  CHECK(!in(back));
  CHECK(back.text == secret.text);
}

TEST_CASE("registration registers exactly the block's types under their block names", "[vocabulary]") {
  caf::actor_system_config cfg;
  const auto before = cfg.type_names_by_rtti.size();
  register_message_types(cfg);
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(DoorReply))) == "mur::DoorReply");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(FormationProgress))) == "mur::FormationProgress");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(LauncherDeadline))) == "mur::LauncherDeadline");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(ModelText))) == "mur::ModelText");
  CHECK(cfg.type_names_by_rtti.count(std::type_index(typeid(Bearer))) == 0); // unsafe: never registered
  CHECK(cfg.type_names_by_rtti.size() > before);
  const auto block_size = caf::id_block::mur::end - caf::id_block::mur::begin;
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(StartChild))) == "mur::StartChild");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(DoorScopes))) == "mur::DoorScopes");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(OwnTool))) == "mur::OwnTool");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(MemberAnswer))) == "mur::MemberAnswer");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(CallCanceled))) == "mur::CallCanceled");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(LiveSlot))) == "mur::LiveSlot");
  CHECK(cfg.type_names_by_rtti.at(std::type_index(typeid(HostReport))) == "mur::HostReport");
  CHECK(block_size == 69);
}

TEST_CASE("call statuses, task exits and formation events print the words they always printed", "[vocabulary]") {
  const std::vector<std::pair<CallStatus, std::string>> calls{
    {CallStatus::started, "started"},     {CallStatus::busy, "busy"},           {CallStatus::refused, "refused"},
    {CallStatus::completed, "completed"}, {CallStatus::failed, "failed"},       {CallStatus::canceled, "canceled"},
    {CallStatus::rejected, "rejected"},   {CallStatus::timed_out, "timed_out"}, {CallStatus::unreachable, "unreachable"},
    {CallStatus::no_answer, "no_answer"},
  };
  for (const auto& [status, word] : calls) {
    CHECK(to_string(status) == word);
    CHECK(parse_call_status(word) == status);
  }
  CHECK_FALSE(parse_call_status("abandoned").has_value());
  CHECK(call_status_of(TaskState::canceled) == CallStatus::canceled);
  CHECK(call_status_of(TaskState::rejected) == CallStatus::rejected);
  CHECK(call_status_of(TaskState::failed) == CallStatus::failed);

  const std::vector<std::pair<FormationEvent, std::string>> events{
    {FormationEvent::formation, "formation"}, {FormationEvent::ready, "ready"}, {FormationEvent::entry, "entry"},
    {FormationEvent::failed, "failed"},       {FormationEvent::ended, "ended"},
  };
  for (const auto& [event, word] : events) {
    CHECK(to_string(event) == word);
    CHECK(parse_formation_event(word) == event);
  }
  CHECK_FALSE(parse_formation_event("started").has_value());
  for (const auto& [ending, word] : std::vector<std::pair<TaskExit, std::string>>{
         {TaskExit::ok, "ok"}, {TaskExit::failed, "failed"}, {TaskExit::max_turns_reached, "max_turns_reached"},
         {TaskExit::no_answer, "no_answer"}, {TaskExit::canceled, "canceled"}})
    CHECK(to_string(ending) == word);
  CHECK(to_string(LauncherDeadline::formation) == "formation");
  CHECK(to_string(LauncherDeadline::grace) == "grace");
  CHECK(to_string(LauncherDeadline::peers) == "peers");
}
