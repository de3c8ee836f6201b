// libFuzzer target: what reaches mur-confine from outside mur — a program's request head to its
// egress proxy, the host and port it names judged against an allow list, and the plan read on
// descriptor 3. Every input is answered (a ProxyRequest, a grant, a plan); nothing may crash.
#include "messages/credentials/egress_grant.hpp"
#include "os/egress_gate.hpp"
#include "os/harness_isolation.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const mur::ProxyRequest r = mur::read_proxy_request(text);
  if (r.problem.empty()) {
    (void)mur::judge_egress({"localhost", "api.example.com:443", "https://x.example", "[::1]:80", text}, r.host,
                            r.port, r.tls);
  }
  const mur::IsolationPlan plan = mur::decode_plan(text);
  (void)mur::encode_plan(plan);
  return 0;
}
