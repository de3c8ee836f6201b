#include "capsule/limits_section.hpp"

namespace mur {

SpendLimits read_spend_limits(const yaml::Value& section) {
  SpendLimits out;
  for (Spend s : {Spend::tokens, Spend::model_requests, Spend::tool_calls, Spend::calls})
    if (auto v = section.get(limit_name(s))) limit_of(out.budget, s) = v->integer(0, max_limit_value);
  if (auto w = section.get("max_wall_secs")) out.max_wall_secs = w->integer(1, max_wall_secs_limit);
  return out;
}

} // namespace mur
