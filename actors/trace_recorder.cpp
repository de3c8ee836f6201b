#include "actors/trace_recorder.hpp"

#include "actors/atoms.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/trace_event.hpp"

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
  std::string quoted_session;     // session_id as a JSON string
  std::string root;               // the session_start event's id
  std::vector<std::string> lines; // kept only without a sink
  std::vector<std::string> blobs; // kept only without a sink
  bool flush_due = false;         // a flush is scheduled
  std::optional<IdClock> clock;   // event ids and timestamps
  static inline const char* name = "mur.trace";
};

std::string json_quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

recorder_actor::behavior_type recorder(recorder_actor::stateful_pointer<TraceState> self, std::string session_id,
                                       TraceSink sink, IdClockSpec ids) {
  self->state.session_id = std::move(session_id);
  self->state.quoted_session = json_quoted(self->state.session_id);
  self->state.sink = std::move(sink);
  self->state.clock.emplace(ids, self->clock(), self->state.session_id + "/trace");
  auto record = [self](const TraceEvent& ev) {
    auto& st = self->state;
    const std::string id = st.clock->mint(ids::event);
    const bool root = ev.type == "session_start" && st.root.empty();
    // The envelope, then the event's own fields spliced in as the sender wrote them (a JSON
    // object's text): a line costs one string, not a parse and a second dump.
    std::string text;
    text.reserve(96 + st.session_id.size() + ev.fields.size());
    text += "{\"event_type\":";
    text += json_quoted(ev.type);
    text += ",\"event_id\":\"";
    text += id; // evt_ and an id's own alphabet: nothing to escape
    text += "\",\"parent_id\":";
    text += root || st.root.empty() ? std::string("null") : "\"" + st.root + "\"";
    text += ",\"session_id\":";
    text += st.quoted_session;
    text += ",\"timestamp\":";
    text += std::to_string(st.clock->now_ms());
    if (root) st.root = id;
    const std::string& f = ev.fields;
    if (f.size() > 2 && f.front() == '{' && f.back() == '}') {
      text += ',';
      text.append(f, 1, std::string::npos);
    } else {
      text += '}'; // no fields (or not an object: the envelope alone)
    }
    if (!st.sink) {
      st.lines.push_back(std::move(text));
      return;
    }
    st.sink.write(text);
    if (st.sink.flush && !st.flush_due) {
      st.flush_due = true;
      self->delayed_send(self, flush_every, flush_atom_v);
    }
  };
  return {
    [=](const TraceEvent& ev) { record(ev); },
    [=](const TraceEvent& ev, const std::string& blob) {
      auto& st = self->state;
      if (!st.sink) st.blobs.push_back(blob);
      else if (st.sink.blob) st.sink.blob(blob);
      record(ev);
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
