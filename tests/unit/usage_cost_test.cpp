// Usage and cost (launcher/traces/trace_usage.hpp, messages/vocabulary/token_price.hpp): the split
// of tokens summed, the cost at a price and its rounding, `n/a` for what no server reported, the
// trace tree's task usage with its callees' costs, and the manifest's `inference.price`.
#include "actors/task_trace_fields.hpp"
#include "capsule/manifest.hpp"
#include "http/budget_json.hpp"
#include "http/chat_completions.hpp"
#include "launcher/traces/trace_tree.hpp"
#include "launcher/traces/trace_usage.hpp"
#include "manifest_refusal.hpp"
#include "messages/vocabulary/token_price.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace mur;
using json = nlohmann::json;

namespace {

// One model response's usage as the task charges it, plus `requests` model requests.
Usage response(std::int64_t prompt, std::int64_t completion, std::int64_t reasoning = -1) {
  Usage u = response_tokens(prompt, completion, reasoning);
  u.model_requests = 1;
  return u;
}

const std::string head = "name: worker\nversion: 1.0.0\n";
std::string http_with(const std::string& extra) {
  return head + "inference:\n  transport: http\n  endpoint: 'http://127.0.0.1:11434/v1'\n  model: llama3.2\n" + extra;
}

} // namespace

TEST_CASE("usage: a response's tokens split into input, output and reasoning, summed over responses", "[usage]") {
  Usage u = response(1000, 200, 50);
  u += response(400, 100); // this server reported no reasoning
  CHECK(u.tokens == 1700);
  CHECK(u.input_tokens == 1400);
  CHECK(u.output_tokens == 300);
  CHECK(u.reasoning_tokens == 50);
  CHECK(u.token_reports == 2);
  CHECK(u.reasoning_reports == 1);
  CHECK(split_known(u));
  CHECK(reasoning_known(u));
  // Reasoning is part of the output: never more than it.
  CHECK(response_tokens(10, 5, 9).reasoning_tokens == 5);
}

TEST_CASE("usage: requests whose server reported no tokens are n/a, not 0 + 0", "[usage]") {
  Usage program = response(-1, -1); // an agent program's turn, or a script model's
  program += response(-1, -1);
  CHECK_FALSE(split_known(program));
  const json shape = usage_shape(priced(program, TokenPrice{2.5, 10}));
  CHECK(shape["input_tokens"].is_null());
  CHECK(shape["output_tokens"].is_null());
  CHECK(shape["reasoning_tokens"].is_null());
  CHECK(shape["cost"].is_null()); // a price does not make unknown tokens cost 0
  CHECK(shape["tokens"] == 0);
  CHECK(shape["model_requests"] == 2);
  CHECK(usage_words(program) == "n/a tokens \u00b7 2 requests \u00b7 0 tool calls \u00b7 0 calls");
  // Nothing asked of a model: 0 is exact.
  Usage idle;
  idle.calls = 1;
  CHECK(split_known(idle));
  CHECK(usage_shape(priced(idle, std::nullopt))["input_tokens"] == 0);
  CHECK(usage_words(idle) == "0 tokens \u00b7 0 requests \u00b7 0 tool calls \u00b7 1 call");
}

TEST_CASE("usage: the cost at a price, per million tokens, reasoning charged once as output", "[usage]") {
  const TokenPrice price{2.5, 10};
  Usage u = response(1000, 200, 50);
  // 1000 × 2.5 / 10^6 + 200 × 10 / 10^6: the 50 reasoning tokens are inside the 200.
  REQUIRE(cost_at(u, price));
  CHECK(*cost_at(u, price) == Approx(0.0045));
  CHECK(usage_shape(priced(u, price))["cost"] == 0.0045);
  CHECK(usage_words(priced(u, price)) ==
        "1,200 tokens (1,000 in + 200 out, 50 reasoning) \u00b7 1 request \u00b7 0 tool calls \u00b7 0 calls \u00b7 cost 0.0045");
  CHECK_FALSE(priced(u, std::nullopt).cost); // no price, no cost
  CHECK(usage_shape(priced(u, std::nullopt))["cost"].is_null());
  CHECK(*cost_at(response(3, 0), TokenPrice{0, 0}) == 0.0);
}

TEST_CASE("usage: costs are rounded to 10^-9 in JSON and shown with up to 6 decimals", "[usage]") {
  CHECK(rounded_cost(0.1 + 0.2) == 0.3);
  CHECK(rounded_cost(1.0000000004) == 1.0);
  CHECK(cost_words(0.0045) == "0.0045");
  CHECK(cost_words(1.5) == "1.50");
  CHECK(cost_words(12.0) == "12.00");
  CHECK(cost_words(0.0) == "0.00");
  CHECK(cost_words(0.0000004) == "<0.000001");
  CHECK(cost_words(0.0123456789) == "0.012346");
  CHECK(cost_words(1234.5) == "1234.50");
}

