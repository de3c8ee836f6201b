// view_server.hpp — serves `mur view`'s page on 127.0.0.1 and streams the view's state to it as
// server-sent events (GET /events), on http/loopback_listener.hpp.
//
// Invariant: it answers only GET of five paths (/ the page, /view.css, /view.js, /events,
// /transcript) and POST /answer, and only a request whose Host is 127.0.0.1:PORT or localhost:PORT and whose
// Origin, when given, is http:// of one of those (a page of another site, or a DNS name rebound
// to 127.0.0.1, is answered 403). POST /answer also needs the header X-Mur-View-Key equal to
// this server's random key (else 403), which only the URL printed for the operator carries, in
// its fragment (page_url): the page served has none, so whoever can only GET it — another
// local user, a member's program — cannot answer. Then a JSON body
// {task_id, text (not empty), question} (else 400) of at most 64 KiB (else 413); it is handed
// to the AnswerFn, whose outcome is the answer (200 {"ok":true}, or its status with
// {"error":…}); with no AnswerFn it is 404. GET /transcript?task=TASK_ID needs the same key
// (else 403: a transcript holds more than the page shows), a task id (else 400) that the index
// set last names (else 404), and answers the blob recorded for it (a task recorded without one:
// 404 saying how to record it); no part of the request ever reaches a path (transcript_index.hpp). Every answer carries `Content-Security-Policy: default-src 'self'`. Each event
// is the whole state, one JSON document on one `data:` line; a page that connects gets the last
// state at once, and every open page gets each state published. It serves only what it is
// given (launcher/view/view_state.hpp: no token, no door URL, no view key).
// It knows no door and prints nothing.
// Rule (docs/spec/choices.md §Observability): the page updates live, over SSE from the
// launcher.
#pragma once

#include "launcher/view/transcript_index.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mur {

class LoopbackListener;

// What became of an answer the page sent: `status` 200 when the door took it, else the HTTP
// status to answer with and why.
struct AnswerOutcome {
  int status = 200;
  std::string error;
};
// Sends the operator's `text` to the task `task_id` waiting on `question`; called on a thread of
// its own (it may take as long as the door does).
using AnswerFn =
  std::function<AnswerOutcome(const std::string& task_id, const std::string& text, const std::string& question)>;

class ViewServer {
public:
  // Listens on 127.0.0.1:`port` (0: the OS chooses). Throws Failure: E-RUN-051 (that port
  // cannot be served), E-RUN-047 (no listening at all).
  explicit ViewServer(std::uint16_t port = 0, AnswerFn on_answer = nullptr);
  ~ViewServer();
  ViewServer(const ViewServer&) = delete;
  ViewServer& operator=(const ViewServer&) = delete;

  std::string url() const; // http://127.0.0.1:PORT/
  // The URL to open: url(), and when answers are taken `#key=<the page's key>` — a fragment,
  // which no browser sends: a process that only GETs the page never learns the key.
  std::string page_url() const;

  // Sends `state` to every open page and keeps it for pages that connect later. A state whose
  // `running` is false is the last: once some page has received it, `wait_delivered` returns.
  void publish(const nlohmann::json& state);
  // Which tasks have transcripts, and where: what GET /transcript reads from now on.
  void set_transcripts(TranscriptIndex index);
  // A comment line to every open page, so that pages that have gone are found and dropped.
  void ping();
  // Waits until a page has received the last state: true then; false when `bound` passed first
  // (a zero bound waits for as long as it takes).
  bool wait_delivered(std::chrono::milliseconds bound);
  std::size_t open_pages() const;

  void stop(); // ends every stream and stops listening; idempotent

  struct Shared;

private:
  std::shared_ptr<Shared> shared_;
  std::unique_ptr<LoopbackListener> listener_;
};

} // namespace mur
