#!/usr/bin/env python3
"""tests/harness/cli/jobctl.py -- a tiny job-control shell on a new pseudo-terminal, for tests/harness/cli/run.sh.

It becomes the leader of a new session whose controlling terminal is a new pty, runs one job
(argv after --) in a process group of its own, as an interactive shell would, and drives it:

  read    the job in the foreground; once MARKER shows on the terminal, types INPUT and a newline
  ttin    the job in the background (the terminal stays the shell's); waits until the job stops,
          then does what "kill %1" does: SIGTERM, then SIGCONT, to the job's process group
  ctrlz   the job in the foreground; once MARKER shows, types Ctrl-Z; waits until the job stops,
          takes the terminal back, runs --during (in a session of its own) and waits --stopped-for
          seconds in all, then does what "fg" does: the terminal to the job, SIGCONT

It prints, one a line: "stopped=SIGNAME" when the job stopped, "during=RC", "exit=N" (128+N for
a signal) or "exit=timeout" when a step took longer than --timeout seconds (then "session: ..." too, the
state of each process of the session), and "output=..." (what
the job wrote on the terminal, repr). Every process of the session is killed at the end.
"""
import argparse
import fcntl
import os
import select
import signal
import subprocess
import sys
import termios
import time


def session_procs():
    """pid, state, kernel wait channel and name of each process of this session (for a timeout's report)"""
    sid, found = os.getsid(0), []
    for d in sorted(os.listdir("/proc"), key=lambda x: int(x) if x.isdigit() else 0):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            if os.getsid(int(d)) != sid:
                continue
            stat = open("/proc/%s/stat" % d).read()
            name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
            wchan = open("/proc/%s/wchan" % d).read()
            found.append("%s %s %s %s" % (d, name, rest[0], wchan))
        except OSError:
            pass
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["read", "ttin", "ctrlz"])
    ap.add_argument("--marker", default="ready")
    ap.add_argument("--input", default="hello")
    ap.add_argument("--during", default="")
    ap.add_argument("--stopped-for", type=float, default=0.0)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("argv", nargs="+")
    a = ap.parse_args()

    try:
        os.setsid()
    except OSError:
        # a process group leader cannot start a session: a child does
        pid = os.fork()
        if pid:
            _, st = os.waitpid(pid, 0)
            sys.exit(os.waitstatus_to_exitcode(st))
        os.setsid()
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    # as a shell: its own use of the terminal from the background must not stop it
    for s in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGTSTP):
        signal.signal(s, signal.SIG_IGN)
    fg = a.mode != "ttin"
    job = os.fork()
    if job == 0:
        os.setpgid(0, 0)
        if fg:
            os.tcsetpgrp(slave, os.getpid())
        for s in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGTSTP):
            signal.signal(s, signal.SIG_DFL)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.close(master)
        os.close(slave)
        try:
            os.execvp(a.argv[0], a.argv)
        finally:
            os._exit(127)
    try:
        os.setpgid(job, job)
    except OSError:
        pass
    if fg:
        try:
            os.tcsetpgrp(slave, job)
        except OSError:
            pass

    out = bytearray()
    result = {}

    def pump(seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            r, _, _ = select.select([master], [], [], max(0.0, min(left, 0.02)))
            if r:
                try:
                    out.extend(os.read(master, 4096))
                except OSError:
                    pass
            if left <= 0:
                return

    def until(cond, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            v = cond()
            if v:
                return v
            pump(0.02)
        return cond()

    status = {}

    def job_state():
        if "exit" in status:
            return "exit"
        p, st = os.waitpid(job, os.WNOHANG | os.WUNTRACED)
        if p != job:
            return None
        if os.WIFSTOPPED(st):
            status["stopped"] = os.WSTOPSIG(st)
            return "stopped"
        status["exit"] = os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st)
        return "exit"

    ok = True
    if a.mode in ("read", "ctrlz"):
        ok = bool(until(lambda: a.marker.encode() in out or job_state() == "exit", a.timeout))
        if ok and "exit" not in status:
            os.write(master, (a.input + "\n").encode() if a.mode == "read" else b"\x1a")
    if ok and a.mode in ("ttin", "ctrlz") and "exit" not in status:
        stopped_at = time.monotonic()
        if until(lambda: job_state(), a.timeout) == "stopped":
            print("stopped=" + signal.Signals(status["stopped"]).name, flush=True)
            if a.mode == "ttin":
                os.killpg(job, signal.SIGTERM)
                os.killpg(job, signal.SIGCONT)
            else:
                os.tcsetpgrp(slave, os.getpgrp())
                if a.during:
                    r = subprocess.run(a.during, shell=True, start_new_session=True, stdin=subprocess.DEVNULL)
                    print("during=%d" % r.returncode, flush=True)
                pump(max(0.0, stopped_at + a.stopped_for - time.monotonic()))
                os.tcsetpgrp(slave, job)
                os.killpg(job, signal.SIGCONT)
    if until(lambda: job_state() == "exit", a.timeout):
        print("exit=%d" % status["exit"], flush=True)
    else:
        print("exit=timeout", flush=True)
        print("session: " + "; ".join(session_procs()), flush=True)
    pump(0.1)
    print("output=" + repr(out.decode(errors="replace")), flush=True)
    # the whole session goes, whatever the job left behind
    me, sid = os.getpid(), os.getsid(0)
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != me:
            try:
                if os.getsid(int(d)) == sid:
                    os.kill(int(d), signal.SIGKILL)
            except OSError:
                pass


if __name__ == "__main__":
    main()