TEST_CASE("usage: summed costs count the priced parts, unknown only when none is", "[usage]") {
  PricedUsage total;
  add_priced(total, priced(response(1000, 200), TokenPrice{2.5, 10}));
  add_priced(total, priced(response(400, 100), std::nullopt)); // a member without a price
  REQUIRE(total.cost);
  CHECK(*total.cost == Approx(0.0045));
  CHECK(total.usage.input_tokens == 1400);
  PricedUsage none;
  add_priced(none, priced(response(-1, -1), TokenPrice{1, 1}));
  CHECK_FALSE(none.cost);
}

TEST_CASE("usage: a trace's usage object reads back as written, its nulls as not reported", "[usage]") {
  Usage u = response(1000, 200, 50);
  u.calls = 1;
  const json written = usage_fields(u); // as task_end writes it
  CHECK(written["input_tokens"] == 1000);
  CHECK(written["reasoning_tokens"] == 50);
  const Usage back = usage_in(written);
  CHECK(usage_shape(priced(back, std::nullopt)) == usage_shape(priced(u, std::nullopt)));
  // Reported tokens but no reasoning: reasoning null, the rest numbers.
  const json no_reasoning = usage_fields(response(400, 100));
  CHECK(no_reasoning["reasoning_tokens"].is_null());
  CHECK(no_reasoning["output_tokens"] == 100);
  // A program's: the split null; an older mur's trace (no split at all) likewise, its tokens kept.
  CHECK(usage_fields(response(-1, -1))["input_tokens"].is_null());
  const Usage old = usage_in(json{{"tokens", 1234}, {"model_requests", 3}, {"tool_calls", 0}, {"calls", 0}});
  CHECK_FALSE(split_known(old));
  CHECK(usage_words(old) == "1,234 tokens \u00b7 3 requests \u00b7 0 tool calls \u00b7 0 calls");
  // Mistyped or negative counts read as 0 / not reported.
  const Usage bad = usage_in(json{{"tokens", -5}, {"model_requests", "3"}, {"input_tokens", "x"}, {"output_tokens", 2}});
  CHECK(bad.tokens == 0);
  CHECK(bad.model_requests == 0);
  CHECK(bad.token_reports == 0);
}

TEST_CASE("usage: the split travels back with a callee's answer on the wire", "[usage]") {
  Usage u = response(1000, 200, 50);
  const json wire = usage_json(u);
  CHECK(wire["inputTokens"] == 1000);
  CHECK(wire["reasoningTokens"] == 50);
  const Usage back = read_usage(wire);
  CHECK(back == u);
  // A usage no server reported sends no split, and reads back without one.
  const json plain = usage_json(response(-1, -1));
  CHECK_FALSE(plain.contains("inputTokens"));
  CHECK_FALSE(split_known(read_usage(plain)));
  // A split with no report count is not believed.
  CHECK(read_usage(json{{"tokens", 3}, {"modelRequests", 1}, {"inputTokens", 2}, {"outputTokens", 1}}).input_tokens == 0);
}

TEST_CASE("usage: chat completions' reasoning tokens are read from completion_tokens_details", "[usage][models]") {
  auto r = parse_chat_response(
    R"({"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],)"
    R"("usage":{"prompt_tokens":10,"completion_tokens":7,"total_tokens":17,"completion_tokens_details":{"reasoning_tokens":4}}})",
    SecretRedaction{});
  REQUIRE(std::holds_alternative<ChatResult>(r));
  CHECK(std::get<ChatResult>(r).usage.reasoning_tokens == 4);
  auto none = parse_chat_response(
    R"({"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],)"
    R"("usage":{"prompt_tokens":10,"completion_tokens":7,"total_tokens":17}})",
    SecretRedaction{});
  REQUIRE(std::holds_alternative<ChatResult>(none));
  CHECK(std::get<ChatResult>(none).usage.reasoning_tokens == -1);
}

