#include "messages/message_types.hpp"

#include "messages/a2a_task.hpp"
#include "messages/door_call.hpp"
#include "messages/door_request.hpp"
#include "messages/formation_messages.hpp"
#include "messages/member_call.hpp"
#include "messages/model_turn.hpp"
#include "messages/task_progress.hpp"
#include "messages/trace_event.hpp"
#include "messages/transport_failure.hpp"

#include <caf/actor_system_config.hpp>

namespace mur {

void register_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<NoAnswer>("mur::NoAnswer")
    .add_message_type<TaskView>("mur::TaskView")
    .add_message_type<std::vector<TaskView>>("std::vector<mur::TaskView>")
    .add_message_type<DoorRequest>("mur::DoorRequest")
    .add_message_type<DoorReply>("mur::DoorReply")
    .add_message_type<TaskEvent>("mur::TaskEvent")
    .add_message_type<TaskStreamLost>("mur::TaskStreamLost")
    .add_message_type<DoorCallTo>("mur::DoorCallTo")
    .add_message_type<CallMember>("mur::CallMember")
    .add_message_type<CallStart>("mur::CallStart")
    .add_message_type<CallEnded>("mur::CallEnded")
    .add_message_type<AbandonCall>("mur::AbandonCall")
    .add_message_type<MemberText>("mur::MemberText")
    .add_message_type<std::vector<MemberText>>("std::vector<mur::MemberText>")
    .add_message_type<ModelTurnRequest>("mur::ModelTurnRequest")
    .add_message_type<ModelTurn>("mur::ModelTurn")
    .add_message_type<TraceEvent>("mur::TraceEvent")
    .add_message_type<TaskWorking>("mur::TaskWorking")
    .add_message_type<TaskFinished>("mur::TaskFinished")
    .add_message_type<SpawnMember>("mur::SpawnMember")
    .add_message_type<MemberStarted>("mur::MemberStarted")
    .add_message_type<MemberExited>("mur::MemberExited")
    .add_message_type<KillMember>("mur::KillMember")
    .add_message_type<SendAddresses>("mur::SendAddresses")
    .add_message_type<FormationProgress>("mur::FormationProgress");
  add_transport_error_category(cfg);
}

} // namespace mur
