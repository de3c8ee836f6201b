// project_path.hpp — what a path given to `mur doctor` or `mur run --roster` is, said exactly.
//
// Invariant: a path that does not exist, a file that is not a roster.yaml (or, for doctor, a
// murmur.yaml) and a directory that holds neither are three different E-ROS-001 sentences; a
// path that is a project's roster.yaml (or murmur.yaml) means its directory.
// Rule (docs/spec/choices.md §A usable command line): paths are reported precisely — does not
// exist / is a file but not a roster.yaml / holds no roster.yaml.
#pragma once

#include <string>

namespace mur {

struct ProjectPath {
  std::string dir;       // without a trailing slash
  bool has_roster = false;
  bool has_manifest = false;
};

// For `mur doctor ARG`: a directory, its roster.yaml or its murmur.yaml. Throws Failure E-ROS-001.
ProjectPath doctor_path(const std::string& arg);

// For `mur run --roster ARG`: a directory holding roster.yaml, or that file. Throws Failure E-ROS-001.
void check_roster_path(const std::string& arg);

} // namespace mur
