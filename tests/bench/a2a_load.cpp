// a2a_load — the one load tool of the A2A side-by-side bench (run_a2a_side_by_side.sh): drives any
// A2A v1.0 JSON-RPC server with the same SendMessage + GetTask pairs, so a mur door and the
// @a2a-js/sdk reference server are measured by the same client. A number, not a test.
//
// C concurrent clients, each one libcurl easy handle (one keep-alive connection) on a single
// libcurl multi loop in this thread. Each client loops: POST / SendMessage {message: text "hi"}
// then POST / GetTask {id: the returned task id}, both with A2A-Version: 1.0. Every request's
// latency (handed to libcurl -> its whole reply read) is recorded; the first W pairs are a
// warm-up and are not counted. Prints requests/s, p50, p90, p99, max, and the counts of
// failures (transport, HTTP status != 200, JSON-RPC error, no task id) and of the task states
// GetTask saw. With --json, the last line is one JSON object with the same numbers.
//
// Usage: bench_a2a_load --url URL [--pairs 2000] [--concurrency 16] [--warmup 200]
//                       [--send-method SendMessage] [--get-method GetTask] [--text hi]
//                       [--bearer TOKEN] [--label NAME] [--json] [--return-immediately]
//                       [--send-only] [--rss-pid PID]
// --return-immediately adds params.configuration {returnImmediately: true} to each SendMessage
// (A2A 1.0: answer right after the task is created instead of blocking until it ends).
// --send-only makes each pair one SendMessage (no GetTask): with blocking SendMessage, one
// request per task. --rss-pid reads the server's resident set (/proc/PID/status VmRSS) before
// the warm-up and after the run. The first and last tenth of the measured requests (by
// completion order) are also reported as requests/s, to show whether a server slows as tasks
// accumulate.
#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

struct Options {
  std::string url;
  int pairs = 2000;
  int concurrency = 16;
  int warmup = 200;
  std::string send_method = "SendMessage";
  std::string get_method = "GetTask";
  std::string text = "hi";
  std::string bearer;
  std::string label;
  bool json_line = false;
  bool return_immediately = false;
  bool send_only = false;
  long rss_pid = 0;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bench_a2a_load: %s\n"
               "usage: bench_a2a_load --url URL [--pairs N] [--concurrency C] [--warmup W]\n"
               "       [--send-method SendMessage] [--get-method GetTask] [--text hi] [--bearer TOKEN]\n"
               "       [--label NAME] [--json] [--return-immediately] [--send-only] [--rss-pid PID]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--url")
      o.url = value();
    else if (a == "--pairs")
      o.pairs = std::atoi(value().c_str());
    else if (a == "--concurrency")
      o.concurrency = std::atoi(value().c_str());
    else if (a == "--warmup")
      o.warmup = std::atoi(value().c_str());
    else if (a == "--send-method")
      o.send_method = value();
    else if (a == "--get-method")
      o.get_method = value();
    else if (a == "--text")
      o.text = value();
    else if (a == "--bearer")
      o.bearer = value();
    else if (a == "--label")
      o.label = value();
    else if (a == "--json")
      o.json_line = true;
    else if (a == "--return-immediately")
      o.return_immediately = true;
    else if (a == "--send-only")
      o.send_only = true;
    else if (a == "--rss-pid")
      o.rss_pid = std::atol(value().c_str());
    else
      usage(("unknown argument " + a).c_str());
  }
  if (o.url.empty())
    usage("--url is required");
  if (o.pairs < 1 || o.concurrency < 1 || o.warmup < 0)
    usage("--pairs and --concurrency must be >= 1");
  while (!o.url.empty() && o.url.back() == '/')
    o.url.pop_back();
  o.url += "/";
  return o;
}

enum class Phase { send, get };

struct Client {
  CURL* easy = nullptr;
  Phase phase = Phase::send;
  int pair = -1;    // index of the pair in flight (warm-up pairs first)
  std::string body; // request body (must outlive the transfer)
  std::string reply;
  clock_type::time_point t0;
};

std::size_t on_write(char* data, std::size_t size, std::size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

struct Stats {
  std::vector<double> latency_ms; // measured requests only
  std::vector<clock_type::time_point> done_at; // each measured request's completion, in order
  long transport_errors = 0, http_errors = 0, rpc_errors = 0, no_task_id = 0;
  std::map<std::string, long> get_states;
  std::map<std::string, long> error_codes;
};

double pct(const std::vector<double>& sorted, double p) {
  if (sorted.empty())
    return 0;
  return sorted[static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5)];
}

// VmRSS of process `pid` in KiB, or -1 when it cannot be read.
long rss_kib(long pid) {
  if (pid <= 0)
    return -1;
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r");
  if (!f)
    return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "VmRSS:", 6) == 0)
      kib = std::atol(line + 6);
  std::fclose(f);
  return kib;
}

