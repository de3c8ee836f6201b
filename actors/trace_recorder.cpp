#include "actors/trace_recorder.hpp"

#include "actors/atoms.hpp"
#include "messages/ids.hpp"
#include "messages/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <optional>

namespace mur {
namespace {

// The trace port plus the recorder's own flush timer.
using recorder_actor = trace_port::extend<caf::reacts_to<flush_atom>>;

struct TraceState {
  std::string session_id;
  TraceSink sink;
  std::string root;               // the session_start event's id
  std::vector<std::string> lines; // kept only without a sink
  bool flush_due = false;         // a flush is scheduled
  std::optional<IdClock> clock;   // event ids and timestamps
  static inline const char* name = "mur.trace";
};

recorder_actor::behavior_type recorder(recorder_actor::stateful_pointer<TraceState> self, std::string session_id,
                                       TraceSink sink, IdClockSpec ids) {
  self->state.session_id = std::move(session_id);
  self->state.sink = std::move(sink);
  self->state.clock.emplace(ids, self->clock(), self->state.session_id + "/trace");
  return {
    [=](const TraceEvent& ev) {
      auto& st = self->state;
      nlohmann::ordered_json line;
      const std::string id = st.clock->mint(ids::event);
      line["event_type"] = ev.type;
      line["event_id"] = id;
      line["parent_id"] = st.root.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(st.root);
      line["session_id"] = st.session_id;
      line["timestamp"] = st.clock->now_ms();
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
        self->delayed_send(self, flush_every, flush_atom_v);
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

trace_port spawn_trace_recorder(caf::actor_system& sys, std::string session_id, TraceSink sink, IdClockSpec ids) {
  return trace_port{sys.spawn(recorder, std::move(session_id), std::move(sink), ids)};
}

} // namespace mur
