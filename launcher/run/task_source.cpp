// task_source.cpp — see task_source.hpp.
#include "launcher/run/task_source.hpp"

#include "launcher/base/cli_words.hpp"
#include "messages/vocabulary/failure.hpp"

#include <fstream>
#include <iterator>

namespace mur {
namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

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
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Failure("E-RUN-009", "cannot read the task file " + path, "pass --task TEXT or @FILE of a readable file");
  if (blank(text)) throw Failure("E-RUN-009", "the task file " + path + " is empty", "write the task into it");
  return text;
}

} // namespace mur