// Requests/s over the `n` completions ending at done[last] (the span from the completion
// before them, or `origin` for the first).
double span_rps(const std::vector<clock_type::time_point>& done, std::size_t first, std::size_t n,
                clock_type::time_point origin) {
  if (n == 0 || first + n > done.size())
    return 0;
  const auto from = first == 0 ? origin : done[first - 1];
  const double secs = std::chrono::duration<double>(done[first + n - 1] - from).count();
  return secs > 0 ? static_cast<double>(n) / secs : 0;
}

} // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURLM* multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(o.concurrency));

  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "A2A-Version: 1.0");
  headers = curl_slist_append(headers, "Expect:");
  if (!o.bearer.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + o.bearer).c_str());

  // Phase 1 issues the warm-up pairs [0, warmup) and drains; phase 2 the measured ones.
  int next_pair = 0, phase_end = 0;
  Stats st;
  st.latency_ms.reserve(static_cast<std::size_t>(2 * o.pairs));
  st.done_at.reserve(static_cast<std::size_t>(2 * o.pairs));
  const long rss_before = rss_kib(o.rss_pid);

  std::vector<Client> clients(static_cast<std::size_t>(o.concurrency));
  auto start = [&](Client& c) {
    c.reply.clear();
    curl_easy_setopt(c.easy, CURLOPT_POSTFIELDS, c.body.c_str());
    curl_easy_setopt(c.easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(c.body.size()));
    c.t0 = clock_type::now();
    curl_multi_add_handle(multi, c.easy);
  };
  auto start_send = [&](Client& c) -> bool {
    if (next_pair >= phase_end)
      return false;
    c.pair = next_pair++;
    c.phase = Phase::send;
    json req{{"jsonrpc", "2.0"},
             {"id", 2 * c.pair},
             {"method", o.send_method},
             {"params",
              {{"message",
                {{"messageId", "bench-" + std::to_string(c.pair)},
                 {"role", "ROLE_USER"},
                 {"parts", json::array({{{"text", o.text}}})}}}}}};
    if (o.return_immediately)
      req["params"]["configuration"] = {{"returnImmediately", true}};
    c.body = req.dump();
    start(c);
    return true;
  };
  for (auto& c : clients) {
    c.easy = curl_easy_init();
    curl_easy_setopt(c.easy, CURLOPT_URL, o.url.c_str());
    curl_easy_setopt(c.easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c.easy, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c.easy, CURLOPT_WRITEDATA, &c.reply);
    curl_easy_setopt(c.easy, CURLOPT_PRIVATE, &c);
    curl_easy_setopt(c.easy, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(c.easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(c.easy, CURLOPT_NOSIGNAL, 1L);
  }

  auto run_phase = [&](int end) {
    phase_end = end;
    int active = 0;
    for (auto& c : clients)
      if (start_send(c))
        ++active;
    while (active > 0) {
      int running = 0;
      curl_multi_perform(multi, &running);
      int left = 0;
      while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
        if (m->msg != CURLMSG_DONE)
          continue;
        Client* cp = nullptr;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&cp));
        Client& c = *cp;
        const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - c.t0).count();
        const CURLcode rc = m->data.result;
        curl_multi_remove_handle(multi, c.easy);
        const bool counted = c.pair >= o.warmup;
        if (counted) {
          st.latency_ms.push_back(ms);
          st.done_at.push_back(clock_type::now());
        }
        long status = 0;
        curl_easy_getinfo(c.easy, CURLINFO_RESPONSE_CODE, &status);
        json r = rc == CURLE_OK ? json::parse(c.reply, nullptr, false) : json();
        auto fail = [&](long& counter) {
          if (counted)
            ++counter;
        };
        bool ok = true;
        if (rc != CURLE_OK) {
          fail(st.transport_errors);
          ok = false;
        } else if (status != 200) {
          fail(st.http_errors);
          ok = false;
        } else if (!r.is_object() || r.contains("error") || !r.contains("result")) {
          fail(st.rpc_errors);
          if (counted && r.is_object() && r.contains("error"))
            ++st.error_codes[std::to_string(r["error"].value("code", 0))];
          ok = false;
        }
        bool next_send = true;
        if (ok && c.phase == Phase::send && o.send_only) {
          const json& res = r["result"];
          const json* task = res.contains("task") ? &res["task"] : &res;
          std::string state = task->contains("status") ? (*task)["status"].value("state", "?") : "?";
          if (counted)
            ++st.get_states[state];
        } else if (ok && c.phase == Phase::send) {
          const json& res = r["result"];
          const json* task = res.contains("task") ? &res["task"] : (res.contains("id") ? &res : nullptr);
          std::string id =
              task && task->contains("id") && (*task)["id"].is_string() ? (*task)["id"].get<std::string>() : "";
          if (id.empty())
            fail(st.no_task_id);
          else {
            c.phase = Phase::get;
            json req{{"jsonrpc", "2.0"}, {"id", 2 * c.pair + 1}, {"method", o.get_method}, {"params", {{"id", id}}}};
            c.body = req.dump();
            start(c);
            next_send = false;
          }
        } else if (ok && counted) {
          const json& res = r["result"];
          const json* task = res.contains("task") ? &res["task"] : &res;
          std::string state = task->contains("status") ? (*task)["status"].value("state", "?") : "?";
          ++st.get_states[state];
        }
        if (next_send) {
          // the pair is over (GetTask answered, or it failed on the way): this client's next one
          if (!start_send(c))
            --active;
        }
      }
      if (active > 0)
        curl_multi_poll(multi, nullptr, 0, 100, nullptr);
    }
  };
  run_phase(o.warmup);
  const auto measure_start = clock_type::now();
  run_phase(o.warmup + o.pairs);
  const auto measure_end = clock_type::now();
  const long rss_after = rss_kib(o.rss_pid);
  const std::size_t tenth = st.done_at.size() / 10;
  const double first_tenth_rps = span_rps(st.done_at, 0, tenth, measure_start);
  const double last_tenth_rps = span_rps(st.done_at, st.done_at.size() - tenth, tenth, measure_start);

  for (auto& c : clients)
    curl_easy_cleanup(c.easy);
  curl_slist_free_all(headers);
  curl_multi_cleanup(multi);
  curl_global_cleanup();

  const double secs = std::chrono::duration<double>(measure_end - measure_start).count();
  std::sort(st.latency_ms.begin(), st.latency_ms.end());
  const double rps = static_cast<double>(st.latency_ms.size()) / secs;
  const long failures = st.transport_errors + st.http_errors + st.rpc_errors + st.no_task_id;
  const std::string label = o.label.empty() ? o.url : o.label;
  const std::string second = o.send_only ? "" : "+" + o.get_method;
  std::printf("%s: %d %s%s %s (+%d warm-up), concurrency %d%s, %s\n", label.c_str(), o.pairs, o.send_method.c_str(),
              second.c_str(), o.send_only ? "requests" : "pairs", o.warmup, o.concurrency, o.return_immediately ? ", returnImmediately" : "",
              o.url.c_str());
  std::printf("  %zu requests in %.3f s: %.0f requests/s; latency ms p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n",
              st.latency_ms.size(), secs, rps, pct(st.latency_ms, 0.5), pct(st.latency_ms, 0.9),
              pct(st.latency_ms, 0.99), st.latency_ms.empty() ? 0.0 : st.latency_ms.back());
  std::printf("  failures %ld (transport %ld, http %ld, json-rpc error %ld, no task id %ld)", failures,
              st.transport_errors, st.http_errors, st.rpc_errors, st.no_task_id);
  for (const auto& [code, n] : st.error_codes)
    std::printf(" [code %s x%ld]", code.c_str(), n);
  std::printf("\n  first tenth %.0f requests/s, last tenth %.0f requests/s (last/first %.2f)", first_tenth_rps,
              last_tenth_rps, first_tenth_rps > 0 ? last_tenth_rps / first_tenth_rps : 0.0);
  if (o.rss_pid > 0)
    std::printf("; server RSS %.1f MiB before, %.1f MiB after", static_cast<double>(rss_before) / 1024.0,
                static_cast<double>(rss_after) / 1024.0);
  std::printf("\n  %s states:", o.send_only ? "SendMessage answer" : "GetTask");
  for (const auto& [state, n] : st.get_states)
    std::printf(" %s x%ld", state.c_str(), n);
  std::printf("\n");
  if (o.json_line) {
    json out{{"label", label},
             {"url", o.url},
             {"pairs", o.pairs},
             {"warmup", o.warmup},
             {"concurrency", o.concurrency},
             {"return_immediately", o.return_immediately},
             {"requests", st.latency_ms.size()},
             {"seconds", secs},
             {"requests_per_s", rps},
             {"p50_ms", pct(st.latency_ms, 0.5)},
             {"p90_ms", pct(st.latency_ms, 0.9)},
             {"p99_ms", pct(st.latency_ms, 0.99)},
             {"max_ms", st.latency_ms.empty() ? 0.0 : st.latency_ms.back()},
             {"failures", failures},
             {"send_only", o.send_only},
             {"first_tenth_rps", first_tenth_rps},
             {"last_tenth_rps", last_tenth_rps},
             {"rss_before_kib", rss_before},
             {"rss_after_kib", rss_after},
             {"get_states", st.get_states}};
    std::printf("%s\n", out.dump().c_str());
  }
  return failures == 0 ? 0 : 1;
}
