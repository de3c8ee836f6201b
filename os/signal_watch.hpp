// signal_watch.hpp — SIGINT, SIGTERM and SIGHUP as messages: one thread sigwaits for them.
//
// Invariant: block_session_signals() runs in main before any thread starts, so every later
// thread inherits the mask and only the watch thread ever takes these signals; each signal
// becomes one call of `on_signal` on that thread. SIGPIPE is ignored. stop() ends the thread.
// Rule (docs/ARCHITECTURE.md §Process hygiene): SIGINT, SIGTERM and SIGHUP are blocked in main
// before any thread starts; one thread sigwaits and turns each signal into a message.
#pragma once

#include <functional>
#include <thread>

namespace mur {

void block_session_signals();

class SignalWatch {
public:
  explicit SignalWatch(std::function<void(int signal)> on_signal);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;
  void stop();

private:
  std::function<void(int)> on_signal_;
  std::thread thread_;
  bool stopped_ = false;
};

} // namespace mur
