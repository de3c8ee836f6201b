// The call chain: how a call is judged against the members above it, how the chain crosses the
// wire (message.metadata.murmur.chain), the bundle and roster keys that carry the rule, and the
// loops doctor warns about.
#include "http/jsonrpc_call.hpp"
#include "launcher/admission/cycle_warnings.hpp"
#include "launcher/admission/roster.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/call_chain.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/wire/agent_card.hpp"
#include "token_forge.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace mur;
using nlohmann::json;

TEST_CASE("a call is judged against its chain: cycles, the caller itself, depth", "[chain]") {
  const ChainRule strict;
  CHECK(judge_call(strict, {}, "lead", "a") == ChainVerdict::ok);
  CHECK(judge_call(strict, {"lead"}, "a", "b") == ChainVerdict::ok);
  CHECK(judge_call(strict, {"lead", "a"}, "b", "a") == ChainVerdict::cycle);
  CHECK(judge_call(strict, {"lead", "a"}, "b", "lead") == ChainVerdict::cycle);
  CHECK(judge_call(strict, {}, "a", "a") == ChainVerdict::cycle);
  const ChainRule loose{true, 3};
  CHECK(judge_call(loose, {"lead", "a"}, "b", "a") == ChainVerdict::ok);       // depth 3
  CHECK(judge_call(loose, {"lead", "a", "b"}, "a", "b") == ChainVerdict::depth); // depth 4
  std::vector<std::string> seven(7, "x");
  CHECK(judge_call(strict, seven, "y", "z") == ChainVerdict::ok);                      // depth 8, the default
  CHECK(judge_call(strict, chain_below(seven, "y"), "z", "w") == ChainVerdict::depth); // depth 9
  CHECK(chain_below({"lead"}, "a") == std::vector<std::string>{"lead", "a"});
  CHECK(chain_words({"lead", "a", "b"}, "a") == "lead \u2192 a \u2192 b \u2192 a");
}

namespace {

std::variant<DoorRequest, a2a::RpcProblem> send_with(json metadata) {
  a2a::RpcCall c;
  c.id = "1";
  c.method = "SendMessage";
  c.door_method = DoorMethod::send_message;
  c.params = json{{"message", {{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", "hi"}}})}}}};
  if (!metadata.is_null()) c.params["message"]["metadata"] = std::move(metadata);
  return a2a::door_request_from(c);
}

} // namespace

TEST_CASE("the chain crosses the wire as message.metadata.murmur.chain", "[chain][a2a]") {
  DoorRequest out;
  out.method = DoorMethod::send_message;
  out.text = "do it";
  out.chain = {"lead", "a"};
  json wire = a2a::request_json("c-1", out);
  CHECK(wire["params"]["message"]["metadata"] == json{{"murmur", {{"chain", {"lead", "a"}}}}});
  CHECK(wire["params"]["message"]["extensions"] == json::array({a2a::call_extension_uri}));
  auto back = a2a::door_request_from(std::get<a2a::RpcCall>(a2a::parse_envelope(wire.dump())));
  REQUIRE(std::holds_alternative<DoorRequest>(back));
  CHECK(std::get<DoorRequest>(back).chain == out.chain);
  // A call with no chain writes no metadata at all.
  out.chain.clear();
  CHECK_FALSE(a2a::request_json("c-2", out)["params"]["message"].contains("metadata"));

  // Other metadata is left alone; the murmur key's shape is checked.
  auto other = send_with(json{{"trace", "x"}});
  REQUIRE(std::holds_alternative<DoorRequest>(other));
  CHECK(std::get<DoorRequest>(other).chain.empty());
  auto code = [](const std::variant<DoorRequest, a2a::RpcProblem>& v) {
    return std::holds_alternative<a2a::RpcProblem>(v) ? std::get<a2a::RpcProblem>(v).code : 0;
  };
  CHECK(code(send_with(json{{"murmur", "x"}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"chain", "lead"}}}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"chain", {"Lead"}}}}})) == -32602); // not a member name
  CHECK(code(send_with(json{{"murmur", {{"chain", {1}}}}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"chain", std::vector<std::string>(65, "a")}}}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"chain", std::vector<std::string>(64, "a")}}}})) == 0);

  // How long the caller still waits: deadlineMs, 1 ms to 7 days, beside or without the chain.
  out.deadline_ms = 4000;
  json timed = a2a::request_json("c-3", out);
  CHECK(timed["params"]["message"]["metadata"] == json{{"murmur", {{"deadlineMs", 4000}}}});
  auto read = a2a::door_request_from(std::get<a2a::RpcCall>(a2a::parse_envelope(timed.dump())));
  REQUIRE(std::holds_alternative<DoorRequest>(read));
  CHECK(std::get<DoorRequest>(read).deadline_ms == 4000);
  CHECK(code(send_with(json{{"murmur", {{"deadlineMs", 0}}}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"deadlineMs", "4000"}}}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"deadlineMs", 1.5}}}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"deadlineMs", 604800001}}}})) == -32602);
  CHECK(code(send_with(json{{"murmur", {{"deadlineMs", 604800000}, {"chain", {"lead"}}}}})) == 0);
}

