// token_price.hpp — what a model's tokens cost (a capsule's `inference.price`), and the cost of
// a usage at that price.
//
// Invariant: a price is two finite numbers ≥ 0, per million tokens, in whatever unit the
// capsule's author wrote them in (mur knows no currency). A cost is input_tokens × input price +
// output_tokens × output price, divided by 10^6; reasoning tokens are part of output_tokens (as
// Chat Completions reports them) and are not charged twice. A usage with no token counts
// reported has no cost (n/a), never 0.
// Rule: an optional `inference.price: {input_per_mtok, output_per_mtok}` turns tokens into a
// cost (docs/traces.md §Usage and cost; docs/manifest.md).
#pragma once

#include "messages/vocabulary/task_budget.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mur {

struct TokenPrice {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
  MUR_FIELDS(input_per_mtok, output_per_mtok)
};

// The largest price per million tokens a manifest may name.
inline constexpr double max_price_per_mtok = 1e9;

// Whether `u`'s split of tokens (input, output) is known: some server reported it, or nothing
// was asked of a model (0 is then exact). Reasoning likewise, by reasoning_reports.
bool split_known(const Usage& u);
bool reasoning_known(const Usage& u);

// The cost of `u`'s reported tokens at `p`; nullopt when the split is not known.
std::optional<double> cost_at(const Usage& u, const TokenPrice& p);

// A cost as the trace readers write it in JSON: rounded to 10^-9 of the price's unit.
double rounded_cost(double cost);

// A cost in words: "0.00123" — rounded to 6 decimals, trailing zeros dropped down to 2
// ("1.50", "0.00"); a cost above 0 that rounds to 0 reads "<0.000001".
std::string cost_words(double cost);

// session_start's `price` ({input_per_mtok, output_per_mtok}).
nlohmann::json price_json(const TokenPrice& p);
// A `price` object read back from a trace: nullopt unless both numbers are finite and ≥ 0.
std::optional<TokenPrice> price_in(const nlohmann::json& j);

} // namespace mur
