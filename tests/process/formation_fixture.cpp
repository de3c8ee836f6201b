#include "formation_fixture.hpp"

#include "launched_mur.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace mur::test {

void check_holds(const std::string& text, const std::vector<std::string>& needles) {
  for (const auto& n : needles) {
    INFO("expected to find: " << n);
    CHECK(text.find(n) != std::string::npos);
  }
}

Serving serve(LaunchedMur& run) {
  Serving s;
  s.formation = nlohmann::json::parse(run.read_line(), nullptr, false);
  s.entry = nlohmann::json::parse(run.read_line(), nullptr, false);
  REQUIRE(s.formation.is_object());
  REQUIRE(s.entry.is_object());
  for (const auto& p : s.formation["peers"]) s.pids.push_back(p["pid"].get<int>());
  s.pids.push_back(s.entry["pid"].get<int>());
  return s;
}

FormationFixture::FormationFixture(const std::string& example) {
  env = {{"MURMUR_HOME", home.path}};
  example_dir = std::string(MUR_SOURCE_DIR) + "/examples/" + example;
  fs::copy_file(example_dir + "/roster.yaml", project.path + "/roster.yaml");
  for (const auto& e : fs::directory_iterator(example_dir + "/capsules")) install(e.path().string());
}

void FormationFixture::install(const std::string& capsule_dir) {
  Ran r = run_command({MUR_BINARY, "install", "-g", capsule_dir}, env);
  if (r.exit_code != 0) throw std::runtime_error("mur install failed: " + r.err);
}

std::map<std::string, std::vector<nlohmann::json>> FormationFixture::traces(const std::string& frm) const {
  std::map<std::string, std::vector<nlohmann::json>> out;
  std::vector<fs::path> roots{fs::path(project.path) / ".murmur"};
  const fs::path fdir = fs::path(home.path) / "formations" / frm;
  if (fs::exists(fdir))
    for (const auto& m : fs::directory_iterator(fdir))
      if (m.is_directory()) roots.push_back(m.path() / ".murmur");
  for (const auto& root : roots) {
    if (!fs::exists(root)) continue;
    for (const auto& ses : fs::directory_iterator(root)) {
      std::istringstream in(read_bytes((ses.path() / "trace.jsonl").string()));
      std::vector<nlohmann::json> lines;
      std::string line;
      while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line, nullptr, false));
      if (lines.empty() || !lines.front().is_object()) continue;
      const auto& start = lines.front();
      if (start.value("formation_id", "") != frm) continue;
      out[start.value("formation_member", "")] = lines;
    }
  }
  return out;
}

std::vector<std::string> FormationFixture::files_containing(const std::string& needle) const {
  std::vector<std::string> hits;
  for (const std::string& root : {home.path, project.path}) {
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file()) continue;
      if (read_bytes(it->path().string()).find(needle) != std::string::npos) hits.push_back(it->path().string());
    }
  }
  return hits;
}

std::vector<pid_t> processes_with_env(const std::string& entry, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  for (;;) {
    std::vector<pid_t> out;
    for (const auto& d : fs::directory_iterator("/proc")) {
      const std::string name = d.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      // environ holds NUL-separated entries: a match starts the file or follows a NUL
      const std::string all = read_bytes((d.path() / "environ").string());
      const auto at = all.find(entry);
      if (at != std::string::npos && (at == 0 || all[at - 1] == '\0')) out.push_back(static_cast<pid_t>(std::stoi(name)));
    }
    if (!out.empty() || std::chrono::steady_clock::now() >= until) return out;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string formation_id_in(const std::string& err) {
  std::smatch m;
  static const std::regex re("formation (frm_[0-9a-f]{32})");
  return std::regex_search(err, m, re) ? m[1].str() : "";
}

} // namespace mur::test
