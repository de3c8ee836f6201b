#include "messages/wire/transport_failure.hpp"

#include <caf/all.hpp>

namespace mur {
namespace {

const caf::atom_value transport_category = caf::atom("murnet");

} // namespace

caf::error make_transport_error(TransportFailure kind, std::string reason) {
  return caf::error(static_cast<std::uint8_t>(kind), transport_category, caf::make_message(std::move(reason)));
}

TransportFault transport_fault_of(const caf::error& err, caf::actor_system& sys) {
  if (err.category() == transport_category) {
    TransportFault f;
    if (err.code() >= static_cast<std::uint8_t>(TransportFailure::refused) &&
        err.code() <= static_cast<std::uint8_t>(TransportFailure::other))
      f.kind = static_cast<TransportFailure>(err.code());
    const caf::message& ctx = err.context();
    f.reason = ctx.size() == 1 && ctx.match_element<std::string>(0) ? ctx.get_as<std::string>(0) : "unknown";
    return f;
  }
  if (err.category() == caf::atom("system") && err.code() == static_cast<std::uint8_t>(caf::sec::request_timeout)) return {TransportFailure::timed_out, "timed out"};
  return {TransportFailure::other, sys.render(err)};
}

void add_transport_error_category(caf::actor_system_config& cfg) {
  cfg.add_error_category(transport_category, [](std::uint8_t, caf::atom_value, const caf::message& ctx) -> std::string {
    if (ctx.size() == 1 && ctx.match_element<std::string>(0)) return ctx.get_as<std::string>(0);
    return "the door could not be reached";
  });
}

} // namespace mur
