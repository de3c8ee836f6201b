// What a capsule's programs and tool servers are handed (member/program_env.hpp): declared
// variables and header values read from the member's environment, each value a secret.
#include "member/program_env.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace mur;

namespace {

EnvRead env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

} // namespace

TEST_CASE("fill_env_refs: each ${NAME} of a header value is read, its value a secret, an unset one empty",
          "[unit][tools]") {
  SecretRedaction secrets;
  const auto env = env_of({{"SEARCH_KEY", "sk-live-0123456789"}, {"TEAM", "blue-team"}});
  CHECK(fill_env_refs("Bearer ${SEARCH_KEY}", env, secrets, "W-TOOL-001", "tools[0].headers.Authorization", "it") ==
        "Bearer sk-live-0123456789");
  CHECK(fill_env_refs("${TEAM}/${SEARCH_KEY}!", env, secrets, "W-TOOL-001", "k", "it") == "blue-team/sk-live-0123456789!");
  CHECK(fill_env_refs("plain", env, secrets, "W-TOOL-001", "k", "it") == "plain");
  CHECK(fill_env_refs("a ${MISSING} b", env, secrets, "W-TOOL-001", "k", "it") == "a  b");
  CHECK(fill_env_refs("a ${lower} b", env, secrets, "W-TOOL-001", "k", "it") == "a ${lower} b"); // kept as written
  CHECK(secrets.redact("key sk-live-0123456789, team blue-team") == "key [redacted], team [redacted]");
}

TEST_CASE("read_declared_env: a ${NAME} alone is read, a literal kept, an unset one empty", "[unit][tools]") {
  SecretRedaction secrets;
  const auto out = read_declared_env({{"A", "${TOKEN}"}, {"B", "literal"}, {"C", "${NOPE}"}},
                                     env_of({{"TOKEN", "tok-9876543210"}}), secrets, "W-TOOL-001", "tools[0].env", "it");
  CHECK(out == EnvList{{"A", "tok-9876543210"}, {"B", "literal"}, {"C", ""}});
  CHECK(secrets.redact("tok-9876543210 literal") == "[redacted] literal");
}
