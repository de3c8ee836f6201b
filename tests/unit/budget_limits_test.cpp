// Where budgets are written down: murmur.yaml's and roster.yaml's `limits:` sections
// (capsule/limits_section, capsule/manifest, launcher/admission/roster) and the roster's limits
// as they reach each member on its formation channel's first line (formation_bundle).
#include "capsule/manifest.hpp"
#include "launcher/admission/roster.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "manifest_refusal.hpp"
#include "refusal_of.hpp"
#include "token_forge.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

using namespace mur;
using test::kFormation;

namespace {

const std::int64_t none = no_limit;

void check_limits(const SpendLimits& l, std::int64_t tokens, std::int64_t model_requests, std::int64_t tool_calls,
                  std::int64_t calls, std::int64_t wall_secs) {
  CHECK(l.budget.max_tokens == tokens);
  CHECK(l.budget.max_model_requests == model_requests);
  CHECK(l.budget.max_tool_calls == tool_calls);
  CHECK(l.budget.max_calls == calls);
  CHECK(l.max_wall_secs == wall_secs);
}

FormationBundle bundle_for(const FormationAuthority& a) {
  FormationBundle b;
  b.formation_id = a.formation_id();
  b.member = "coder";
  b.verify_key = a.verify_key();
  b.calls.push_back({"reviewer", a.mint("coder", "reviewer")});
  return b;
}

const std::string limits_refusal =
    "the formation channel's first line was refused: limits is not an object of max_tokens, max_model_requests, "
    "max_tool_calls, max_calls (0 to 10^12) and max_wall_secs (1 to 604800), at least one";

// Why parse_bundle refuses `line` ("" when it takes it).
std::string bundle_refusal(const std::string& line) {
  try {
    parse_bundle(line, kFormation);
  } catch (const ChannelLineRefused& e) {
    return e.what();
  }
  return "";
}

const std::string head = "name: worker\nversion: 1.0.0\n";
const std::string lead =
    "roster_version: 1\nmembers:\n  - {name: lead, capsule: acme-lead, version: 1.0.0, entry: true}\n";

Failure roster_refusal(const std::string& text) {
  return test::refusal_of([](const std::string& t) { parse_roster(t, "roster.yaml"); }, text, "roster");
}

} // namespace

TEST_CASE("the bundle carries the roster's limits only when they bound something", "[budget][credentials]") {
  FormationAuthority a(kFormation);
  FormationBundle b = bundle_for(a);
  const std::string plain = render_bundle(b);
  CHECK(plain.find("\"limits\"") == std::string::npos);
  check_limits(parse_bundle(plain, kFormation).limits, none, none, none, none, 0);

  b.limits.budget.max_tokens = 5000;
  b.limits.budget.max_calls = 0;
  b.limits.max_wall_secs = 120;
  const std::string line = render_bundle(b);
  const std::string tail = ",\"limits\":{\"max_tokens\":5000,\"max_calls\":0,\"max_wall_secs\":120}}";
  REQUIRE(line.size() > tail.size());
  CHECK(line.substr(line.size() - tail.size()) == tail); // the last field, limits bounding nothing left out
  const FormationBundle back = parse_bundle(line, kFormation);
  check_limits(back.limits, 5000, none, none, 0, 120);
  CHECK(back.member == "coder");
  REQUIRE(back.calls.size() == 1);
  CHECK(render_bundle(back) == line);

  // Every one, at its largest, after the chain.
  b.chain_rule = ChainRule{true, 5};
  b.limits.budget = Budget{};
  b.limits.budget.max_tokens = max_limit_value;
  b.limits.budget.max_model_requests = 1;
  b.limits.budget.max_tool_calls = 2;
  b.limits.budget.max_calls = 3;
  b.limits.max_wall_secs = max_wall_secs_limit;
  const std::string full = render_bundle(b);
  CHECK(full.find("\"chain\":{\"allow_cycles\":true,\"max_depth\":5},\"limits\":{\"max_tokens\":1000000000000,"
                  "\"max_model_requests\":1,\"max_tool_calls\":2,\"max_calls\":3,\"max_wall_secs\":604800}}") !=
        std::string::npos);
  const FormationBundle all = parse_bundle(full, kFormation);
  check_limits(all.limits, max_limit_value, 1, 2, 3, max_wall_secs_limit);
  CHECK(all.chain_rule.max_depth == 5);
  CHECK(render_bundle(all) == full);

  // Only the wall clock.
  b.limits = SpendLimits{};
  b.limits.max_wall_secs = 1;
  const std::string wall = render_bundle(b);
  CHECK(wall.find("\"limits\":{\"max_wall_secs\":1}") != std::string::npos);
  check_limits(parse_bundle(wall, kFormation).limits, none, none, none, none, 1);
}

