// Usage and cost end to end (docs/traces.md §Usage and cost): a formation of http members against
// the replay server's `lead-usage` and `coder-usage` scenarios, whose completions report fixed
// token counts (the lead's with reasoning tokens, the coder's without), with prices in their
// manifests. `mur trace show` (text and --json) gives each task, member and the formation its
// tokens, requests, calls and cost; `mur ps` gives them while the formation runs, a call held by
// the replay server's gate.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "model_replay.hpp"
#include "run_command.hpp"

#include <chrono>
#include <cmath>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;

namespace {

// What each completion of the scenarios reports (tests/models/fixtures/scenarios.json).
constexpr std::int64_t lead_in = 1000, lead_out = 200, lead_reasoning = 50;
constexpr std::int64_t coder_in = 400, coder_out = 100;
// The prices the capsules name, per million tokens.
const std::string lead_price = "  price: {input_per_mtok: 2.5, output_per_mtok: 10}\n";
const std::string coder_price = "  price: {input_per_mtok: 1, output_per_mtok: 4}\n";
constexpr double lead_cost = (lead_in * 2.5 + lead_out * 10) / 1e6;   // 0.0045 a request
constexpr double coder_cost = (coder_in * 1.0 + coder_out * 4) / 1e6;  // 0.0008 a request

double rounded(double c) { return std::round(c * 1e9) / 1e9; }

json member_of(const json& shown, const std::string& name) {
  for (const auto& m : shown["members"])
    if (m["member"] == name) return m;
  FAIL("no member " << name << " in " << shown.dump());
  return {};
}

json shown_json(const FormationFixture& f, const std::string& frm) {
  Ran r = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, f.env);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out, nullptr, false);
  REQUIRE(j.is_object());
  return j;
}

// `mur ps --json`'s formation, asked until its members' ended tasks made `requests` model
// requests in all (a trace is flushed within 200 ms of its last event; bounded by `generous`).
json ps_formation_at(const FormationFixture& f, std::int64_t requests) {
  json formation;
  const auto until = std::chrono::steady_clock::now() + generous;
  while (std::chrono::steady_clock::now() < until) {
    json j = json::parse(run_command({MUR_BINARY, "ps", "--json"}, f.env).out, nullptr, false);
    REQUIRE(j.is_object());
    REQUIRE(j["formations"].size() == 1);
    formation = j["formations"][0];
    if (formation["usage"]["model_requests"] == requests) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return formation;
}

} // namespace

