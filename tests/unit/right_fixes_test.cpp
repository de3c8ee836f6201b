// Fixes that are right: E-MOD-010 without a key names the variable the manifest already reads
// (and asks for the api_key line only when there is none); E-RUN-007 names --workdir only where
// the command takes it (mur run --capsule/--manifest), and inside a formation says what works.
#include "http/model_failure.hpp"
#include "member/workdir_fix.hpp"
#include "messages/vocabulary/secret_redaction.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <cstdlib>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

// Sets (or unsets, with nullopt) one variable for the test's time, then puts it back.
struct EnvSet {
  std::string name;
  std::optional<std::string> before;
  EnvSet(std::string n, const std::optional<std::string>& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) before = v;
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  ~EnvSet() {
    if (before) ::setenv(name.c_str(), before->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

} // namespace

TEST_CASE("E-MOD-010: without a key sent, the Fix names the variable api_key reads, or asks for the line", "[models][fixes]") {
  const auto now = std::chrono::system_clock::now();
  const std::string url = "http://127.0.0.1:9/v1/chat/completions";
  const mur::SecretRedaction none;
  auto unset = mur::classify_http_failure(401, "{}", "", now, "m", url, false, none, "OPENAI_API_KEY");
  CHECK(unset.code == "E-MOD-010");
  CHECK(unset.message.find("inference.api_key reads ${OPENAI_API_KEY}, which was not set when the member started") !=
        std::string::npos);
  CHECK(unset.fix.rfind("export OPENAI_API_KEY=<your key> in the shell that runs mur, then run again", 0) == 0);
  CHECK(unset.fix.find("add api_key") == std::string::npos);
  auto no_line = mur::classify_http_failure(401, "{}", "", now, "m", url, false, none);
  CHECK(no_line.fix.rfind("this endpoint needs a key: add api_key: ${ENV_NAME}", 0) == 0);
  auto refused = mur::classify_http_failure(403, "{}", "", now, "m", url, true, none, "OPENAI_API_KEY");
  CHECK(refused.fix.rfind("check the variable that inference.api_key names", 0) == 0);
}

TEST_CASE("E-RUN-007's Fix: --workdir alone for one session, the project or MURMUR_HOME in a formation", "[run][fixes]") {
  EnvSet home("MURMUR_HOME", std::string("/tmp/mur-fix-home"));
  {
    EnvSet frm("MURMUR_FORMATION_ID", std::nullopt);
    CHECK(mur::unwritable_dir_fix("/anywhere/.murmur") == "pass --workdir with a directory you can write to");
  }
  EnvSet frm("MURMUR_FORMATION_ID", std::string("frm_01a2"));
  char made[] = "/tmp/mur-fix-project-XXXXXX";
  REQUIRE(::mkdtemp(made) != nullptr);
  const std::string team = made;
  EnvSet project("MURMUR_PROJECT_DIR", team);
  // Without a .murmur yet, the Fix names only the project (chmod of a missing path would fail).
  CHECK(mur::unwritable_dir_fix(team + "/.murmur/ses_1")
          .rfind("make the project directory writable for your user (chmod u+w " + team + ")", 0) == 0);
  REQUIRE(::mkdir((team + "/.murmur").c_str(), 0700) == 0);
  const std::string entry = mur::unwritable_dir_fix(team + "/.murmur/ses_1");
  CHECK(entry.rfind("make the project directory writable for your user (chmod u+w " + team + " " + team + "/.murmur)", 0) == 0);
  CHECK(entry.find("pass --workdir") == std::string::npos);
  CHECK(mur::unwritable_dir_fix(team + "mate/.murmur").find("MURMUR_HOME") != std::string::npos); // not inside it
  ::rmdir((team + "/.murmur").c_str());
  ::rmdir(team.c_str());
  const std::string peer = mur::unwritable_dir_fix("/tmp/mur-fix-home/formations/frm_01a2/worker");
  CHECK(peer == "make /tmp/mur-fix-home writable for your user (chmod -R u+w /tmp/mur-fix-home), or set MURMUR_HOME to a "
                "directory you can write to before mur run --roster");
}
