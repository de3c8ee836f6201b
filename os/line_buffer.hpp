// line_buffer.hpp — a byte stream read in chunks (a child's stdout or stderr), cut into lines.
//
// Invariant: '\n' ends a line and is not part of it; lines are delivered in the order their
// bytes came; what is left when the stream ends is delivered by finish() as a last line (nothing
// when empty). With a cap, a line whose bytes pile up past it is delivered cut to its first
// `cap` bytes and the piled-up rest is dropped, so an endless line never grows the buffer.
#pragma once

#include "os/read_now.hpp"

#include <cstddef>
#include <string>
#include <utility>

namespace mur {

class LineBuffer {
public:
  explicit LineBuffer(std::size_t cap = std::string::npos) : cap_(cap) {}

  template <class OnLine>
  void feed(const char* data, std::size_t n, OnLine&& on_line) {
    buf_.append(data, n);
    std::size_t start = 0, nl;
    while ((nl = buf_.find('\n', start)) != std::string::npos) {
      on_line(buf_.substr(start, nl - start));
      start = nl + 1;
    }
    buf_.erase(0, start);
    if (buf_.size() > cap_) {
      on_line(buf_.substr(0, cap_));
      buf_.clear();
    }
  }

  // Feeds what the non-blocking `fd` holds now; at its end (false) the last line is finished.
  template <class OnLine>
  bool read_from(int fd, OnLine&& on_line) {
    const bool open = read_now(fd, [&](const char* data, std::size_t n) { feed(data, n, on_line); });
    if (!open) finish(on_line);
    return open;
  }

  template <class OnLine>
  void finish(OnLine&& on_line) {
    if (!buf_.empty()) on_line(std::move(buf_));
    buf_.clear();
  }

private:
  std::string buf_;
  std::size_t cap_;
};

} // namespace mur
