// A delegated child's grant (messages/credentials/spawn_grant.hpp, E-RUN-052), its environment
// (member/child_spawner.hpp) and its spawner lifeline's validation (os/formation_env.hpp).
#include <catch2/catch.hpp>

#include "member/child_spawner.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/spawn_grant.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/formation_env.hpp"
#include "os/member_pipes.hpp"

#include <algorithm>
#include <map>
#include <string>

using namespace mur;

namespace {

const std::string ses = "ses_0192f0c0a1b2c3d4e5f60718293a4b5c";
const std::string key_hex(64, 'a');

std::string grant_text(const std::string& key, const std::string& by, const std::string& dlg,
                       const std::string& depth = "1") {
  return "{\"door_key\":\"" + key + "\",\"spawned_by\":\"" + by + "\",\"delegation\":\"" + dlg +
         "\",\"depth\":" + depth + "}";
}

// The refusal's code and message, or "accepted".
std::pair<std::string, std::string> refusal_of(const std::string& text) {
  try {
    parse_spawn_grant(text);
  } catch (const Failure& f) {
    CHECK(!f.fix().empty());
    return {f.code(), f.message()};
  }
  return {"accepted", ""};
}

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

} // namespace

TEST_CASE("a rendered grant reads back: the same key opens the same operator token", "[delegation]") {
  DoorKey key = DoorKey::random();
  GrantLine line = render_spawn_grant(key, ses, "dlg_0192f0c0a1b2c3d4e5f60718293a4b5c", 2);
  CHECK(line.expose().find('\n') == std::string::npos);
  SpawnGrant g = parse_spawn_grant(line.expose() + "\n");
  CHECK(g.spawned_by == ses);
  CHECK(g.delegation == "dlg_0192f0c0a1b2c3d4e5f60718293a4b5c");
  CHECK(g.depth == 2);
  // The parent mints the child's operator token from its key; the child's issuer opens it.
  DoorToken minted = DoorTokenIssuer(key.bytes()).issue({}).at(0).token;
  auto opened = DoorTokenIssuer(g.key.bytes()).open(minted.expose());
  REQUIRE(opened);
  CHECK(opened->credential == "operator");
  // Another key does not.
  CHECK_FALSE(DoorTokenIssuer(DoorKey::random().bytes()).open(minted.expose()));
}

TEST_CASE("a bad grant is E-RUN-052 naming what is wrong and quoting none of it", "[delegation]") {
  const std::string dlg = "dlg_1";
  CHECK(refusal_of(grant_text(key_hex, ses, dlg)).first == "accepted");
  struct Case {
    std::string text, says;
  };
  const std::vector<Case> cases{
    {"", "is empty"},
    {"\n", "is empty"},
    {"not json", "not one JSON object"},
    {"[1]", "not one JSON object"},
    {grant_text(key_hex, ses, dlg) + "\n{}", "more than one line"},
    {std::string(SPAWN_GRANT_MAX_BYTES + 1, ' '), "longer than"},
    {"{\"door_key\":\"" + key_hex + "\",\"spawned_by\":\"" + ses + "\"}", "exactly the keys"},
    {"{\"door_key\":\"" + key_hex + "\",\"spawned_by\":\"" + ses + "\",\"delegation\":\"d\",\"extra\":1}", "depth that is not a whole number"},
    {"{\"door_key\":\"" + key_hex + "\",\"spawned_by\":\"" + ses + "\",\"delegation\":\"d\"}", "exactly the keys"},
    {grant_text(key_hex, ses, dlg, "0"), "depth that is not a whole number from 1 to 64"},
    {grant_text(key_hex, ses, dlg, "65"), "depth that is not a whole number from 1 to 64"},
    {grant_text(key_hex, ses, dlg, "1.5"), "depth that is not a whole number"},
    {grant_text(key_hex, ses, dlg, "\"2\""), "depth that is not a whole number"},
    {"{\"door_key\":\"" + key_hex + "\",\"door_key\":\"" + key_hex + "\",\"delegation\":\"d\"}", "not one JSON object"},
    {"{\"door_key\":1,\"spawned_by\":\"" + ses + "\",\"delegation\":\"d\",\"depth\":1}", "no string door_key"},
    {grant_text(std::string(63, 'a'), ses, dlg), "64 lowercase hex"},
    {grant_text(std::string(64, 'A'), ses, dlg), "64 lowercase hex"},
    {grant_text(std::string(64, 'g'), ses, dlg), "64 lowercase hex"},
    {grant_text(key_hex, "frm_0192f0c0a1b2c3d4e5f60718293a4b5c", dlg), "not a session id"},
    {grant_text(key_hex, ses, "../x"), "not a delegation id"},
    {grant_text(key_hex, ses, ""), "not a delegation id"},
  };
  for (const auto& c : cases) {
    INFO(c.says);
    auto [code, message] = refusal_of(c.text);
    CHECK(code == "E-RUN-052");
    CHECK(message.find(c.says) != std::string::npos);
    CHECK(message.find(key_hex) == std::string::npos);
  }
}