TEST_CASE("a bundle with bad limits is refused without quoting the line", "[budget][credentials]") {
  FormationAuthority a(kFormation);
  const FormationBundle good = bundle_for(a);
  const std::string token = good.calls[0].token.expose();
  const std::string key = b64url::encode(good.verify_key.data(), good.verify_key.size());
  const std::vector<std::string> bad = {
      "{}",                                   // bounds nothing: never rendered
      "{\"max_turns\":3}",                    // unknown key
      "{\"max_tokens\":5,\"maxCalls\":1}",    // one good, one unknown
      "{\"max_wall_secs\":0}",                // 0 is "none": never rendered
      "{\"max_wall_secs\":604801}",
      "{\"max_wall_secs\":-1}",
      "{\"max_tokens\":-1}",                  // none's own -1 is never rendered
      "{\"max_calls\":-5}",
      "{\"max_model_requests\":1000000000001}",
      "{\"max_tool_calls\":18446744073709551615}",
      "{\"max_tokens\":\"5\"}",
      "{\"max_tokens\":1.5}",
      "{\"max_tokens\":null}",
      "{\"max_tokens\":true}",
      "[]", "[{\"max_tokens\":5}]", "5", "\"max_tokens\"", "null",
  };
  for (const auto& limits : bad) {
    nlohmann::ordered_json o = nlohmann::ordered_json::parse(render_bundle(good));
    o["limits"] = nlohmann::ordered_json::parse(limits);
    const std::string line = o.dump();
    INFO(line);
    const std::string reason = bundle_refusal(line);
    CHECK(reason == limits_refusal);
    CHECK(reason.find(token) == std::string::npos);
    CHECK(reason.find(key) == std::string::npos);
    CHECK(reason.find(kFormation) == std::string::npos);
    CHECK_THROWS_AS(parse_bundle(line), ChannelLineRefused);
  }
  // The same keys at their bounds are taken.
  nlohmann::ordered_json o = nlohmann::ordered_json::parse(render_bundle(good));
  o["limits"] = nlohmann::ordered_json::parse(R"({"max_tokens":0,"max_calls":1000000000000,"max_wall_secs":604800})");
  CHECK(bundle_refusal(o.dump()).empty());
  check_limits(parse_bundle(o.dump()).limits, 0, none, none, max_limit_value, max_wall_secs_limit);
  // A misspelt field is not an optional one.
  nlohmann::ordered_json misspelt = nlohmann::ordered_json::parse(render_bundle(good));
  misspelt["limit"] = nlohmann::ordered_json::parse(R"({"max_tokens":5})");
  CHECK(bundle_refusal(misspelt.dump()) ==
        "the formation channel's first line was refused: it does not hold exactly formation_id, member, verify_key, "
        "calls and an optional launcher, chain, limits and tls");
  // A repeated limits key is refused as a repeated key.
  const std::string twice = render_bundle(good).substr(0, render_bundle(good).size() - 1) +
                            ",\"limits\":{\"max_tokens\":1},\"limits\":{\"max_tokens\":2}}";
  CHECK(bundle_refusal(twice) == "the formation channel's first line was refused: it is not JSON, or repeats a key");
}

TEST_CASE("murmur.yaml limits: spending, wall clock and depth", "[budget][manifest]") {
  const Manifest m =
      parse_manifest(head + "limits: {max_tokens: 1000, max_calls: 2, max_wall_secs: 60, max_depth: 2}\n", "murmur.yaml");
  check_limits(m.limits, 1000, none, none, 2, 60);
  CHECK(m.max_depth == 2);

  const Manifest plain = parse_manifest(head, "murmur.yaml");
  check_limits(plain.limits, none, none, none, none, 0);
  CHECK(plain.limits.bounds_nothing());
  CHECK(plain.max_depth == 0);

  const Manifest all = parse_manifest(head + R"(limits:
  max_tokens: 0
  max_model_requests: 1000000000000
  max_tool_calls: 3
  max_calls: 0
  max_wall_secs: 604800
  max_depth: 64
)", "murmur.yaml");
  check_limits(all.limits, 0, max_limit_value, 3, 0, 604800);
  CHECK(all.max_depth == 64);
  const Manifest low = parse_manifest(head + "limits: {max_wall_secs: 1, max_depth: 1}\n", "murmur.yaml");
  check_limits(low.limits, none, none, none, none, 1);
  CHECK(low.max_depth == 1);
}

