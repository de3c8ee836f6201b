// cmd_send.hpp — `mur send TARGET TEXT [--json]`: hands a running door one task and prints its
// answer.
//
// Invariant: TARGET `ses_…` is found through its running record (live pid, same start stamp)
// and called with the record's operator token, which goes only into the Authorization header;
// TARGET `frm_…` is that formation's entry member (its launcher record names it, and the
// entry's running record gives its door and operator token); a URL target is called without a
// credential unless it is the door of a running record (the URL `mur ps` shows), whose operator
// token is then used. A busy door's refusal is E-SND-004; with --wait the task is offered again
// as call-member does (actors/egress.hpp reoffer_delay) until it is taken. The task is sent with
// SendMessage and followed with SubscribeToTask (GetTask every 500 ms if the stream fails) to
// its terminal state (SendMessage returns at once with the task's id). Ctrl-C, SIGTERM or SIGHUP
// while it runs cancels it with CancelTask, down the whole tree (cmd_cancel.hpp), prints what was
// canceled and exits 130. Exit 0 when it completed, 1 otherwise.
// --context ID sends the task in that A2A context: a `lifecycle.conversation: threaded` member
// continues its conversation there (docs/manifest.md §Conversations (`lifecycle.conversation`)).
// Spec: docs/spec/choices.md §Command line (`mur send`).
#pragma once

#include <string>

namespace mur {

// `context`: the A2A contextId to send the task in ("" ⇒ the door mints one); the task's
// contextId is printed (stderr, or `context_id` with --json) so the next message can continue it.
int cmd_send(const std::string& target, const std::string& text, bool json, bool wait = false,
             const std::string& context = {});

} // namespace mur