TEST_CASE("a grant may name the formation's live ledger: an absolute path, read back as it was", "[delegation]") {
  DoorKey key = DoorKey::random();
  const std::string dir = "/home/u/.murmur/formations/frm_0192f0c0a1b2c3d4e5f60718293a4b5c/.live \"q\"";
  GrantLine line = render_spawn_grant(key, ses, "dlg_1", 1, dir);
  SpawnGrant g = parse_spawn_grant(line.expose());
  CHECK(g.live_dir == dir);
  CHECK(parse_spawn_grant(render_spawn_grant(key, ses, "dlg_1", 1).expose()).live_dir.empty());
  auto with_live = [&](const std::string& value) {
    std::string t = grant_text(key_hex, ses, "dlg_1");
    return t.substr(0, t.size() - 1) + ",\"live_dir\":" + value + "}";
  };
  CHECK(refusal_of(with_live("\"/tmp/x\"")).first == "accepted");
  for (const std::string& bad : {std::string("\"relative/x\""), std::string("\"\""), std::string("1"),
                                 std::string("\"/a\\nb\""), "\"/" + std::string(1024, 'a') + "\""}) {
    INFO(bad);
    auto [code, message] = refusal_of(with_live(bad));
    CHECK(code == "E-RUN-052");
    CHECK(message.find("live_dir that is not an absolute path") != std::string::npos);
  }
  // a path a grant cannot carry (not UTF-8, relative) is left out, never a throw
  for (const std::string& bad : {std::string("/tmp/\xff\xfe"), std::string("rel/dir"), std::string("/a\tb")}) {
    CHECK_FALSE(is_grantable_live_dir(bad));
    CHECK(parse_spawn_grant(render_spawn_grant(key, ses, "dlg_1", 1, bad).expose()).live_dir.empty());
  }
  CHECK(is_grantable_live_dir("/home/ü/.murmur"));
  // a fifth key that is not live_dir is one too many
  std::string t = grant_text(key_hex, ses, "dlg_1");
  CHECK(refusal_of(t.substr(0, t.size() - 1) + ",\"extra\":1}").second.find("exactly the keys") != std::string::npos);
}

TEST_CASE("a delegation id names a directory: no separator, no dot, bounded", "[delegation]") {
  CHECK(is_delegation_id("dlg_0192f0c0a1b2c3d4e5f60718293a4b5c"));
  CHECK(is_delegation_id("mcl_1"));
  for (const char* bad : {"", "..", "a/b", "_x", "DLG_1", "dlg-1", "dlg.1"}) CHECK_FALSE(is_delegation_id(bad));
  CHECK_FALSE(is_delegation_id(std::string(65, 'a')));
}

TEST_CASE("a child's environment: the parent's minus formation and spawner variables, plus the id and its lifeline",
          "[delegation]") {
  const std::vector<std::string> parent{"PATH=/bin", "MURMUR_HOME=/h", "MURMUR_FORMATION_ID=frm_old",
                                        "MURMUR_FORMATION_CHANNEL=3", "MURMUR_FORMATION_LIFELINE=4",
                                        "MURMUR_FORMATION_PEERS=a=b", "MURMUR_SPAWNER=x", "MURMUR_SPAWNER_LIFELINE=5",
                                        "OPENAI_API_KEY=k"};
  const std::string frm = "frm_0192f0c0a1b2c3d4e5f60718293a4b5c";
  auto env = child_environment(parent, frm);
  CHECK(has(env, "PATH=/bin"));
  CHECK(has(env, "MURMUR_HOME=/h"));
  CHECK(has(env, "OPENAI_API_KEY=k"));
  CHECK(has(env, "MURMUR_FORMATION_ID=" + frm));
  CHECK(has(env, "MURMUR_SPAWNER_LIFELINE=3"));
  for (const auto& e : env) {
    CHECK(e != "MURMUR_FORMATION_ID=frm_old");
    CHECK(e.rfind("MURMUR_FORMATION_CHANNEL", 0) != 0);
    CHECK(e.rfind("MURMUR_FORMATION_LIFELINE", 0) != 0);
    CHECK(e.rfind("MURMUR_FORMATION_PEERS", 0) != 0);
    CHECK(e.rfind("MURMUR_SPAWNER=", 0) != 0);
  }
  CHECK(std::count_if(env.begin(), env.end(), [](const std::string& e) { return e.rfind("MURMUR_SPAWNER", 0) == 0; }) == 1);
  // Outside a formation, no id at all.
  auto alone = child_environment(parent, "");
  for (const auto& e : alone) CHECK(e.rfind("MURMUR_FORMATION_", 0) != 0);
  CHECK(has(alone, "MURMUR_SPAWNER_LIFELINE=3"));
}

TEST_CASE("MURMUR_SPAWNER_LIFELINE is validated like a formation lifeline", "[delegation]") {
  auto read = [](const std::string& v) {
    return read_spawner_lifeline([&](const char* name) -> const char* {
      return std::string(name) == "MURMUR_SPAWNER_LIFELINE" ? v.c_str() : nullptr;
    });
  };
  auto code = [&](const std::string& v) {
    try {
      read(v);
    } catch (const Failure& f) {
      return f.code();
    }
    return std::string("none");
  };
  CHECK_FALSE(read(""));
  CHECK_FALSE(read("  "));
  CHECK(code("abc") == "E-RUN-046");
  CHECK(code("2") == "E-RUN-046");
  CHECK(code("999") == "E-RUN-046"); // not open
  PipeEnds p = make_pipe();
  CHECK(code(std::to_string(p.write.get())) == "E-RUN-046"); // the write end
  auto fd = read(std::to_string(p.read.get()));
  REQUIRE(fd);
  CHECK(*fd == p.read.get());
}
