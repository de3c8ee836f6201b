#include "messages/message_types.hpp"

#include "messages/a2a_task.hpp"
#include "messages/child_spawn.hpp"
#include "messages/door_call.hpp"
#include "messages/door_request.hpp"
#include "messages/formation_messages.hpp"
#include "messages/member_call.hpp"
#include "messages/model_turn.hpp"
#include "messages/register_block.hpp"
#include "messages/task_progress.hpp"
#include "messages/trace_event.hpp"
#include "messages/transport_failure.hpp"

namespace mur {

void register_message_types(caf::actor_system_config& cfg) {
  register_block<caf::id_block::mur>(cfg);
  add_transport_error_category(cfg);
}

} // namespace mur
