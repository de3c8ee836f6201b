// connection_gate.hpp — the connection ceiling of every RESTinio listener, and the settings that
// put it in place. Included only by http/door_server.cpp, the one translation unit that
// includes RESTinio.
//
// Invariant: a listener holds at most its ceiling of open connections; one past it is closed
// at its accept, and accepting goes on by itself as connections end.
#pragma once

#include <restinio/all.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <set>

namespace mur {
namespace {

// Every listener counts its connections (accepted and closed, as RESTinio reports them) and
// closes one past its ceiling at once, before it costs more than the moment of its accept
// (http/connection_ceiling.hpp). (RESTinio's own count limiter cannot sit beside it: in 0.6.16
// it counts an accept the IP blocker denied as active for good, so each denial would shrink it
// by one until the door never accepts again.)
class ConnectionGate {
public:
  explicit ConnectionGate(std::size_t ceiling) : ceiling_(ceiling) {}
  restinio::ip_blocker::inspection_result_t inspect(const restinio::ip_blocker::incoming_info_t&) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    return open_.size() < ceiling_ ? restinio::ip_blocker::allow() : restinio::ip_blocker::deny();
  }
  void state_changed(const restinio::connection_state::notice_t& n) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    const auto cause = n.cause();
    try {
      if (restinio::holds_alternative<restinio::connection_state::accepted_t>(cause)) open_.insert(n.connection_id());
      else if (restinio::holds_alternative<restinio::connection_state::closed_t>(cause)) open_.erase(n.connection_id());
    } catch (...) { // out of memory for one id: the backing limiter still holds
    }
  }
  std::size_t ceiling() const { return ceiling_; }

private:
  const std::size_t ceiling_;
  std::mutex mu_; // one io thread calls both; the lock only keeps that assumption out of the rule
  std::set<restinio::connection_id_t> open_;
};

struct traits : restinio::default_single_thread_traits_t {
  using ip_blocker_t = ConnectionGate;
  using connection_state_listener_t = ConnectionGate;
};

// Settings every listener shares: its gate.
template <class Traits>
restinio::server_settings_t<Traits> gated_settings(std::size_t ceiling) {
  auto gate = std::make_shared<ConnectionGate>(ceiling);
  restinio::server_settings_t<Traits> s;
  s.ip_blocker(gate).connection_state_listener(gate);
  return s;
}

} // namespace
} // namespace mur
