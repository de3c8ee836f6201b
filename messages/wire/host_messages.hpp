// host_messages.hpp — what a launcher asks a host agent (`mur host`) over their TLS connection,
// and what it answers.
//
// Invariant: a check names capsules by name, exact version and the sha256 the launcher's roster
// admitted; the host answers for each one whether its own store holds exactly that (and why
// not), with its own name and mur's version. No token, key or path of the launcher's crosses.
// Rule: admission checks every host a roster names (docs/hosts.md §What doctor checks).
#pragma once

#include "messages/vocabulary/message_fields.hpp"

#include <string>
#include <vector>

namespace mur {

struct HostCapsule {
  std::string name;
  std::string version;
  std::string sha256; // as installed where the launcher runs ("" when it does not know)
  MUR_FIELDS(name, version, sha256)
};

struct HostCheck {
  std::vector<HostCapsule> capsules;
  MUR_FIELDS(capsules)
};

struct HostCapsuleState {
  std::string name;
  std::string version;
  bool installed = false; // installed there at that version, with that sha256
  std::string why;        // when not: not installed, another sha256, …
  MUR_FIELDS(name, version, installed, why)
};

struct HostReport {
  std::string host_name;
  std::string mur_version;
  std::vector<HostCapsuleState> capsules; // in the order asked
  MUR_FIELDS(host_name, mur_version, capsules)
};

} // namespace mur
