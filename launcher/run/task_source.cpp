// task_source.cpp — see task_source.hpp.
#include "launcher/run/task_source.hpp"

#include "launcher/base/cli_words.hpp"
#include "messages/vocabulary/failure.hpp"

#include <fstream>
#include <iostream>
#include <iterator>

namespace mur {
namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

// Reads `in` to its end into `text`; false when it holds more than max_task_bytes.
bool read_bounded(std::istream& in, std::string& text) {
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_task_bytes) return false;
  }
  return true;
}

} // namespace

void refuse_empty_task(const std::string& text, const std::string& how) {
  if (blank(text)) throw UsageError("E-CLI-003", "the task is empty", "give the task's text: " + how);
}

std::string task_from_argument(const std::string& arg, const std::string& how) {
  if (arg.empty() || arg[0] != '@') {
    refuse_empty_task(arg, how);
    return arg;
  }
  const std::string path = arg.substr(1);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Failure("E-RUN-009", "cannot read the task file " + path, "pass --task TEXT or @FILE of a readable file");
  std::string text;
  if (!read_bounded(in, text))
    throw Failure("E-RUN-009", "the task file " + path + " is larger than 16 MiB", "give a shorter task");
  if (in.bad()) throw Failure("E-RUN-009", "cannot read the task file " + path, "pass --task TEXT or @FILE of a readable file");
  if (blank(text)) throw Failure("E-RUN-009", "the task file " + path + " is empty", "write the task into it");
  return text;
}

std::string launch_task_from_stdin() {
  std::string text;
  if (!read_bounded(std::cin, text))
    throw Failure("E-RUN-009", "the launch task on stdin is larger than 16 MiB", "give a shorter task");
  if (blank(text)) throw Failure("E-RUN-009", "the launch task on stdin is empty", "give the task's text");
  return text;
}

} // namespace mur
