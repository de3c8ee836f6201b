// script_chain.hpp — a formation of script capsules for process tests: lead → a → b, each
// capsule's murmur.yaml given by the test, installed into the fixture's home.
//
// Invariant: capsules are named <prefix>-lead, <prefix>-a, <prefix>-b at version 1.0.0; the roster
// lets lead call a and a call b, plus whatever `roster_extra` adds (more rules, limits).
#pragma once

#include "formation_fixture.hpp"

#include <filesystem>
#include <fstream>
#include <string>

namespace mur::test {

struct ScriptChain {
  FormationFixture f;
  TempDir capsules;
  // Each body is the capsule's murmur.yaml after its name and version.
  ScriptChain(const std::string& prefix, const std::string& lead, const std::string& a, const std::string& b,
              const std::string& roster_extra = "") {
    write(prefix + "-lead", lead);
    write(prefix + "-a", a);
    write(prefix + "-b", b);
    std::ofstream(f.project.path + "/roster.yaml")
      << "roster_version: 1\nmembers:\n"
         "  - {name: lead, capsule: " << prefix << "-lead, version: 1.0.0, entry: true}\n"
         "  - {name: a, capsule: " << prefix << "-a, version: 1.0.0}\n"
         "  - {name: b, capsule: " << prefix << "-b, version: 1.0.0}\n"
         "reachability:\n  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n"
      << roster_extra;
  }
  // What a callee's manifest adds: it queues one task, sleeps after it, takes peers' tasks.
  static std::string peer(const std::string& capabilities = "capabilities: {network: {allow: [localhost]}}\n") {
    return "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n"
           "exports: {peer_tasks: {accept: true}}\n" + capabilities + "network: {authentication: {scheme: bearer}}\n";
  }
  // What the entry's manifest adds: it may call its peers.
  static std::string entry() {
    return "capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n";
  }
  void write(const std::string& name, const std::string& body) {
    const std::string dir = capsules.path + "/" + name;
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/murmur.yaml") << "name: " << name << "\nversion: 1.0.0\n" << body;
    f.install(dir);
  }
};

} // namespace mur::test