TEST_CASE("a cancel says how long its sender waits as metadata.murmur.confirmWithinMs", "[chain][a2a][cancel]") {
  DoorRequest out;
  out.method = DoorMethod::cancel_task;
  out.task_id = "tsk_1";
  CHECK_FALSE(a2a::request_json("k-1", out)["params"].contains("metadata")); // nothing said: nothing written
  out.deadline_ms = 4500;
  json wire = a2a::request_json("k-2", out);
  CHECK(wire["params"] == json{{"id", "tsk_1"}, {"metadata", {{"murmur", {{"confirmWithinMs", 4500}}}}}});
  auto back = a2a::door_request_from(std::get<a2a::RpcCall>(a2a::parse_envelope(wire.dump())));
  REQUIRE(std::holds_alternative<DoorRequest>(back));
  CHECK(std::get<DoorRequest>(back).deadline_ms == 4500);
  auto with = [](json md) {
    a2a::RpcCall c;
    c.id = "1";
    c.method = "CancelTask";
    c.door_method = DoorMethod::cancel_task;
    c.params = json{{"id", "tsk_1"}, {"metadata", std::move(md)}};
    auto v = a2a::door_request_from(c);
    return std::holds_alternative<a2a::RpcProblem>(v) ? std::get<a2a::RpcProblem>(v).code : 0;
  };
  CHECK(with(json{{"other", 1}}) == 0); // metadata of others is left alone
  CHECK(with(json{{"murmur", {{"confirmWithinMs", 250}}}}) == 0);
  CHECK(with(json{{"murmur", {{"confirmWithinMs", 60000}}}}) == 0);
  CHECK(with(json{{"murmur", {{"confirmWithinMs", 249}}}}) == -32602);
  CHECK(with(json{{"murmur", {{"confirmWithinMs", 60001}}}}) == -32602);
  CHECK(with(json{{"murmur", {{"confirmWithinMs", "5000"}}}}) == -32602);
  CHECK(with(json{{"murmur", 1}}) == -32602);
  CHECK(with(json("x")) == -32602);
}

TEST_CASE("an authenticated door's card declares the call extension", "[chain][a2a]") {
  a2a::CardFacts f;
  f.capsule_name = "worker";
  f.capsule_version = "1.0.0";
  f.authenticated = true;
  auto uris = [](const json& card) {
    std::vector<std::string> out;
    for (const auto& e : card["capabilities"]["extensions"]) out.push_back(e["uri"]);
    return out;
  };
  auto authed = uris(a2a::agent_card(f));
  CHECK(std::find(authed.begin(), authed.end(), a2a::call_extension_uri) != authed.end());
  f.authenticated = false;
  auto open = uris(a2a::agent_card(f));
  CHECK(std::find(open.begin(), open.end(), a2a::call_extension_uri) == open.end());
}

