// formation_join.hpp — a member process joining its formation: the bundle (the channel's first
// line), the address lines that follow, and the lifeline — the real adapters of the channel and
// lifeline ports of a member actor.
//
// Invariant: the bundle is read (and refused, E-RUN-046) before the session starts; address lines
// that arrive before the member actor exists are held and handed to it in order once attached;
// the lifeline is watched from the moment the member actor exists (a lifeline closed earlier still
// reads EOF then), and its closing reaches the member as `lifeline_atom` exactly once.
// Rule: a member holds its lifeline's read end, the launcher the only write end
// (docs/spec/door.md §The lifeline).
#pragma once

#include "os/formation_env.hpp"

#include "actors/actor_interfaces.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "os/unique_fd.hpp"

#include <memory>
#include <string>

namespace mur {

class ChannelReader;
class LifelineWatch;
class AddressRelay;

struct JoinedFormation {
  JoinedFormation();
  ~JoinedFormation();
  JoinedFormation(JoinedFormation&&) noexcept;
  JoinedFormation& operator=(JoinedFormation&&) noexcept;

  std::string id;                                // "" outside a formation
  std::shared_ptr<const FormationBundle> bundle;  // null outside a formation (or without a channel)
  std::unique_ptr<ChannelReader> channel;
  UniqueFd lifeline_fd;                          // until attached
  std::unique_ptr<LifelineWatch> lifeline;
  bool has_lifeline = false;
  std::shared_ptr<AddressRelay> relay;
};

// Joins the formation `env` names (read_formation_env_once; nullopt outside one: an empty
// JoinedFormation): reads its channel's first line, on the channel's own thread.
// Throws mur::Failure E-RUN-046 when the channel's first line is refused.
JoinedFormation join_formation(std::optional<FormationEnv> env);

// A delegated child (`mur run --spawn-grant-stdin`): the formation's id when its parent was in one
// (MURMUR_FORMATION_ID) and nothing else — no channel, no bundle, no formation lifeline, no
// W-RUN-007 — and its spawner lifeline (MURMUR_SPAWNER_LIFELINE, required), watched like a
// formation lifeline from attach_member on (`has_lifeline` stays false: it is not the
// formation's). Throws mur::Failure E-RUN-044 / E-RUN-046.
JoinedFormation join_as_child();

// From now on address lines go to `member`, and the lifeline is watched on its behalf.
void attach_member(JoinedFormation& formation, const member_handle& member);

// Stops reading the channel and watching the lifeline (nothing more is reported).
void leave_formation(JoinedFormation& formation);

} // namespace mur
