// channel_reader.hpp — the member side of the formation channel: one thread reading its lines.
//
// Invariant: the first line must arrive within the deadline (10 s unless told otherwise) or the
// launch is refused (E-RUN-046, naming that deadline); every line is `\n`-terminated (a trailing `\r` is stripped), at most 1 MiB, UTF-8.
// A refused line is reported by reason only, never quoted. Later lines are delivered as they
// arrive; EOF is reported once. Exactly one of `failed` / `closed` ends the thread, unless
// stop() ends it first (then nothing more is reported).
// Rule: the first line comes within the deadline or the launch is refused; later lines bring
// callees' doors (docs/spec/door.md §The formation channel).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/unique_fd.hpp"
#include "os/wake_pipe.hpp"

namespace mur {

class ChannelReader {
public:
  // Every handler runs on the reader thread and must not call stop() or destroy the reader.
  struct Handlers {
    std::function<void(std::string line)> first_line;
    std::function<void(std::string line)> line;                // each later line
    std::function<void(const std::string& reason)> bad_line;   // a later line, refused
    std::function<void(const Failure& refusal)> failed;        // no acceptable first line
    std::function<void()> closed;                              // EOF after the first line
  };

  // Takes ownership of `fd` (a validated channel read end) and starts reading at once.
  ChannelReader(UniqueFd fd, Handlers handlers,
                std::chrono::milliseconds first_line_deadline =
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        FORMATION_CHANNEL_FIRST_LINE_DEADLINE));
  ~ChannelReader();
  ChannelReader(const ChannelReader&) = delete;
  ChannelReader& operator=(const ChannelReader&) = delete;

  void stop();

private:
  void run();
  // Handles one complete line; false when the reader must end.
  bool deliver(std::string line);
  void fail(const std::string& reason);

  UniqueFd fd_;
  Handlers handlers_;
  std::chrono::milliseconds first_line_wait_;
  std::chrono::steady_clock::time_point deadline_;
  bool have_first_ = false;
  WakePipe wake_;
  std::thread thread_;
};

} // namespace mur
