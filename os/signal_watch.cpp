#include "os/signal_watch.hpp"

#include <csignal>
#include <pthread.h>

namespace mur {
namespace {

// SIGUSR2 only wakes the watch thread to end it.
sigset_t watched() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR2}) sigaddset(&set, s);
  return set;
}

} // namespace

void block_session_signals() {
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t set = watched();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

SignalWatch::SignalWatch(std::function<void(int)> on_signal) : on_signal_(std::move(on_signal)) {
  thread_ = std::thread([this] {
    sigset_t set = watched();
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      if (sig == SIGUSR2) return;
      on_signal_(sig);
    }
  });
}

SignalWatch::~SignalWatch() { stop(); }

void SignalWatch::stop() {
  if (stopped_) return;
  stopped_ = true;
  pthread_kill(thread_.native_handle(), SIGUSR2);
  thread_.join();
}

} // namespace mur
