#include "launcher/admission/roster.hpp"
#include "messages/vocabulary/failure.hpp"
#include "refusal_of.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using mur::parse_roster;

namespace {

mur::Failure refusal(const std::string& text) {
  return mur::test::refusal_of([](const std::string& t) { parse_roster(t, "roster.yaml"); }, text, "roster");
}

void refused(const std::string& text, const std::string& fragment) {
  auto f = refusal(text);
  mur::test::check_refusal(f, text, "E-ROS-001", fragment);
  CHECK(f.message().rfind("roster.yaml: ", 0) == 0);
}

const std::string lead = "roster_version: 1\nmembers:\n  - {name: lead, capsule: acme-lead, version: 1.0.0, entry: true}\n";

} // namespace

TEST_CASE("a roster parses members in order, versions as written", "[roster]") {
  auto r = parse_roster(R"(
roster_version: 1
members:
  - {name: boss,  capsule: acme-boss,  version: 2.0.1, entry: true}
  - {name: fixer, capsule: acme-fixer, version: 1.10}
  - {name: tester, capsule: acme-fixer, version: "1.10", entry: false}
reachability:
  - {from: boss,  to: [fixer, tester]}
  - {from: fixer, to: [tester]}
)", "roster.yaml");
  REQUIRE(r.members.size() == 3);
  CHECK(r.members[0].entry);
  CHECK(r.members[1].version == "1.10");
  CHECK_FALSE(r.members[2].entry);
  CHECK(r.members[2].capsule == "acme-fixer");
  REQUIRE(r.rules.size() == 2);
  CHECK(r.rules[0].to == std::vector<std::string>{"fixer", "tester"});
  CHECK_FALSE(r.reach_all);
}

TEST_CASE("reachability: all, absent, null and empty", "[roster]") {
  CHECK(parse_roster(lead + "reachability: all\n", "r").reach_all);
  CHECK(parse_roster(lead, "r").rules.empty());
  CHECK(parse_roster(lead + "reachability:\n", "r").rules.empty());
  CHECK(parse_roster(lead + "reachability: []\n", "r").rules.empty());
  CHECK_FALSE(parse_roster(lead + "reachability: []\n", "r").reach_all);
}

TEST_CASE("shape refusals are E-ROS-001 with the key path and member", "[roster]") {
  refused("", "is empty");
  refused("roster_version: 1\nmembers: [\n", "not valid YAML");
  refused("- 1\n", "(top level): must be a mapping");
  refused(lead + "version: 2\n", "version: is not a known key");
  refused("members: []\n", "roster_version: is required");
  refused("roster_version: '1'\nmembers: []\n", "roster_version: must be the number 1");
  refused("roster_version: 2\nmembers: []\n", "roster_version: must be the number 1");
  refused("roster_version: 1\n", "members: is required");
  refused("roster_version: 1\nmembers: {a: 1}\n", "members: must be a list");
  refused("roster_version: 1\nmembers: []\n", "members: is empty");
  refused("roster_version: 1\nmembers:\n  - {name: a, capsule: c, version: 1, role: x}\n", "members[0].role: is not a known key");
  refused("roster_version: 1\nmembers:\n  - {capsule: c, version: 1}\n", "members[0].name: is required");
  refused("roster_version: 1\nmembers:\n  - {name: 1abc, capsule: c, version: 1}\n", "members[0].name: '1abc' must start with a lowercase letter");
  refused("roster_version: 1\nmembers:\n  - {name: " + std::string(33, 'a') + ", capsule: c, version: 1}\n", "longer than 32");
  refused("roster_version: 1\nmembers:\n  - {name: a.b, capsule: c, version: 1}\n", "members[0].name");
  refused("roster_version: 1\nmembers:\n  - {name: a, version: 1}\n", "members[0].capsule (member 'a'): is required");
  refused("roster_version: 1\nmembers:\n  - {name: a, capsule: C, version: 1}\n", "members[0].capsule (member 'a'): 'C'");
  refused("roster_version: 1\nmembers:\n  - {name: a, capsule: c}\n", "members[0].version (member 'a'): is required");
  refused("roster_version: 1\nmembers:\n  - {name: a, capsule: c, version: Latest}\n", "members[0].version (member 'a'): is a floating tag");
  refused("roster_version: 1\nmembers:\n  - {name: a, capsule: c, version: ''}\n", "members[0].version (member 'a'): is blank");
  refused("roster_version: 1\nmembers:\n  - {name: a, capsule: c, version: 1, entry: 'true'}\n", "members[0].entry (member 'a'): must be true or false");
  refused("roster_version: 1\nmembers:\n  - {name: a, capsule: c, version: 1, entry: 1}\n", "must be true or false");
  refused(lead + "reachability: some\n", "reachability: 'some' is not a reachability rule");
  refused(lead + "reachability: {from: a}\n", "reachability: must be 'all' or a list");
  refused(lead + "reachability: [{from: lead, to: [a], via: b}]\n", "reachability[0].via: is not a known key");
  refused(lead + "reachability: [{to: [a]}]\n", "reachability[0].from: is required");
  refused(lead + "reachability: [{from: lead}]\n", "reachability[0].to: is required");
  refused(lead + "reachability: [{from: lead, to: a}]\n", "reachability[0].to: must be a list");
  refused(lead + "reachability: [{from: lead, to: []}]\n", "reachability[0].to: is empty");
  refused(lead + "reachability: [{from: lead, to: [a, lead]}]\n", "reachability[0].to: lists 'lead', the rule's own from");
  refused(lead + "members: []\n", "members: appears more than once");
}

