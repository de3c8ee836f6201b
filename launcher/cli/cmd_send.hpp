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
// SendMessage (which returns at once with the task's id) and followed over SubscribeToTask to
// its terminal state (launcher/base/task_follow.hpp: a broken stream is followed again, never
// polled), as long as it works unless --timeout bounds the wait; a task that waits for input has
// its question and the `mur answer` command printed on stderr. Giving up says so with the task's
// id, that it goes on, and the command that shows its answer later (E-SND-005 the timeout,
// E-SND-006 the stream lost and not regained). Ctrl-C, SIGTERM or SIGHUP
// while it runs cancels it with CancelTask, down the whole tree (cmd_cancel.hpp), prints what was
// canceled and exits 130. Exit 0 when it completed, 1 otherwise.
// --context ID sends the task in that A2A context: a `lifecycle.conversation: threaded` member
// continues its conversation there (docs/manifest.md §Conversations (`lifecycle.conversation`)).
// Spec: docs/spec/choices.md §Command line (`mur send`).
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace mur {

// `timeout`: how long it waits at most, from the start (--timeout); none: as long as the task works.
// `context`: the A2A contextId to send the task in ("" ⇒ the door mints one); the task's
// contextId is printed (stderr, or `context_id` with --json) so the next message can continue it.
int cmd_send(const std::string& target, const std::string& text, bool json, bool wait = false,
             std::optional<std::chrono::milliseconds> timeout = std::nullopt, const std::string& context = {});

} // namespace mur
