#include "actors/trace_recorder.hpp"

#include "actors/atoms.hpp"
#include "messages/ids.hpp"
#include "messages/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

namespace mur {
namespace {

using flush_atom = caf::atom_constant<caf::atom("trflush")>; // the recorder's own flush timer

struct TraceState {
  std::string session_id;
  TraceSink sink;
  std::string root;  // the session_start event's id
  std::vector<std::string> lines; // kept only without a sink
  bool flush_due = false;         // a flush is scheduled
  // Unix ms at spawn, and the actor clock then: timestamps advance with the actor clock (so a
  // simulation's are deterministic offsets) and read as wall-clock time in a real session.
  std::int64_t epoch_ms = 0;
  caf::actor_clock::time_point started;
  static inline const char* name = "mur.trace";
};

caf::behavior recorder(caf::stateful_actor<TraceState>* self, std::string session_id, TraceSink sink) {
  self->state.session_id = std::move(session_id);
  self->state.sink = std::move(sink);
  self->state.epoch_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
  self->state.started = self->clock().now();
  return {
    [=](const TraceEvent& ev) {
      auto& st = self->state;
      nlohmann::ordered_json line;
      const std::string id = ids::mint(ids::event);
      line["event_type"] = ev.type;
      line["event_id"] = id;
      line["parent_id"] = st.root.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(st.root);
      line["session_id"] = st.session_id;
      line["timestamp"] = st.epoch_ms + std::chrono::duration_cast<std::chrono::milliseconds>(
                                          self->clock().now() - st.started).count();
      if (ev.type == "session_start" && st.root.empty()) {
        st.root = id;
        line["parent_id"] = nullptr;
      }
      auto fields = nlohmann::ordered_json::parse(ev.fields, nullptr, false);
      if (fields.is_object())
        for (auto it = fields.begin(); it != fields.end(); ++it) line[it.key()] = it.value();
      std::string text = line.dump();
      if (!st.sink) {
        st.lines.push_back(std::move(text));
        return;
      }
      st.sink.write(text);
      if (st.sink.flush && !st.flush_due) {
        st.flush_due = true;
        self->delayed_send(self, flush_every, flush_atom::value);
      }
    },
    [=](flush_atom) {
      self->state.flush_due = false;
      if (self->state.sink.flush) self->state.sink.flush();
    },
    [=](trace_atom) -> std::vector<std::string> {
      if (self->state.sink.flush) self->state.sink.flush();
      return self->state.lines;
    },
  };
}

} // namespace

caf::actor spawn_trace_recorder(caf::actor_system& sys, std::string session_id, TraceSink sink) {
  return sys.spawn(recorder, std::move(session_id), std::move(sink));
}

} // namespace mur
