#include "member/result_writer.hpp"

#include "actors/atoms.hpp"

#include <caf/all.hpp>

#include <memory>
#include <optional>

namespace mur {
namespace {

struct WriterState {
  std::unique_ptr<ResultFile> file;
  std::optional<TaskView> unwritten;
  supervisor_port waiter;
  static inline const char* name = "mur.result_writer";
};

using writer_actor = supervisor_port::stateful_pointer<WriterState>;

void write_pending(writer_actor self) {
  auto& st = self->state;
  if (!st.unwritten) return;
  st.file->write(*st.unwritten);
  st.unwritten.reset();
}

supervisor_port::behavior_type writer(writer_actor self, SessionDir dir, supervisor_port waiter) {
  self->state.file = std::make_unique<ResultFile>(dir);
  self->state.waiter = std::move(waiter);
  return {
    [=](task_end_atom, const TaskView& t) {
      if (is_terminal(t.state)) self->state.unwritten = t;
      if (self->mailbox().empty()) write_pending(self);
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
  return sys.spawn(writer, std::move(dir), std::move(waiter));
}

} // namespace mur
