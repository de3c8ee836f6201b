// background_mur.hpp — a real `mur` process left running while a test talks to it.
//
// Invariant: the child's stdout is a pipe the test reads line by line (blocking until the
// line or EOF, never a timed wait); stdin and stderr are /dev/null; the child is killed and
// reaped when the object goes away if the test did not end it.
#pragma once

#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace mur::test {

class BackgroundMur {
public:
  BackgroundMur(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);
  ~BackgroundMur();
  BackgroundMur(const BackgroundMur&) = delete;
  BackgroundMur& operator=(const BackgroundMur&) = delete;

  std::string read_line();   // "" at EOF
  void signal(int sig);
  int wait();                // exit code, 128+N when killed by signal N
  pid_t pid() const { return pid_; }

private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
  int code_ = -1;
};

} // namespace mur::test
