// MURMUR_FORMATION_ID / _CHANNEL / _LIFELINE validation (E-RUN-044, E-RUN-046).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "messages/vocabulary/failure.hpp"
#include "os/formation_env.hpp"
#include "os/member_pipes.hpp"
#include "token_forge.hpp"

using namespace mur;

namespace {

std::optional<FormationEnv> read_with(const std::map<std::string, std::string>& vars) {
  return read_formation_env([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

std::string code_of(const std::map<std::string, std::string>& vars) {
  try {
    read_with(vars);
  } catch (const Failure& f) {
    return f.code();
  }
  return "none";
}

} // namespace

TEST_CASE("no formation id: no formation, unless an fd is set", "[credentials]") {
  CHECK_FALSE(read_with({}));
  CHECK_FALSE(read_with({{"MURMUR_FORMATION_ID", "  "}}));
  CHECK(code_of({{"MURMUR_FORMATION_LIFELINE", "5"}}) == "E-RUN-046");
  CHECK(code_of({{"MURMUR_FORMATION_CHANNEL", "5"}}) == "E-RUN-046");
}

TEST_CASE("a malformed formation id is E-RUN-044 and is never echoed", "[credentials]") {
  for (const char* bad : {"frm_secretvalue", "FRM_0192f0c0a1b2c3d4e5f60718293a4b5c",
                          "frm_0192F0C0A1B2C3D4E5F60718293A4B5C", "ses_0192f0c0a1b2c3d4e5f60718293a4b5c"}) {
    try {
      read_with({{"MURMUR_FORMATION_ID", bad}});
      FAIL("accepted");
    } catch (const Failure& f) {
      CHECK(f.code() == "E-RUN-044");
      CHECK(std::string(f.what()).find(bad) == std::string::npos);
      CHECK(f.render().find(bad) == std::string::npos);
    }
  }
}

TEST_CASE("channel and lifeline fds must be open pipe read ends, >= 3", "[credentials]") {
  const std::string id = test::kFormation;
  PipeEnds p = make_pipe();
  const std::string r = std::to_string(p.read.get()), w = std::to_string(p.write.get());
  // Clear close-on-exec, to see it set again.
  ::fcntl(p.read.get(), F_SETFD, 0);
  auto env = read_with({{"MURMUR_FORMATION_ID", id}, {"MURMUR_FORMATION_LIFELINE", r}});
  REQUIRE(env);
  CHECK(env->formation_id == id);
  CHECK(env->lifeline_fd == p.read.get());
  CHECK_FALSE(env->channel_fd);
  CHECK((::fcntl(p.read.get(), F_GETFD) & FD_CLOEXEC) != 0);
  CHECK(read_with({{"MURMUR_FORMATION_ID", id}, {"MURMUR_FORMATION_CHANNEL", r}})->channel_fd ==
        p.read.get());

  // A regular file: a channel may be one, a lifeline may not.
  char path[] = "/tmp/mur-env-test-XXXXXX";
  UniqueFd file(::mkstemp(path));
  ::unlink(path);
  const std::string f = std::to_string(file.get());
  // A closed descriptor number (nothing opened after it).
  PipeEnds gone = make_pipe();
  const std::string closed = std::to_string(gone.read.get());
  gone.read.reset();

  for (const char* var : {"MURMUR_FORMATION_CHANNEL", "MURMUR_FORMATION_LIFELINE"}) {
    INFO(var);
    for (const std::string& bad : {std::string("0"), std::string("1"), std::string("2"), std::string("-4"),
                                   std::string("+5"), std::string(" 5"), std::string("5x"), std::string("0x5"),
                                   std::string("99999999999999"), w, closed}) {
      INFO(bad);
      CHECK(code_of({{"MURMUR_FORMATION_ID", id}, {var, bad}}) == "E-RUN-046");
    }
  }
  CHECK(code_of({{"MURMUR_FORMATION_ID", id}, {"MURMUR_FORMATION_LIFELINE", f}}) == "E-RUN-046");
  CHECK(code_of({{"MURMUR_FORMATION_ID", id}, {"MURMUR_FORMATION_CHANNEL", f}}) == "none");
}

TEST_CASE("the process environment is read once", "[credentials]") {
  ::unsetenv("MURMUR_FORMATION_ID");
  ::unsetenv("MURMUR_FORMATION_CHANNEL");
  ::unsetenv("MURMUR_FORMATION_LIFELINE");
  CHECK_FALSE(read_formation_env_once());
  CHECK_THROWS_AS(read_formation_env_once(), Failure);
}
