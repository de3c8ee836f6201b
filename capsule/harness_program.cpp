#include "capsule/harness_program.hpp"

#include "messages/vocabulary/failure.hpp"

#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {
namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

} // namespace

std::string resolve_harness_program(const Manifest& manifest, const std::string& capsule_folder) {
  const char* path = std::getenv("PATH");
  return resolve_harness_program(manifest, capsule_folder, path ? path : "");
}

std::string resolve_harness_program(const Manifest& manifest, const std::string& capsule_folder,
                                    const std::string& path_env) {
  if (manifest.inference.transport != Transport::process || manifest.inference.command.empty())
    throw Failure("E-HAR-001", manifest.name + " is not a transport: process capsule with a command",
                  "give inference.transport: process and inference.command in its murmur.yaml");
  return resolve_program(manifest.inference.command.front(), manifest.name + ": inference.command[0]", "E-HAR-001",
                         capsule_folder, path_env);
}

std::string resolve_program(const std::string& program, const std::string& what, const std::string& code,
                            const std::string& capsule_folder, const std::string& path_env) {
  const std::string fix_folder = "reinstall the capsule (mur install <capsule folder> --force) with the program "
                                 "in its folder, executable (chmod +x)";
  if (program.front() == '/') {
    if (executable_file(program)) return program;
    throw Failure(code, what + " '" + program +
                                 "' is not an executable file",
                  "install it there, or correct the path in murmur.yaml");
  }
  if (program.find('/') != std::string::npos) {
    for (std::size_t at = 0; (at = program.find("..", at)) != std::string::npos; at += 2) {
      const bool starts = at == 0 || program[at - 1] == '/';
      const bool ends = at + 2 == program.size() || program[at + 2] == '/';
      if (starts && ends)
        throw Failure(code, what + " '" + program +
                                     "' leaves the capsule folder",
                      "name the program from inside the capsule folder, e.g. ./bin/agent");
    }
    const std::string inside = absolute(capsule_folder + "/" + program);
    if (executable_file(inside)) return inside;
    throw Failure(code, what + " '" + program +
                                 "' is not an executable file in the capsule folder " + capsule_folder,
                  fix_folder);
  }
  const std::string in_folder = absolute(capsule_folder + "/" + program);
  if (executable_file(in_folder)) return in_folder;
  struct stat st {};
  if (::stat(in_folder.c_str(), &st) == 0)
    throw Failure(code, what + " '" + program +
                                 "' is in the capsule folder but not executable",
                  fix_folder);
  std::size_t start = 0;
  while (start <= path_env.size()) {
    std::size_t end = path_env.find(':', start);
    if (end == std::string::npos) end = path_env.size();
    const std::string entry = path_env.substr(start, end - start);
    // An empty entry means "the current directory"; the capsule folder was already looked at.
    if (!entry.empty() && entry.front() == '/') {
      const std::string candidate = entry + "/" + program;
      if (executable_file(candidate)) return absolute(candidate);
    }
    start = end + 1;
  }
  throw Failure(code, what + " '" + program +
                               "' is neither in the capsule folder nor on PATH",
                "install the program, put it in the capsule folder, or give its absolute path");
}

} // namespace mur
