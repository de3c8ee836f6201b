// curl_messages.hpp — what a CurlPool call hands back to the actor that made it: each SSE event's
// data as an HttpEvent, then exactly one HttpDone, both under the id the actor chose.
//
// Invariant: the callbacks only send (they run on the pool's thread); HttpDone carries the
// status (0 and a transport reason on failure), the plain body, Retry-After, whether any byte
// of a reply arrived and an MCP server's Mcp-Session-Id (each HttpEvent too). Local messages only: never serialised, so not in the type-ID block.
#pragma once

#include "http/curl_pool.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/send.hpp>

#include <cstdint>
#include <string>

namespace mur {

struct HttpEvent {
  std::uint64_t id = 0;
  std::string data;
  std::string session_id; // Mcp-Session-Id of the reply that carries the event
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, HttpEvent& x) {
  return f(caf::meta::type_name("mur::HttpEvent"), x.id, x.data, x.session_id);
}

struct HttpDone {
  std::uint64_t id = 0;
  std::int64_t status = 0;
  std::string body;
  std::string error;
  std::string retry_after;
  bool received = false;
  std::string session_id; // Mcp-Session-Id
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, HttpDone& x) {
  return f(caf::meta::type_name("mur::HttpDone"), x.id, x.status, x.body, x.error, x.retry_after, x.received, x.session_id);
}

// Makes `call` report to `to` under `id`: its events (when `events`) and its end.
template <class Handle>
void report_to(HttpCall& call, Handle to, std::uint64_t id, bool events) {
  if (events)
    call.on_event_meta = [to, id](const std::string& data, const HttpReplyMeta& meta) {
      caf::anon_send(to, HttpEvent{id, data, meta.session_id});
    };
  call.on_done_meta = [to, id](long status, std::string body, std::string error, HttpReplyMeta meta) {
    caf::anon_send(to, HttpDone{id, status, std::move(body), std::move(error), std::move(meta.retry_after), meta.received,
                             std::move(meta.session_id)});
  };
}

} // namespace mur
