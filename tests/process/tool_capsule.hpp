// tool_capsule.hpp — a capsule folder of tool servers for the process tests that run them
// (tool_servers_test.cpp, tool_servers_http_test.cpp): its manifest, its run, its trace events (wherever its sessions are)
// and its answer.
#pragma once

#include "capsule_folder.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mur::test {

// The reference "everything" server (tests/tools/package.json).
inline const std::string everything_server =
  std::string(MUR_SOURCE_DIR) + "/tests/tools/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

// The murmur.yaml of capsule `scribe` with tool servers `tools` (lines under tools:) and script
// `turns` (lines under inference.turns).
inline std::string tool_manifest(const std::string& tools, const std::string& turns) {
  return "name: scribe\nversion: 1.0.0\ntools:\n" + tools + "inference:\n  turns:\n" + turns;
}

// A capsule folder with `manifest`: its `mur run --manifest … --task` and its members' trace events.
struct ToolCapsule : CapsuleFolder {
  using CapsuleFolder::CapsuleFolder;
  Ran run(const std::string& task) { return run_command(run_argv({"--task", task}), env); }
  std::vector<nlohmann::json> events(const std::string& type) {
    std::vector<nlohmann::json> out;
    // A member with programs keeps its sessions beside them, under the home; one without (its
    // servers all reached by url), in its working directory.
    for (const std::string& root : {home.path, work.path})
      for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (entry.path().filename() != "trace.jsonl") continue;
        std::ifstream in(entry.path());
        for (std::string line; std::getline(in, line);) {
          auto j = nlohmann::json::parse(line, nullptr, false);
          if (j.is_object() && j.value("event_type", "") == type) out.push_back(j);
        }
      }
    return out;
  }
};

// The last line of a --json run's stdout: the task's outcome (or the failure), after the ready line.
inline nlohmann::json answer_of(const Ran& r) {
  std::string last;
  for (std::size_t at = 0, nl; at < r.out.size(); at = nl + 1) {
    nl = r.out.find('\n', at);
    if (nl == std::string::npos) nl = r.out.size();
    if (nl > at) last = r.out.substr(at, nl - at);
  }
  auto j = nlohmann::json::parse(last, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

} // namespace mur::test
