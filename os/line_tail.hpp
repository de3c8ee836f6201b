// line_tail.hpp — the last lines a process wrote on stderr, kept to say why it ended.
//
// Invariant: at most `max` lines are kept, the newest last; a line is added by the thread that
// reads the process and quoted by any other, under the tail's own lock.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

namespace mur {

class LineTail {
public:
  explicit LineTail(std::size_t max = 20) : max_(max) {}

  void add(std::string line) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(std::move(line));
    if (lines_.size() > max_) lines_.pop_front();
  }

  // Each kept line after "\n" + `indent` + "| ", oldest first ("" when none).
  std::string quoted(const std::string& indent) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const auto& l : lines_) out += "\n" + indent + "| " + l;
    return out;
  }

private:
  mutable std::mutex mu_;
  std::deque<std::string> lines_;
  std::size_t max_;
};

} // namespace mur
