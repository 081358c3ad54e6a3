"""A child process that dies with the bot: the demo worker and the chart process call
`die_with(bot_pid)` first thing, so no `kill -9` of the bot leaves them running.

Linux's parent-death signal (`prctl(PR_SET_PDEATHSIG, SIGKILL)`) ends the child the
moment its parent dies; a watcher thread covers what that signal cannot: the bot dying
before the call (the child would never be signalled), a parent that is not the bot (the
forkserver forks the demo worker), and other systems. Torch-free, stdlib only.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1
WATCH_EVERY_S = 0.5


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process took the pid: ours is gone
        return False
    return True


def _parent_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the watcher below still ends the process


def _watch(bot_pid: int, parent_pid: int) -> None:
    event = threading.Event()
    while not event.wait(WATCH_EVERY_S):
        if not _alive(bot_pid) or os.getppid() != parent_pid:
            os._exit(1)


def die_with(bot_pid: int) -> None:
    """End this process when `bot_pid` (or this process's parent) is gone."""
    parent = os.getppid()
    _parent_death_signal()
    # The parent may have died between the fork and the prctl: then no signal comes.
    if not _alive(bot_pid) or os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch, args=(bot_pid, parent), name="lifeline", daemon=True).start()