TEST_CASE("the bundle carries the roster's chain rule only when it is not the default", "[chain][credentials]") {
  FormationAuthority a(test::kFormation);
  FormationBundle b;
  b.formation_id = a.formation_id();
  b.member = "coder";
  b.verify_key = a.verify_key();
  CHECK(render_bundle(b).find("\"chain\"") == std::string::npos);
  CHECK(parse_bundle(render_bundle(b)).chain_rule.max_depth == default_max_depth);
  b.chain_rule = ChainRule{true, 5};
  const std::string line = render_bundle(b);
  CHECK(line.find("\"chain\":{\"allow_cycles\":true,\"max_depth\":5}") != std::string::npos);
  const FormationBundle back = parse_bundle(line);
  CHECK(back.chain_rule.allow_cycles);
  CHECK(back.chain_rule.max_depth == 5);
  for (const char* bad : {"{\"allow_cycles\":1,\"max_depth\":5}", "{\"allow_cycles\":true,\"max_depth\":0}",
                          "{\"allow_cycles\":true,\"max_depth\":65}", "{\"allow_cycles\":true}",
                          "{\"allow_cycles\":true,\"max_depth\":5,\"x\":1}", "[]"}) {
    INFO(bad);
    json j = json::parse(line);
    j["chain"] = json::parse(bad);
    CHECK_THROWS_AS(parse_bundle(j.dump()), ChannelLineRefused);
  }
}

namespace {
const std::string kMembers =
    "roster_version: 1\nmembers:\n  - {name: lead, capsule: lead-c, version: 1.0.0, entry: true}\n";
}

TEST_CASE("roster.yaml: allow_cycles, limits.max_depth and limits.max_live", "[chain][roster]") {
  CHECK_FALSE(parse_roster(kMembers, "roster.yaml").chain_rule.allow_cycles);
  CHECK(parse_roster(kMembers, "roster.yaml").chain_rule.max_depth == 8);
  auto r = parse_roster(kMembers + "allow_cycles: true\nlimits: {max_depth: 12}\n", "roster.yaml");
  CHECK(r.chain_rule.allow_cycles);
  CHECK(r.chain_rule.max_depth == 12);
  CHECK(parse_roster(kMembers, "roster.yaml").max_live == 64);
  CHECK(parse_roster(kMembers + "limits: {max_live: 4096}\n", "roster.yaml").max_live == 4096);
  CHECK(parse_roster(kMembers + "limits: {max_depth: 3, max_live: 1}\n", "roster.yaml").max_live == 1);
  for (const char* bad : {"allow_cycles: \"true\"\n", "allow_cycles: yes please\n", "limits: {max_depth: 0}\n",
                          "limits: {max_depth: 65}\n", "limits: {max_depth: \"4\"}\n", "limits: {depth: 4}\n",
                          "limits: 4\n", "limits: {max_live: 0}\n", "limits: {max_live: 4097}\n",
                          "limits: {max_live: many}\n", "limits: {max_live: -1}\n"}) {
    INFO(bad);
    try {
      parse_roster(kMembers + bad, "roster.yaml");
      FAIL("accepted");
    } catch (const Failure& f) {
      CHECK(f.code() == "E-ROS-001");
    }
  }
}

TEST_CASE("find_cycle names one loop from its first node back to it", "[chain]") {
  std::map<std::string, std::vector<std::string>> g{{"lead", {"a"}}, {"a", {"b"}}, {"b", {"c", "a"}}, {"c", {}}};
  auto next = [&](const std::string& n) { return g.count(n) ? g.at(n) : std::vector<std::string>{}; };
  auto c = find_cycle({"lead"}, next);
  REQUIRE(c);
  CHECK(*c == std::vector<std::string>{"a", "b", "a"});
  g["b"] = {"c"};
  CHECK_FALSE(find_cycle({"lead", "a", "b", "c"}, next));
  g["c"] = {"c"};
  CHECK(*find_cycle({"lead"}, next) == std::vector<std::string>{"c", "c"});
}

TEST_CASE("W-ROS-004 names a cycle of the edges unless cycles are allowed", "[chain][roster]") {
  Admission a;
  for (const char* n : {"lead", "coder", "reviewer"}) {
    AdmittedMember m;
    m.declared.name = n;
    a.members.push_back(m);
  }
  a.edges = {{"lead", "coder"}, {"coder", "reviewer"}};
  CHECK_FALSE(call_cycle_warning(a));
  a.edges.push_back({"reviewer", "coder"});
  auto w = call_cycle_warning(a);
  REQUIRE(w);
  CHECK(w->code == "W-ROS-004");
  CHECK(w->message.find("coder \u2192 reviewer \u2192 coder") != std::string::npos);
  CHECK(w->fix.find("allow_cycles: true") != std::string::npos);
  a.roster.chain_rule.allow_cycles = true;
  CHECK_FALSE(call_cycle_warning(a));
}