TEST_CASE("usage: a task in the tree costs its own usage at its price plus its callees' tasks", "[usage][trace-tree]") {
  // lead (price 2.5/10) calls coder (price 1/4); the lead's usage holds the coder's tokens.
  Usage coder = response(400, 100);
  Usage lead_own = response(1000, 200, 50);
  lead_own.calls = 1;
  Usage lead_all = lead_own;
  lead_all += coder;
  auto start = [](const char* task, std::int64_t at) {
    return json{{"event_type", "task_start"}, {"task_id", task}, {"timestamp", at}, {"text", "t"}};
  };
  auto session = [](const TokenPrice& p, std::int64_t at) {
    return json{{"event_type", "session_start"}, {"timestamp", at}, {"price", price_json(p)}};
  };
  json lead_end{{"event_type", "task_end"}, {"task_id", "tsk_lead"}, {"timestamp", 50}, {"exit_status", "completed"}};
  add_usage_fields(lead_end, lead_own, lead_all, Budget{});
  json coder_end{{"event_type", "task_end"}, {"task_id", "tsk_coder"}, {"timestamp", 40}, {"exit_status", "completed"}};
  add_usage_fields(coder_end, coder, coder, Budget{});
  std::vector<SessionEvents> sessions{
    {"lead", "ses_a", {session({2.5, 10}, 1), start("tsk_lead", 10),
                       json{{"event_type", "member_call"}, {"task_id", "tsk_lead"}, {"call_id", "mcl_1"},
                            {"member", "coder"}, {"member_task_id", "tsk_coder"}, {"status", "completed"},
                            {"duration_ms", 30}, {"timestamp", 45}},
                       lead_end}},
    {"coder", "ses_b", {session({1, 4}, 2), start("tsk_coder", 20), coder_end}}};
  const TraceTree tree = build_trace_tree(sessions);
  REQUIRE(tree.roots.size() == 1);
  const json t = trace_tree_json(tree)[0];
  CHECK(t["usage"]["input_tokens"] == 1400);
  CHECK(t["usage"]["reasoning_tokens"] == 50);
  CHECK(t["usage"]["cost"] == 0.0053); // 0.0045 (lead) + 0.0008 (coder: 400 × 1 + 100 × 4, per 10^6)
  CHECK(t["own_usage"]["cost"] == 0.0045);
  CHECK(t["calls"][0]["task"]["usage"]["cost"] == 0.0008);
  CHECK(t["calls"][0]["task"]["usage"]["reasoning_tokens"].is_null());
  const std::string text = render_trace_tree(tree, 0);
  CHECK(text.find("usage: 1,700 tokens (1,400 in + 300 out, 50 reasoning) \u00b7 2 requests \u00b7 0 tool calls \u00b7 1 call"
                  " \u00b7 cost 0.0053\n") != std::string::npos);
}

TEST_CASE("inference.price: two numbers per million tokens, http only", "[manifest][usage]") {
  Manifest m = parse_manifest(http_with("  price: {input_per_mtok: 2.5, output_per_mtok: 10}\n"), "murmur.yaml");
  REQUIRE(m.inference.price);
  CHECK(m.inference.price->input_per_mtok == 2.5);
  CHECK(m.inference.price->output_per_mtok == 10.0);
  CHECK_FALSE(parse_manifest(http_with(""), "murmur.yaml").inference.price);
  CHECK(parse_manifest(http_with("  price: {input_per_mtok: 0, output_per_mtok: 1e-3}\n"), "murmur.yaml")
          .inference.price->output_per_mtok == 0.001);
}

TEST_CASE("inference.price: bad values are refused with E-MAN-002 and a fix that says what to write", "[manifest][usage]") {
  test::manifest_refused_each("E-MAN-002", http_with,
                              {{"  price: 3\n", "inference.price: must be a mapping of input_per_mtok and output_per_mtok"},
                               {"  price: {input_per_mtok: -1, output_per_mtok: 1}\n",
                                "inference.price.input_per_mtok: must be a plain number of at least 0"},
                               {"  price: {input_per_mtok: '1', output_per_mtok: 1}\n", "must be a plain number"},
                               {"  price: {input_per_mtok: $1, output_per_mtok: 1}\n", "must be a plain number"},
                               {"  price: {input_per_mtok: 1, output_per_mtok: .inf}\n", "must be a plain number"},
                               {"  price: {input_per_mtok: 1, output_per_mtok: 2e9}\n", "must be at most 1000000000"},
                               {"  price: {input_per_mtok: 1}\n", "inference.price.output_per_mtok: is required"},
                               {"  price: {input_per_mtok: 1, output_per_mtok: 2, ouput_per_mtok: 3}\n",
                                "did you mean `output_per_mtok`?"}});
  const Failure f = test::manifest_refusal(http_with("  price: {input_per_mtok: -1, output_per_mtok: 1}\n"));
  CHECK(f.fix().find("price: {input_per_mtok: 0.15, output_per_mtok: 0.6}") != std::string::npos);
  // A program's or a script's model reports no tokens: a price there would price nothing.
  test::manifest_refused(head + "inference:\n  transport: process\n  command: [agent]\n"
                                "  price: {input_per_mtok: 1, output_per_mtok: 2}\n",
                         "E-MAN-003", "inference.price: does not apply to transport: process");
}
