// stdio_process.hpp — a long-lived child process spoken to in lines over its stdin and stdout
// (an MCP tool server on the stdio transport).
//
// Invariant: lines written with send() reach the child's stdin whole and in order, each ended by
// '\n', without blocking the caller (a queue the run's thread drains as the pipe takes them);
// every line the child writes on stdout reaches `on_line` in order, a line longer than the cap
// ending the process (it is not a server that speaks in lines); the tail of its stderr is kept;
// `on_end` runs exactly once, when the child has exited (or could not start), with why. The
// child starts in the working directory and environment given, under the isolation plan, in the
// caller's process group (a group kill of the member takes it too); the destructor kills it
// and joins the thread. The run's thread waits on descriptors, a wake pipe and the pidfd (no
// polling timer). Nothing here prints what the child wrote.
// Rule: docs/spec/choices.md §Tool servers.
#pragma once

#include "os/piped_program.hpp"

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace mur {

struct StdioStart : ProgramStart {
  std::size_t line_cap = 16 * 1024 * 1024;
  std::size_t stderr_tail = 4 * 1024;
};

struct StdioEnd : ProgramEnd {
  bool line_too_long = false;
};

// "exited with code 1", "was killed by signal 9", "could not start: …", "wrote a line over …".
std::string describe(const StdioEnd& end);

class StdioProcess {
public:
  // `on_line` and `on_end` run on the process's own thread and must only hand work on.
  StdioProcess(StdioStart start, std::function<void(std::string)> on_line, std::function<void(StdioEnd)> on_end);
  ~StdioProcess(); // SIGKILL if it still runs, then joins the thread
  StdioProcess(const StdioProcess&) = delete;
  StdioProcess& operator=(const StdioProcess&) = delete;

  void send(std::string line); // no effect once it ended
  pid_t pid() const;

  struct Impl;

private:
  std::shared_ptr<Impl> impl_;
};

} // namespace mur
