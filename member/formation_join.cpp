// formation_join.cpp — see formation_join.hpp.
#include "member/formation_join.hpp"

#include "actors/atoms.hpp"
#include "messages/credentials/address_line.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/channel_reader.hpp"
#include "os/formation_env.hpp"
#include "os/lifeline_watch.hpp"

#include <caf/all.hpp>

#include <cstdlib>

#include <functional>
#include <future>
#include <iostream>
#include <mutex>
#include <vector>

namespace mur {

using address_listener = caf::typed_actor<caf::reacts_to<address_atom, std::vector<MemberText>>>;

// Address lines from the channel's reader thread, held until the member actor exists.
class AddressRelay {
public:
  void post(std::vector<MemberText> addresses) {
    std::lock_guard<std::mutex> lock(mu_);
    if (member_) caf::anon_send(member_, address_atom_v, std::move(addresses));
    else queued_.push_back(std::move(addresses));
  }
  void attach(address_listener m) {
    std::lock_guard<std::mutex> lock(mu_);
    member_ = std::move(m);
    for (auto& a : queued_) caf::anon_send(member_, address_atom_v, std::move(a));
    queued_.clear();
  }

private:
  std::mutex mu_;
  address_listener member_;
  std::vector<std::vector<MemberText>> queued_;
};

JoinedFormation::JoinedFormation() : relay(std::make_shared<AddressRelay>()) {}
JoinedFormation::~JoinedFormation() = default;
JoinedFormation::JoinedFormation(JoinedFormation&&) noexcept = default;
JoinedFormation& JoinedFormation::operator=(JoinedFormation&&) noexcept = default;

JoinedFormation join_formation(std::optional<FormationEnv> env) {
  JoinedFormation f;
  if (!env) return f;
  f.id = env->formation_id;
  if (env->channel_fd) {
    auto first = std::make_shared<std::promise<std::string>>();
    auto got = first->get_future();
    ChannelReader::Handlers h;
    h.first_line = [first](std::string line) { first->set_value(std::move(line)); };
    h.failed = [first](const Failure& refusal) { first->set_exception(std::make_exception_ptr(refusal)); };
    h.line = [relay = f.relay](std::string line) {
      try {
        std::vector<MemberText> addresses;
        for (auto& a : parse_address_line(line)) addresses.push_back({a.name, a.url});
        relay->post(std::move(addresses));
      } catch (const ChannelLineRefused& e) {
        std::cerr << "warning: an address line was refused: " << e.what() << "\n";
      }
    };
    h.bad_line = [](const std::string& reason) { std::cerr << "warning: a formation channel line was refused: " << reason << "\n"; };
    h.closed = [] {};
    f.channel = std::make_unique<ChannelReader>(UniqueFd(*env->channel_fd), h);
    std::string line = got.get(); // throws the E-RUN-046 refusal
    try {
      f.bundle = std::make_shared<const FormationBundle>(parse_bundle(line, f.id));
    } catch (const ChannelLineRefused& e) {
      throw Failure("E-RUN-046", std::string("the formation channel's first line was refused: ") + e.what(),
                    "start members only through mur run --roster");
    }
  }
  if (env->lifeline_fd) {
    f.lifeline_fd = UniqueFd(*env->lifeline_fd);
    f.has_lifeline = true;
  } else {
    std::cerr << "warning[W-RUN-007]: this session is in formation " << f.id
              << " but has no lifeline; it will not end with the formation\n";
  }
  return f;
}

JoinedFormation join_as_child() {
  JoinedFormation f;
  auto lookup = [](const char* name) -> const char* { return std::getenv(name); };
  auto lifeline = read_spawner_lifeline(lookup);
  if (!lifeline)
    throw Failure("E-RUN-046", std::string(SPAWNER_LIFELINE_ENV) + " is not set: a delegated child needs its spawner lifeline",
                  "--spawn-grant-stdin is for a delegating member starting its child; run the capsule without it");
  ::unsetenv(SPAWNER_LIFELINE_ENV); // nothing this child starts reads it (its fd is close-on-exec)
  f.lifeline_fd = UniqueFd(*lifeline);
  auto env = read_formation_env_once();
  if (!env) return f;
  if (env->channel_fd || env->lifeline_fd)
    throw Failure("E-RUN-046", "a delegated child was handed a formation channel or lifeline",
                  "a child shares only the formation's id: only MURMUR_FORMATION_ID and MURMUR_SPAWNER_LIFELINE may be set");
  f.id = env->formation_id;
  return f;
}

void attach_member(JoinedFormation& f, const member_handle& member) {
  f.relay->attach(address_listener{member});
  if (f.lifeline_fd.valid()) {
    lifeline_listener listener{member};
    f.lifeline = std::make_unique<LifelineWatch>(std::move(f.lifeline_fd),
                                                 [listener] { caf::anon_send(listener, lifeline_atom_v); });
  }
}

void leave_formation(JoinedFormation& f) {
  if (f.channel) f.channel->stop();
  if (f.lifeline) f.lifeline->stop();
}

} // namespace mur
