// door_scope.cpp — see door_scope.hpp.
#include "messages/credentials/door_scope.hpp"

namespace mur {

DoorScopes DoorScopes::all() {
  DoorScopes s;
  for (DoorMethod m : DOOR_SCOPES) s.add(m);
  return s;
}

DoorScopes DoorScopes::formation_call() {
  return {DoorMethod::send_message, DoorMethod::get_task, DoorMethod::list_tasks, DoorMethod::cancel_task,
          DoorMethod::subscribe_to_task};
}

bool DoorScopes::add(DoorMethod m) {
  if (!is_door_scope(m)) return false;
  bits = static_cast<std::uint16_t>(bits | bit(m));
  return true;
}

std::vector<std::string> DoorScopes::words() const {
  std::vector<std::string> out;
  for (DoorMethod m : DOOR_SCOPES)
    if (has(m)) out.push_back(to_string(m));
  return out;
}

} // namespace mur
