// member_console.hpp — the launcher's stdout and stderr, shared by every member's reader thread
// and the progress reporter.
//
// Invariant: every line is written whole under one lock, so lines of different members never
// interleave. A member's later stdout and all its stderr go to stderr prefixed `[name] `; the
// entry member's stdout is the formation's answer and goes to stdout unprefixed — held back
// until the reporter opens it, so the formation line always comes first. In human mode the
// entry's readiness line is dropped and its JSON answer line becomes the answer's text.
// Nothing a member prints is searched for tokens here: members never print them.
// Rule (docs/spec/formation.md §Member output): a member's later stdout lines and all of its
// stderr reach the launcher's stderr, prefixed `[<member>] `.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace mur {

class MemberConsole {
public:
  explicit MemberConsole(bool json) : json_(json) {}

  // One line of a member's stderr (or a peer's stdout after its readiness line).
  void relay(const std::string& member, const std::string& line);
  // One line of the entry member's stdout; its first is its readiness line.
  void entry_line(const std::string& line);
  // Prints `first` (the formation line, "" for none) on stdout, then the entry lines held back.
  void open_entry(const std::string& first);
  // A line of the launcher's own: `[mur run] text` on stderr.
  void note(const std::string& text);
  // A line on stdout, as is.
  void out(const std::string& line);
  // Whether the entry printed its answer line (--task mode).
  bool answered() const;
  // The entry's answer state when it printed one ("" if none).
  std::string answer_state() const;

private:
  void emit_entry(const std::string& line); // lock held

  bool json_;
  mutable std::mutex mu_;
  bool open_ = false;
  bool saw_ready_ = false;
  std::vector<std::string> held_;
  std::string answer_state_;
};

} // namespace mur
