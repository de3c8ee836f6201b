// door_throughput — SendMessage + GetTask load on one real door (RESTinio + the door actor,
// public, echo script, queue acceptance), driven by the libcurl multi client in-process.
// Prints requests/s and p50/p99 latency. A number, not a test. The side-by-side with the
// @a2a-js/sdk reference server (docs/spec/a2a.md §Reference client and server) is in
// tests/bench/run_a2a_side_by_side.sh (with bench_a2a_load).
// Usage: bench_door_throughput [pairs=2000] [concurrency=16]
#include "actors/door.hpp"
#include "actors/member.hpp"
#include "actors/trace_recorder.hpp"
#include "capsule/manifest.hpp"
#include "capsule/script_model.hpp"
#include "http/curl_pool.hpp"
#include "http/door_server.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/wire/door_request.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>

using namespace mur;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int concurrency = argc > 2 ? std::atoi(argv[2]) : 16;
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};

  MemberSetup ms;
  ms.session_id = "ses_bench";
  ms.capsule_name = "bench";
  ms.capsule_version = "1.0.0";
  ms.acceptance.kind = AcceptancePolicy::Kind::queue;
  ms.acceptance.queue_depth = 1000000;
  ms.acceptance.exit_after_task = false;
  ms.trace = spawn_trace_recorder(sys, ms.session_id);
  Inference echo;
  ScriptTurn reply;
  reply.reply = "{{task}}";
  echo.turns.push_back(reply);
  ms.model = spawn_script_model(sys, echo);
  auto member = spawn_member(sys, ms);
  door_handle door;
  self->request(member, caf::infinite, caf::get_atom_v).receive([&](const door_handle& d) { door = d; },
                                                                   [](const caf::error&) {});
  DoorServerSetup ds;
  ds.system = &sys;
  ds.door = door;
  ds.door_tokens = std::make_shared<DoorTokenIssuer>();
  ds.card.capsule_name = "bench";
  ds.card.capsule_version = "1.0.0";
  ds.card.session_id = ms.session_id;
  DoorServer server(std::move(ds));
  CurlPool pool;

  std::mutex mu;
  std::condition_variable cv;
  std::vector<double> latencies;
  std::atomic<int> started{0};
  int finished = 0;
  std::function<void()> next;
  auto post = [&](const std::string& body, std::function<void(const json&)> then) {
    HttpCall c;
    c.url = server.url() + "/";
    c.body = body;
    c.headers = {"Content-Type: application/json", "A2A-Version: 1.0"};
    auto t0 = clock_type::now();
    c.on_done = [&, t0, then](long, std::string b, std::string) {
      {
        std::lock_guard<std::mutex> lock(mu);
        latencies.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
      }
      then(json::parse(b, nullptr, false));
    };
    pool.submit(std::move(c));
  };
  next = [&] {
    int k = started++;
    if (k >= pairs) return;
    json send{{"jsonrpc", "2.0"}, {"id", k}, {"method", "SendMessage"},
              {"params", {{"message", {{"messageId", "m" + std::to_string(k)}, {"role", "ROLE_USER"},
                                       {"parts", json::array({{{"text", "hi"}}})}}}}}};
    post(send.dump(), [&, k](const json& r) {
      std::string id = r.is_object() && r.contains("result") ? r["result"]["task"].value("id", "") : "";
      json get{{"jsonrpc", "2.0"}, {"id", k}, {"method", "GetTask"}, {"params", {{"id", id}}}};
      post(get.dump(), [&](const json&) {
        {
          std::lock_guard<std::mutex> lock(mu);
          ++finished;
        }
        cv.notify_all();
        next();
      });
    });
  };
  auto t0 = clock_type::now();
  for (int i = 0; i < concurrency; ++i) next();
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return finished >= pairs; });
  }
  const double secs = std::chrono::duration<double>(clock_type::now() - t0).count();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) { return latencies[static_cast<std::size_t>(p * (latencies.size() - 1))]; };
  std::printf("door_throughput: %d SendMessage+GetTask pairs, concurrency %d\n", pairs, concurrency);
  std::printf("  %.0f requests/s, p50 %.2f ms, p99 %.2f ms\n", 2 * pairs / secs, pct(0.5), pct(0.99));
  server.stop();
  self->send_exit(member, caf::exit_reason::user_shutdown);
  self->send_exit(ms.trace, caf::exit_reason::user_shutdown);
  self->send_exit(ms.model, caf::exit_reason::user_shutdown);
  return 0;
}
