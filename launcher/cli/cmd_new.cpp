#include "launcher/cli/cmd_new.hpp"

#include "capsule/capsule_names.hpp"
#include "launcher/base/cli_words.hpp"
#include "messages/vocabulary/failure.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sys/stat.h>

namespace mur {
namespace {

std::string roster_text(const std::string& base) {
  return "# " + base + ": a formation of two capsules. The lead takes the task and hands it to the worker.\n"
         "# Install the capsules, check, run (from this directory):\n"
         "#   mur install capsules/worker && mur install capsules/lead\n"
         "#   mur doctor\n"
         "#   mur run --roster . --task \"say hello\"\n"
         "roster_version: 1\n"
         "members:\n"
         "  - {name: lead,   capsule: " + base + "-lead,   version: 0.1.0, entry: true}\n"
         "  - {name: worker, capsule: " + base + "-worker, version: 0.1.0}\n"
         "reachability:\n"
         "  - {from: lead, to: [worker]}\n";
}

std::string http_inference(const std::string& prompt) {
  return "inference:\n"
         "  transport: http\n"
         "  endpoint: http://127.0.0.1:11434/v1   # an OpenAI-compatible server (Ollama's default port)\n"
         "  model: llama3.2\n"
         "  system_prompt: \"" + prompt + "\"\n";
}

std::string lead_text(const std::string& base, bool http) {
  std::string t = "name: " + base + "-lead\n"
                  "version: 0.1.0\n"
                  "description: Takes a task and has the worker do it\n";
  if (http)
    t += http_inference("You lead a team of one. Hand the task to the member worker with call-member, "
                        "then answer with what it returned.");
  else
    t += "inference:\n"
         "  transport: script\n"
         "  turns:\n"
         "    - call: {member: worker, task: \"{{task}}\"}     # {{task}}: the task this capsule was given\n"
         "    - reply: \"The worker answered: {{answer.worker}}\"\n";
  return t + "lifecycle: {task_acceptance: single, after_task: exit}\n"
             "capabilities: {network: {allow: [localhost]}}     # its calls reach the worker's loopback door\n"
             "network: {authentication: {scheme: bearer}}\n";
}

std::string worker_text(const std::string& base, bool http) {
  std::string t = "name: " + base + "-worker\n"
                  "version: 0.1.0\n"
                  "description: Does the work it is handed\n";
  if (http)
    t += http_inference("You do the work you are handed and answer with the result.");
  else
    t += "inference:\n"
         "  transport: script\n"
         "  turns:\n"
         "    - reply: \"Done: {{task}}\"\n";
  return t + "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n"
             "exports: {peer_tasks: {accept: true}}              # other members may hand it tasks\n"
             "network: {authentication: {scheme: bearer}}\n";
}

void make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0)
    throw Failure("E-NEW-001", "cannot create " + path + " (" + std::strerror(errno) + ")",
                  "choose a NAME in a directory you can write to");
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush())
    throw Failure("E-NEW-001", "cannot write " + path, "choose a NAME in a directory you can write to");
}

} // namespace

int cmd_new(const std::string& name_arg, const std::string& model) {
  if (model != "script" && model != "http")
    throw UsageError("E-CLI-003", "--model " + model + " is not one of script, http",
                     "use --model script (offline) or --model http (a local OpenAI-compatible server)");
  std::string dir = name_arg;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const auto slash = dir.rfind('/');
  const std::string base = slash == std::string::npos ? dir : dir.substr(slash + 1);
  if (auto why = names::capsule_name_problem(base + "-worker"))
    throw Failure("E-NEW-002", "'" + base + "' cannot name the project's capsules: " + *why,
                  "choose a NAME of lowercase letters, digits and '-' (e.g. my-team)");
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0)
    throw Failure("E-NEW-001", dir + " already exists", "choose a new NAME, or remove " + dir + " first");
  const bool http = model == "http";
  make_dir(dir);
  make_dir(dir + "/capsules");
  make_dir(dir + "/capsules/lead");
  make_dir(dir + "/capsules/worker");
  write_file(dir + "/roster.yaml", roster_text(base));
  write_file(dir + "/capsules/lead/murmur.yaml", lead_text(base, http));
  write_file(dir + "/capsules/worker/murmur.yaml", worker_text(base, http));
  std::cout << "created " << dir << "/: roster.yaml, capsules/lead (the entry), capsules/worker"
            << (http ? " — both ask http://127.0.0.1:11434/v1 (model llama3.2)" : " — offline script models") << "\n"
            << "next:\n  cd " << dir << "\n  mur install capsules/worker && mur install capsules/lead\n"
            << "  mur doctor\n  mur run --roster . --task \"say hello\"\n";
  return exit_ok;
}

} // namespace mur
