#include "messages/wire/register_messages.hpp"

#include "messages/vocabulary/message_types.hpp"
#include "messages/vocabulary/register_block.hpp"
#include "messages/wire/a2a_task.hpp"
#include "messages/wire/child_spawn.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/formation_messages.hpp"
#include "messages/wire/host_messages.hpp"
#include "messages/wire/live_slot.hpp"
#include "messages/wire/operator_question.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/own_tools.hpp"
#include "messages/wire/task_progress.hpp"
#include "messages/wire/trace_event.hpp"
#include "messages/wire/transport_failure.hpp"

namespace mur {

void register_message_types(caf::actor_system_config& cfg) {
  register_block<caf::id_block::mur>(cfg);
  add_transport_error_category(cfg);
}

} // namespace mur
