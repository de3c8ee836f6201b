#include "member/result_writer.hpp"

#include "actors/atoms.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <memory>
#include <optional>

namespace mur {
namespace {

constexpr std::chrono::milliseconds write_every{100};

// The supervisor port plus the writer's own timer.
using writer_handle = supervisor_port::extend<caf::reacts_to<flush_atom>>;

struct WriterState {
  std::unique_ptr<ResultFile> file;
  std::optional<TaskView> unwritten;
  bool write_due = false; // a timed write is scheduled
  supervisor_port waiter;
  static inline const char* name = "mur.result_writer";
};

using writer_actor = writer_handle::stateful_pointer<WriterState>;

void write_pending(writer_actor self) {
  auto& st = self->state;
  if (!st.unwritten) return;
  st.file->write(*st.unwritten);
  st.unwritten.reset();
}

writer_handle::behavior_type writer(writer_actor self, SessionDir dir, supervisor_port waiter) {
  self->state.file = std::make_unique<ResultFile>(dir);
  self->state.waiter = std::move(waiter);
  return {
    [=](task_end_atom, const TaskView& t) {
      if (!is_terminal(t.state)) return;
      self->state.unwritten = t;
      if (self->state.write_due) return;
      self->state.write_due = true;
      self->delayed_send(self, write_every, flush_atom_v);
    },
    [=](flush_atom) {
      self->state.write_due = false;
      write_pending(self);
    },
    [=](const TaskEvent& ev) {
      if (is_terminal(ev.task.state)) {
        self->state.unwritten = ev.task;
        write_pending(self);
      }
      self->send(self->state.waiter, ev);
    },
    [=](ended_atom, const std::string& member, std::int32_t code) {
      write_pending(self);
      self->send(self->state.waiter, ended_atom_v, member, code);
      self->quit();
    },
  };
}

} // namespace

supervisor_port spawn_result_writer(caf::actor_system& sys, SessionDir dir, supervisor_port waiter) {
  return caf::actor_cast<supervisor_port>(sys.spawn(writer, std::move(dir), std::move(waiter)));
}

} // namespace mur
