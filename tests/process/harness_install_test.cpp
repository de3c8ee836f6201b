// The real `mur` binary on examples/harness: install takes the capsule folder whole (the program
// with its executable bit), the record covers it, and admission finds nothing wrong with the
// formation.
#include "run_command.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

using mur::test::Ran;
using mur::test::run_command;
using mur::test::TempDir;

namespace fs = std::filesystem;

namespace {
const std::string mur_bin = MUR_BINARY;
const std::string example = std::string(MUR_SOURCE_DIR) + "/examples/harness";

std::set<std::string> codes_in(const std::string& text) {
  std::set<std::string> out;
  static const std::regex code(R"([EW]-[A-Z]{3}-[0-9]{3})");
  for (std::sregex_iterator it(text.begin(), text.end(), code), end; it != end; ++it) out.insert(it->str());
  return out;
}
} // namespace

TEST_CASE("mur install takes the harness example whole and doctor admits it",
          "[process][harness]") {
  TempDir home;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  for (const char* c : {"capsules/agent", "capsules/helper"}) {
    Ran r = run_command({mur_bin, "install", "-g", example + "/" + c}, env);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  const fs::path stored = fs::path(home.path) / "artifacts/harness-agent/1.0.0";
  REQUIRE(fs::exists(stored / "agent.py"));
  CHECK((fs::status(stored / "agent.py").permissions() & fs::perms::owner_exec) != fs::perms::none);

  Ran doctor = run_command({mur_bin, "doctor", example}, env);
  INFO(doctor.out << doctor.err);
  const auto codes = codes_in(doctor.out);
  CHECK(doctor.exit_code == 0);
  CHECK(doctor.out.find("All checks passed.") != std::string::npos);

  // The record covers agent.py: an edit to the installed copy is refused at admission.
  std::ofstream(stored / "agent.py", std::ios::app) << "# edited after install\n";
  Ran tampered = run_command({mur_bin, "doctor", example}, env);
  INFO(tampered.out);
  CHECK(tampered.exit_code == 1);
  CHECK(codes_in(tampered.out).count("E-ROS-007") == 1);
  CHECK(tampered.out.find("no longer match") != std::string::npos);
}
