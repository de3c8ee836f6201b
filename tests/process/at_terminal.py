#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, as a person at a terminal would, for the process tests.

Usage: at_terminal.py ANSWER COMMAND [ARG...]
Whenever the command writes the prompt "answer> " on its terminal, ANSWER and a newline are
typed there. Everything the terminal showed is printed on stdout; the exit code is the command's.
A bound of 60 s ends a command that never finishes (exit 124).
"""
import os
import pty
import select
import signal
import sys
import time

answer, argv = sys.argv[1].encode(), sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
shown, typed = b"", 0
deadline = time.time() + 60
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.5)
    if fd not in ready:
        continue
    try:
        chunk = os.read(fd, 4096)
    except OSError:  # the command ended: the terminal's other side is gone
        break
    if not chunk:
        break
    shown += chunk
    while shown.count(b"answer> ") > typed:
        os.write(fd, answer + b"\n")
        typed += 1
else:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    sys.stdout.write(shown.decode("utf-8", "replace"))
    sys.exit(124)
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(status))