TEST_CASE("murmur.yaml limits refusals are E-MAN-002 naming the key path", "[budget][manifest]") {
  auto with_head = [](const std::string& text) { return head + text; };
  test::manifest_refused_each("E-MAN-002", with_head, {
    {"limits: {max_turns: 3}\n", "murmur.yaml: limits.max_turns: is not a known key"},
    {"limits: {max_live: 3}\n", "murmur.yaml: limits.max_live: is not a known key"}, // the roster's, not a capsule's
    {"limits: {max_wall_secs: 0}\n", "murmur.yaml: limits.max_wall_secs: must be between 1 and 604800"},
    {"limits: {max_wall_secs: 604801}\n", "murmur.yaml: limits.max_wall_secs: must be between 1 and 604800"},
    {"limits: {max_calls: -1}\n", "murmur.yaml: limits.max_calls: must be between 0 and 1000000000000"},
    {"limits: {max_tool_calls: -1}\n", "murmur.yaml: limits.max_tool_calls: must be between 0 and 1000000000000"},
    {"limits: {max_model_requests: 1000000000001}\n",
     "murmur.yaml: limits.max_model_requests: must be between 0 and 1000000000000"},
    {"limits: {max_tokens: \"5\"}\n",
     "murmur.yaml: limits.max_tokens: must be a whole number (unquoted) between 0 and 1000000000000"},
    {"limits: {max_tokens: 1.5}\n", "murmur.yaml: limits.max_tokens: must be a whole number between 0 and 1000000000000"},
    {"limits: {max_tokens: lots}\n", "murmur.yaml: limits.max_tokens: must be a whole number between 0 and 1000000000000"},
    {"limits: {max_depth: 0}\n", "murmur.yaml: limits.max_depth: must be between 1 and 64"},
    {"limits: {max_depth: 65}\n", "murmur.yaml: limits.max_depth: must be between 1 and 64"},
    {"limits: 5\n", "murmur.yaml: limits: must be a mapping"},
    {"limits: {max_calls: 1, max_calls: 2}\n", "murmur.yaml: limits.max_calls: appears more than once"},
  });
  const Failure unknown = test::manifest_refusal(head + "limits: {max_turns: 3}\n");
  CHECK(unknown.fix().find("max_tokens, max_model_requests, max_tool_calls, max_calls, max_wall_secs, max_depth") !=
        std::string::npos);
}

TEST_CASE("roster.yaml limits: the formation's spending beside max_depth and max_live", "[budget][roster]") {
  const Roster r = parse_roster(lead + "limits: {max_live: 10, max_tokens: 5000}\n", "roster.yaml");
  CHECK(r.max_live == 10);
  check_limits(r.spend, 5000, none, none, none, 0);
  CHECK(r.chain_rule.max_depth == 8);

  const Roster plain = parse_roster(lead, "roster.yaml");
  CHECK(plain.spend.bounds_nothing());
  check_limits(plain.spend, none, none, none, none, 0);

  const Roster all = parse_roster(lead + R"(limits:
  max_depth: 3
  max_tokens: 1000000000000
  max_model_requests: 7
  max_tool_calls: 0
  max_calls: 4
  max_wall_secs: 600
)", "roster.yaml");
  CHECK(all.chain_rule.max_depth == 3);
  CHECK(all.max_live == 64);
  check_limits(all.spend, max_limit_value, 7, 0, 4, 600);
}

TEST_CASE("roster.yaml limits refusals are E-ROS-001 naming the key path", "[budget][roster]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"limits: {max_turns: 3}\n", "roster.yaml: limits.max_turns: is not a known key"},
      {"limits: {max_wall_secs: 0}\n", "roster.yaml: limits.max_wall_secs: must be between 1 and 604800"},
      {"limits: {max_wall_secs: 604801}\n", "roster.yaml: limits.max_wall_secs: must be between 1 and 604800"},
      {"limits: {max_calls: -1}\n", "roster.yaml: limits.max_calls: must be between 0 and 1000000000000"},
      {"limits: {max_model_requests: 1000000000001}\n",
       "roster.yaml: limits.max_model_requests: must be between 0 and 1000000000000"},
      {"limits: {max_tokens: \"5\"}\n",
       "roster.yaml: limits.max_tokens: must be a whole number (unquoted) between 0 and 1000000000000"},
      {"limits: {max_tool_calls: many}\n",
       "roster.yaml: limits.max_tool_calls: must be a whole number between 0 and 1000000000000"},
      {"limits: {max_live: 10, max_tokens: -5}\n", "roster.yaml: limits.max_tokens: must be between 0 and 1000000000000"},
  };
  for (const auto& [text, fragment] : cases) {
    const Failure f = roster_refusal(lead + text);
    test::check_refusal(f, lead + text, "E-ROS-001", fragment);
    CHECK(f.message().rfind("roster.yaml: ", 0) == 0);
  }
  const Failure unknown = roster_refusal(lead + "limits: {max_turns: 3}\n");
  CHECK(unknown.fix().find("max_depth, max_live, max_tokens, max_model_requests, max_tool_calls, max_calls, "
                           "max_wall_secs") != std::string::npos);
}
