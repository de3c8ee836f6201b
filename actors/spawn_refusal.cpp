// spawn_refusal.cpp — see spawn_refusal.hpp.
#include "actors/spawn_refusal.hpp"

#include <caf/all.hpp>

namespace mur {
namespace {

const caf::atom_value spawn_category = caf::atom("murspawn");

} // namespace

caf::error spawn_refusal(const std::string& reason) { return caf::error(1, spawn_category, caf::make_message(reason)); }

std::optional<std::string> spawn_refusal_reason(const caf::error& err) {
  const caf::message& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0)) return ctx.get_as<std::string>(0);
  return std::nullopt;
}

void add_spawn_error_category(caf::actor_system_config& cfg) {
  cfg.add_error_category(spawn_category, [](std::uint8_t, caf::atom_value, const caf::message& ctx) -> std::string {
    return ctx.size() == 1 && ctx.match_element<std::string>(0) ? ctx.get_as<std::string>(0)
                                                                : std::string("the member could not be started");
  });
}

} // namespace mur