TEST_CASE("usage and cost per task, member and formation in mur trace show, text and json", "[process][usage]") {
  ModelFormation m;
  m.lead_and_coder("lead-usage", lead_price, "coder-usage", coder_price);
  Ran r = m.run_task("add a flag");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "Lead says: coder said: coder did: add a flag\n");
  const std::string frm = formation_id_in(r.err);
  const json j = shown_json(m.f, frm);

  // The lead asked its model n times (the call, the held tool result, the continuation).
  const json lead = member_of(j, "lead"), coder = member_of(j, "coder");
  const std::int64_t n = lead["usage"]["model_requests"];
  REQUIRE(n >= 2);
  CHECK(lead["usage"] == json{{"tokens", n * (lead_in + lead_out)}, {"input_tokens", n * lead_in},
                              {"output_tokens", n * lead_out}, {"reasoning_tokens", n * lead_reasoning},
                              {"model_requests", n}, {"tool_calls", 0}, {"calls", 1}, {"cost", rounded(n * lead_cost)}});
  CHECK(coder["usage"] == json{{"tokens", coder_in + coder_out}, {"input_tokens", coder_in}, {"output_tokens", coder_out},
                               {"reasoning_tokens", nullptr}, {"model_requests", 1}, {"tool_calls", 0}, {"calls", 0},
                               {"cost", rounded(coder_cost)}});
  CHECK(lead["price"] == json{{"input_per_mtok", 2.5}, {"output_per_mtok", 10.0}});
  CHECK(lead["model"]["reasoning_tokens"] == n * lead_reasoning);
  CHECK(coder["model"]["reasoning_tokens"].is_null()); // its server reported none
  CHECK(coder["model"]["prompt_tokens"] == coder_in);
  // The formation: every member's own spending once, each at its own price.
  const double all = rounded(n * lead_cost + coder_cost);
  CHECK(j["usage"] == json{{"tokens", n * (lead_in + lead_out) + coder_in + coder_out},
                           {"input_tokens", n * lead_in + coder_in}, {"output_tokens", n * lead_out + coder_out},
                           {"reasoning_tokens", n * lead_reasoning}, {"model_requests", n + 1}, {"tool_calls", 0},
                           {"calls", 1}, {"cost", all}});
  // The lead's task: its tree (the coder's task below it) and its own.
  REQUIRE(j["tasks"].size() == 1);
  const json task = j["tasks"][0];
  CHECK(task["usage"] == j["usage"]);
  CHECK(task["own_usage"]["cost"] == rounded(n * lead_cost));
  CHECK(task["own_usage"]["input_tokens"] == n * lead_in);
  CHECK(task["calls"][0]["task"]["usage"]["cost"] == rounded(coder_cost));

  Ran text = run_command({MUR_BINARY, "trace", "show", frm}, m.f.env);
  REQUIRE(text.exit_code == 0);
  INFO(text.out);
  auto grouped = [](std::int64_t v) { // 3600 → "3,600"
    std::string d = std::to_string(v), out;
    for (std::size_t i = 0; i < d.size(); ++i) out += (i > 0 && (d.size() - i) % 3 == 0 ? "," : "") + std::string(1, d[i]);
    return out;
  };
  auto cost = [](double c) { // as the text shows it: 6 decimals, trailing zeros dropped down to 2
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", c);
    std::string s = buf;
    while (s.back() == '0' && s.size() - s.find('.') > 3) s.pop_back();
    return s;
  };
  const std::string dot = " \u00b7 ";
  const std::string lead_words = grouped(n * 1200) + " tokens (" + grouped(n * lead_in) + " in + " + grouped(n * lead_out) +
                                 " out, " + grouped(n * lead_reasoning) + " reasoning)" + dot + std::to_string(n) +
                                 " requests" + dot + "0 tool calls" + dot + "1 call" + dot + "cost " + cost(n * lead_cost);
  const std::string all_words = grouped(n * 1200 + 500) + " tokens (" + grouped(n * lead_in + coder_in) + " in + " +
                                grouped(n * lead_out + coder_out) + " out, " + grouped(n * lead_reasoning) +
                                " reasoning)" + dot + std::to_string(n + 1) + " requests" + dot + "0 tool calls" + dot +
                                "1 call" + dot + "cost " + cost(n * lead_cost + coder_cost);
  check_holds(text.out, {
    "  lead       " + lead_words + "\n",
    "  coder      500 tokens (400 in + 100 out)" + dot + "1 request" + dot + "0 tool calls" + dot + "0 calls" + dot +
      "cost 0.0008\n",
    "  formation  " + all_words + "\n",
    "  usage: " + all_words + "\n", // the lead's task line ends with its tree's usage
    " completion tokens (" + std::to_string(n * lead_reasoning) + " reasoning)\n", // the lead's model line
  });
}

TEST_CASE("mur ps shows each member's and the formation's usage and cost while a call is held", "[process][usage]") {
  // The coder has no price: its usage counts, its cost is unknown, the formation's counts the lead's.
  ServingPair p("lead-usage", lead_price, "coder-usage");
  json first = send_json(p.m.f, p.s->id(), "add a flag");
  REQUIRE(first["state"] == "completed");
  const std::size_t n = p.m.replay.requests_of("lead-usage").size();
  // The next task's call waits at the replay server's gate: the formation runs.
  LaunchedMur held({MUR_BINARY, "send", p.s->id(), "hold the line", "--json"}, p.m.f.env);
  REQUIRE(!p.m.replay.await_request([](const json& q) {
                       return q.value("entry", "") == "coder-usage" && task_of(q) == "hold the line";
                     }).is_null());

  const json f = ps_formation_at(p.m.f, static_cast<std::int64_t>(n) + 1);
  INFO(f.dump());
  CHECK(f["usage"]["input_tokens"] == static_cast<std::int64_t>(n) * lead_in + coder_in);
  CHECK(f["usage"]["reasoning_tokens"] == static_cast<std::int64_t>(n) * lead_reasoning);
  CHECK(f["usage"]["cost"] == rounded(n * lead_cost));
  for (const auto& member : f["members"]) {
    if (member["member"] == "lead") CHECK(member["usage"]["cost"] == rounded(n * lead_cost));
    if (member["member"] == "coder") {
      CHECK(member["usage"]["input_tokens"] == coder_in);
      CHECK(member["usage"]["cost"].is_null());
    }
  }
  Ran text = run_command({MUR_BINARY, "ps"}, p.m.f.env);
  INFO(text.out);
  check_holds(text.out, {"usage: 500 tokens (400 in + 100 out) \u00b7 1 request \u00b7 0 tool calls \u00b7 0 calls\n",
                         " \u00b7 cost 0.0" /* the lead's and the formation's */, "  usage of its ended tasks: "});

  p.m.replay.release("coder-usage");
  json answer = json::parse(held.read_line(), nullptr, false);
  CHECK(answer["state"] == "completed");
  CHECK(held.wait() == 0);
}
