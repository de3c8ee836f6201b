// verify_throughput — formation token verifications per second on one core, next to libsodium's
// raw Ed25519 verify of the same signed bytes. Numbers, not pass/fail.
#include <sodium.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "messages/vocabulary/base64url.hpp"

using namespace mur;

namespace {

template <class F>
double per_second(F&& once, int n) {
  for (int i = 0; i < n / 10; ++i) once(); // warm up
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) once();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return n / took.count();
}

} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const std::string formation = "frm_0192f0c0a1b2c3d4e5f60718293a4b5c";
  FormationAuthority authority(formation);
  FormationVerifier door(formation, "reviewer", authority.verify_key());
  std::vector<std::string> tokens;
  for (const char* from : {"coder", "tester", "planner", "writer"})
    tokens.push_back(authority.mint(from, "reviewer").expose());

  // The same bytes, pre-decoded, for the raw verify.
  struct Raw {
    std::string input, sig;
  };
  std::vector<Raw> raw;
  for (const auto& t : tokens) {
    const auto d1 = t.find('.'), d2 = t.rfind('.');
    raw.push_back({formation_signed_input(t.substr(d1 + 1, d2 - d1 - 1)), *b64url::decode(t.substr(d2 + 1))});
  }

  std::size_t i = 0, ok = 0;
  const double full = per_second([&] { ok += door.verify(tokens[i++ % tokens.size()]).ok(); }, n);
  const double bare = per_second(
      [&] {
        const Raw& r = raw[i++ % raw.size()];
        ok += crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(r.sig.data()),
                                          reinterpret_cast<const unsigned char*>(r.input.data()),
                                          r.input.size(), authority.verify_key().data()) == 0;
      },
      n);
  if (ok != std::size_t(2 * (n + n / 10))) {
    std::fprintf(stderr, "a verification failed\n");
    return 1;
  }
  std::printf("FormationVerifier::verify       %10.0f /s per core\n", full);
  std::printf("crypto_sign_verify_detached     %10.0f /s per core\n", bare);
  std::printf("ratio (verify / raw)            %10.3f\n", full / bare);
  return 0;
}
