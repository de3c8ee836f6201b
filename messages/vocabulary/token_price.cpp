// token_price.cpp — see token_price.hpp.
#include "messages/vocabulary/token_price.hpp"

#include <cmath>
#include <cstdio>

namespace mur {

namespace {
bool nothing_asked(const Usage& u) { return u.model_requests == 0 && u.tokens == 0; }
} // namespace

bool split_known(const Usage& u) { return u.token_reports > 0 || nothing_asked(u); }
bool reasoning_known(const Usage& u) { return u.reasoning_reports > 0 || nothing_asked(u); }

std::optional<double> cost_at(const Usage& u, const TokenPrice& p) {
  if (!split_known(u)) return std::nullopt;
  return (static_cast<double>(u.input_tokens) * p.input_per_mtok + static_cast<double>(u.output_tokens) * p.output_per_mtok) / 1e6;
}

double rounded_cost(double cost) { return std::round(cost * 1e9) / 1e9; }

std::string cost_words(double cost) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", cost);
  std::string s = buf;
  if (cost > 0 && s == "0.000000") return "<0.000001";
  while (s.size() > 1 && s.back() == '0' && s.size() - s.find('.') > 3) s.pop_back();
  return s;
}

nlohmann::json price_json(const TokenPrice& p) {
  return {{"input_per_mtok", p.input_per_mtok}, {"output_per_mtok", p.output_per_mtok}};
}

std::optional<TokenPrice> price_in(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto number = [&](const char* key) -> std::optional<double> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    const double d = it->get<double>();
    if (!std::isfinite(d) || d < 0) return std::nullopt;
    return d;
  };
  auto in = number("input_per_mtok"), out = number("output_per_mtok");
  if (!in || !out) return std::nullopt;
  return TokenPrice{*in, *out};
}

} // namespace mur