TEST_CASE("the parse order: top-level keys before roster_version before members", "[roster]") {
  auto f = refusal("colour: red\nroster_version: 2\nmembers: []\n");
  CHECK(f.message().find("colour") != std::string::npos);
  f = refusal("roster_version: 2\nmembers: []\n");
  CHECK(f.message().find("roster_version") != std::string::npos);
  f = refusal("roster_version: 1\nmembers:\n  - {name: A, capsule: C, version: latest, bogus: 1}\n");
  CHECK(f.message().find("bogus") != std::string::npos);
  f = refusal("roster_version: 1\nmembers:\n  - {name: A, capsule: C, version: latest}\n");
  CHECK(f.message().find("name") != std::string::npos);
  f = refusal("roster_version: 1\nmembers:\n  - {name: a, capsule: c, version: 1, entry: maybe}\nreachability: nope\n");
  CHECK(f.message().find("entry") != std::string::npos);
}

TEST_CASE("locating a roster: a directory, a roster.yaml path, anything else", "[roster]") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path() / ("mur-roster-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto at_dir = mur::locate_roster(dir.string() + "/");
  CHECK(at_dir.project_dir == dir.string());
  CHECK(at_dir.file == dir.string() + "/roster.yaml");
  auto at_file = mur::locate_roster(dir.string() + "/roster.yaml");
  CHECK(at_file.project_dir == dir.string());
  CHECK(mur::locate_roster("roster.yaml").project_dir == ".");
  try {
    mur::locate_roster(dir.string() + "/formation.yaml");
    FAIL("accepted a file not named roster.yaml");
  } catch (const mur::Failure& f) {
    CHECK(f.code() == "E-ROS-001");
  }
  try {
    mur::load_roster(at_dir); // the file does not exist
    FAIL("accepted a missing roster");
  } catch (const mur::Failure& f) {
    CHECK(f.code() == "E-ROS-001");
    CHECK(f.message().find("cannot be read") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("a roster names hosts by address and key, and a member its host", "[roster][hosts]") {
  auto r = parse_roster(lead + "  - {name: coder, capsule: acme-coder, version: 1.0.0, host: gpu1}\n"
                               "hosts:\n  gpu1: {address: '10.0.0.2:7420', key: keys/gpu1.pem}\n"
                               "  gpu2: {address: '[fd00::2]:7420', key: /etc/mur/gpu2.pem}\n",
                        "roster.yaml");
  REQUIRE(r.hosts.size() == 2);
  CHECK(r.hosts[0].name == "gpu1");
  CHECK(r.hosts[0].host == "10.0.0.2");
  CHECK(r.hosts[0].port == 7420);
  CHECK(r.hosts[0].key == "keys/gpu1.pem");
  CHECK(r.hosts[1].host == "fd00::2");
  CHECK(r.members[0].host.empty());
  CHECK(r.members[1].host == "gpu1");
  refused(lead + "hosts:\n  gpu1: {address: '10.0.0.2', key: k.pem}\n", "is not HOST:PORT");
  refused(lead + "hosts:\n  gpu1: {address: '10.0.0.2:99999', key: k.pem}\n", "is not HOST:PORT");
  refused(lead + "hosts:\n  gpu1: {address: '10.0.0.2:7420'}\n", "key");
  refused(lead + "hosts:\n  gpu1: {address: '10.0.0.2:7420', key: k.pem, port: 1}\n", "port");
  refused(lead + "hosts: [gpu1]\n", "must be a mapping");
}

TEST_CASE("restart: {max, within_secs} is read for members named by capsule and by path, and refused out of range",
          "[roster]") {
  auto r = parse_roster(lead + "  - {name: coder, capsule: acme-coder, version: 1.0.0, restart: {max: 3, within_secs: 30}}\n"
                               "  - {name: tester, path: capsules/tester, restart: {max: 2}}\n"
                               "  - {name: plain, capsule: acme-coder, version: 1.0.0}\n",
                        "roster.yaml");
  REQUIRE(r.members.size() == 4);
  CHECK(r.members[0].restart.max == 0); // none given: its death ends the formation
  CHECK(r.members[1].restart.max == 3);
  CHECK(r.members[1].restart.within == std::chrono::seconds(30));
  CHECK(r.members[2].restart.max == 2); // a member named by path restarts too
  CHECK(r.members[2].restart.within == std::chrono::seconds(60));
  CHECK(r.members[3].restart.max == 0);
  refused(lead + "  - {name: coder, capsule: acme-coder, version: 1.0.0, restart: {max: 0}}\n", "restart.max");
  refused(lead + "  - {name: coder, path: capsules/coder, restart: banana}\n", "must be a mapping");
  refused(lead + "  - {name: coder, capsule: acme-coder, version: 1.0.0, restart: {within_secs: 5}}\n", "max");
  refused(lead + "  - {name: coder, capsule: acme-coder, version: 1.0.0, restart: {max: 1, within_secs: 0}}\n",
          "within_secs");
}
