#include "launcher/view/view_command.hpp"

#include "launcher/base/door_target.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "launcher/base/launcher_record.hpp"
#include "launcher/base/task_answer.hpp"
#include "launcher/traces/session_traces.hpp"
#include "launcher/view/view_server.hpp"
#include "launcher/view/view_state.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <csignal>
#include <thread>

namespace mur {
namespace {

// How often the trace files are read again, and how many reads pass between two pings (a ping
// finds the pages that have gone).
constexpr std::chrono::milliseconds poll_every{100};
constexpr int reads_per_ping = 150;
// How long `run --ui` waits, once the formation has ended, for its last state to reach an open page.
constexpr std::chrono::seconds last_state_bound{3};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Reads and publishes until `running()` says it has ended; the last state published says so.
void serve_until_ended(ViewSource& source, ViewServer& server, const std::function<bool()>& running) {
  for (int reads = 0;; ++reads) {
    const bool on = running(); // before reading: what the files hold then is whole if it has ended
    if (source.poll() || reads == 0 || !on) {
      server.set_transcripts(source.transcripts());
      server.publish(source.state(on, now_ms()));
    }
    if (!on) return;
    if (reads % reads_per_ping == reads_per_ping - 1) server.ping();
    std::this_thread::sleep_for(poll_every);
  }
}

// The page's Answer: sent as `mur answer TASK_ID` sends it, to the live session holding the task,
// with the operator token of its running record.
AnswerOutcome answer_from_page(const std::string& task_id, const std::string& text, const std::string& question) {
  try {
    CurlPool pool;
    answer_task(pool, door_holding(pool, task_id, "E-ANS-001"), task_id, text, question);
    return {};
  } catch (const Failure& f) {
    const int status = f.code() == "E-ANS-001" ? 404 : f.code() == "E-ANS-002" ? 409 : 502;
    return {status, f.code() + ": " + f.message()};
  }
}

} // namespace

int cmd_view(const std::string& target, std::uint16_t port) {
  std::function<bool()> running;
  std::optional<ViewSource> source;
  if (ids::is_valid(target, ids::formation)) {
    auto rec = read_launcher_record(target);
    std::error_code ec;
    if (!(rec && launcher_is_live(*rec)) && !std::filesystem::exists(formation_dir(target), ec) &&
        formation_sessions(target).empty())
      throw Failure("E-TRC-002", "no formation " + target + " is running or has a trace",
                    "list the formations with mur trace list; run it from the project directory");
    source = ViewSource::formation(target, rec ? rec->project_dir : std::string());
    running = [target] {
      auto r = read_launcher_record(target);
      return r && launcher_is_live(*r);
    };
  } else if (ids::is_valid(target, ids::session)) {
    std::string hint;
    if (auto r = read_running_record(target)) hint = r->workdir;
    auto t = find_session(target, hint);
    if (!t) throw Failure("E-TRC-002", "no trace of session " + target + " was found", "run it from the session's workdir");
    source = ViewSource::session(target, t->path);
    running = [target] {
      auto r = read_running_record(target);
      return r && record_is_live(*r);
    };
  } else {
    throw Failure("E-TRC-001", "'" + target + "' is neither a formation id (frm_…) nor a session id (ses_…)",
                  "copy the id from mur ps, mur trace list or the launch's output");
  }
  ViewServer server(port, answer_from_page);
  std::cerr << "view: " << server.page_url() << std::endl;
  serve_until_ended(*source, server, running);
  if (!server.wait_delivered(std::chrono::milliseconds(300))) {
    std::cerr << "view: " << target << " has ended; open " << server.url()
              << " to see its last state (mur view ends then; Ctrl-C ends it now)" << std::endl;
    server.wait_delivered(std::chrono::milliseconds(0));
  }
  server.stop();
  return exit_ok;
}

struct FormationView::Impl {
  ViewServer server;
  std::atomic<bool> on{true};
  std::thread thread;
  bool finished = false;
  explicit Impl(std::uint16_t port) : server(port, answer_from_page) {}
};

FormationView::FormationView(std::string formation_id, std::string project_dir, std::vector<std::string> members,
                             std::uint16_t port)
    : impl_(std::make_unique<Impl>(port)) {
  std::cerr << "view: " << impl_->server.page_url() << std::endl;
  impl_->thread = std::thread([impl = impl_.get(), frm = std::move(formation_id), project = std::move(project_dir),
                               names = std::move(members)] {
    ViewSource source = ViewSource::formation(frm, project, names);
    serve_until_ended(source, impl->server, [impl] { return impl->on.load(); });
  });
}

FormationView::~FormationView() { finish(); }

int FormationView::serve_until_signal() {
  if (impl_->finished) return 0;
  impl_->on = false;
  if (impl_->thread.joinable()) impl_->thread.join(); // its last state is published: the formation ended
  std::cerr << "view: the formation has ended; " << impl_->server.url()
            << " keeps showing its last state until Ctrl-C (the exit code stays the formation's)" << std::endl;
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  int sig = 0;
  if (::sigwait(&set, &sig) != 0) sig = 0;
  finish();
  return sig;
}

void FormationView::finish() {
  if (impl_->finished) return;
  impl_->finished = true;
  impl_->on = false;
  if (impl_->thread.joinable()) impl_->thread.join();
  if (impl_->server.open_pages() > 0) impl_->server.wait_delivered(last_state_bound);
  impl_->server.stop();
}

} // namespace mur
