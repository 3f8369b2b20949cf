/* rl_fanout.c -- one command written to every node, one poll() loop; the drain at request end.
 * Per-call state lives here (struct fan), not in the connections. */
#include "rl_conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct fan fan;
static void catch_up(fan *f, int i, uint64_t now);
static int probe_send(fan *f, int i, uint64_t now);
static int do_poll(rl_net *net, struct pollfd *pfd, int np, int wait_ms);
static int connect_done(fan *f, int i, uint64_t now);
static int session_step(fan *f, int i, uint64_t now);
struct fan {
    rl_net *net;
    const rl_cmd *cmd;
    rl_result *res;
    int n;
    int noscript;       /* a node had lost the scripts: wait for every fallback */
    int ignore_backoff; /* too few nodes without back-off for a quorum: try them all */
    int ident;          /* more than one node: learn each server's run_id on connect */
    int settling;       /* decided: only writes and handshakes are still served */
    int ident_seen;     /* a run_id arrived in this pass: the decision may now stand */
    uint64_t t0;        /* when the call began */
    uint64_t held;      /* nodes skipped for their back-off (failed, provisionally: see held_matter) */
    uint64_t stalled;   /* nodes that fell behind, watched until they catch up or their deadline */
};

static int same_as_other(fan *f, int i, char *why, size_t whylen)
{
    rl_conn *c = f->net->conns[i];
    if (!c->run_id[0]) return 0;
    for (int j = 0; j < f->n; j++) {
        rl_conn *o = f->net->conns[j];
        if (j == i || o->fd < 0 || strcmp(o->run_id, c->run_id) != 0) continue;
        char name[128];
        rl_node_conf_name(&o->conf, name, sizeof(name));
        /* the name may be long: cut it, never the sentence's meaning */
        static const char lead[] = "same Redis server as node ";
        size_t a = sizeof(lead) - 1, b = strlen(name);
        if (whylen == 0) return 1;
        if (a >= whylen) a = whylen - 1;
        if (b > whylen - 1 - a) b = whylen - 1 - a;
        memcpy(why, lead, a);
        memcpy(why + a, name, b);
        why[a + b] = '\0';
        return 1;
    }
    return 0;
}

/* Queue the command for node i (opening the connection if needed) and try to
 * write it. Returns 0, or -1 when res[i] has failed. */
static int node_send(fan *f, int i, uint64_t now, int allow_retry)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_cmd *cmd = f->cmd;
    char why[RL_REASON_LEN];

    if (c->fd >= 0 && c->gen != rl_fork_generation()) rl_conn_close(c); /* inherited: never ours to use */
    if (c->probing) {
        int p = probe_send(f, i, now);
        if (p <= 0) return p;
    }
    if (c->fd >= 0 && rlc_connecting(c) && now >= c->deadline_us) {
        /* a connect begun by a call that did not wait (a queued release) and
         * never seen through: nothing was written on it, so what it holds
         * (that release) goes out on a new connect; a TLS handshake under
         * way is given up */
        int err;
        if (rlc_redial(c, now, why, sizeof(why), &err) != 0 && c->fd >= 0) rl_conn_close(c);
    }
    if (c->fd >= 0 && c->state == ST_READY && rlc_stalled(c, now)) {
        catch_up(f, i, now);
        if (r->state != RL_PENDING) {
            if (c->fd >= 0) return -1;
            memset(r, 0, sizeof(*r)); /* the server ended it meanwhile: start afresh */
        }
        if (c->fd >= 0 && rlc_stalled(c, now) && rlc_unreachable(c)) {
            /* nobody ACKs what it holds: waiting would cost the kernel's
             * retransmission gap, which doubles (seconds to minutes after a
             * long partition); reset it and reconnect in the background */
            rlc_abandon(c, now);
        }
        if (c->probing) {
            int p = probe_send(f, i, now);
            if (p <= 0) return p;
        }
    }
    if (c->fd >= 0 && rlc_stalled(c, now)) {
        /* a release goes behind what the connection holds, whatever the state
         * of the node: its SET may be there still, or may have run (a release
         * whose SET may have landed is never dropped); anything else would
         * only pile up */
        if (cmd->op != RL_OP_RELEASE) {
            /* no new work for now, but it may catch up within this call (a
             * node resumed a moment ago): watched until its deadline, and
             * sent the command once it has (see catch_up_stalled) */
            f->stalled |= (uint64_t)1 << i;
            c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
            return 0;
        }
    }
    c->reused = c->fd >= 0;
    c->retried = !allow_retry;
    if (c->fd < 0) {
        if (now < c->down_until_us && !f->ignore_backoff) {
            /* skipped while its answer cannot change the outcome (held_matter) */
            f->held |= (uint64_t)1 << i;
            r->state = RL_FAILED;
            r->err = RL_E_DOWN;
            return -1;
        }
        if (rlc_conn_open(c, r, now, f->ident) != 0) return -1;
    } else if (f->ident && cmd->op != RL_OP_RELEASE && same_as_other(f, i, why, sizeof(why))) {
        /* (a release is token-checked: it may go to both, and must) */
        rlc_fail_res(c, r, RL_E_SAME_SERVER, why);
        return -1;
    }
    if (cmd->clock_check && c->ident.known && rlc_time_due(c, now)) {
        /* at most once a second, ahead of a SET we send anyway: the node's
         * clock against ours (no extra round trip); its answer comes first */
        static const char *const targv[1] = {"TIME"};
        static const size_t tlen[1] = {4};
        if (rlc_append_cmd(c, 1, targv, tlen, EXP_TIME, RL_OP_OTHER, 0, now) == 0) {
            c->ntime[0] = c->ntime[1] = -1;
            c->clk_asked_us = now; /* (not asked again within a second) */
        }
    }
    if (rlc_append_cmd(c, cmd->argc, cmd->argv, cmd->argvlen, EXP_MINE, (unsigned char)cmd->op, cmd->tag, now) != 0) {
        rlc_fail_res(c, r, RL_E_NOMEM, "too many commands in flight");
        return -1;
    }
    if (cmd->op == RL_OP_RELEASE) rlc_owed_del(c, cmd->tag); /* in order behind its SET from now on */
    if (r->sent) r->resent = 1; /* the old connection may have delivered it: an answer here speaks of both */
    r->sent = 1;
    r->id = c->ident; /* what is known of its server so far (a new connection's INFO updates it) */
    c->sent_us = now;
    if (c->state == ST_READY) {
        c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
        if (rlc_flush_out(c, why, sizeof(why)) != 0) {
            /* the server ended the connection: nothing more of it runs */
            rl_conn_close(c);
            if (c->reused && allow_retry) return node_send(f, i, now, 0); /* server restarted: reconnect once */
            rlc_fail_res(c, r, RL_E_IO, why);
            return -1;
        }
    }
    return 0;
}

/* The connection broke (the server closed it, or a write failed): nothing
 * more of it can run. With a connection left from an earlier call (a
 * restarted server), reconnect once within this call. */
static void node_broken(fan *f, int i, int err, const char *why, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->sock_timedout && !c->sub && !rlc_connecting(c)) {
        /* the kernel gave up (TCP_USER_TIMEOUT, keepalive), not the server:
         * what the connection held may not have arrived; keep what it owes */
        rlc_abandon(c, now);
        if (f->res[i].state == RL_PENDING)
            rlc_fail_res(c, &f->res[i], RL_E_STALLED, "unreachable (connection timed out)");
        return;
    }
    int was_connecting = rlc_connecting(c);
    int retry = c->reused && !c->retried && !was_connecting && !f->settling;
    rl_conn_close(c);
    if (retry && node_send(f, i, now, 0) == 0) return;
    rlc_node_failed(c, &f->res[i], err, why, now, was_connecting);
}

static int is_noscript(const rl_reply *rp)
{
    return rp->type == RL_REPLY_ERROR && strncmp(rp->str, "NOSCRIPT", 8) == 0;
}

/* A peer that breaks the protocol is not Redis: it is closed (what it may
 * still execute is beyond reasoning), and the call's result fails. */
static int node_poisoned(fan *f, int i, const char *why)
{
    rl_conn *c = f->net->conns[i];
    rl_conn_close(c);
    if (f->res[i].state == RL_PENDING)
        rlc_fail_res(c, &f->res[i], RL_E_PROTO, why);
    else
        snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", why);
    return 1;
}

/* One complete reply arrived for node i. Returns 1 when res[i] got its outcome. */
static int on_reply(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_reply *rp = &c->slot;
    qent e = {0};
    int kind = rlc_q_pop(c, &e);
    char why[RL_REASON_LEN];

    switch (kind) {
    case EXP_AUTH:
    case EXP_SELECT:
        if (rp->type == RL_REPLY_ERROR) {
            /* Redis' own text never contains the password; nothing past the
             * gate was written, so closing loses nothing */
            snprintf(why, sizeof(why), "%s failed: %.60s", kind == EXP_AUTH ? "AUTH" : "SELECT", rp->str);
            rl_conn_close(c);
            rlc_node_failed(c, r, RL_E_AUTH, why, now, 1);
            return 1;
        }
        if (--c->hs_pending == 0 && rlc_flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return r->state != RL_PENDING;
        }
        return 0;
    case EXP_GATE:
        /* the replacement of an unreachable connection answers: the node
         * is usable again, and what it owes goes out now */
        if (rp->type == RL_REPLY_ERROR) {
            snprintf(why, sizeof(why), "PING refused: %.60s", rp->str);
            rl_conn_close(c); /* nothing behind the gate was written: owe is kept */
            if (r->state == RL_PENDING) rlc_fail_res(c, r, RL_E_REDIS, why);
            return 1;
        }
        c->probing = 0;
        if (--c->hs_pending == 0 && rlc_flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return r->state != RL_PENDING;
        }
        return 0;
    case EXP_IDENT:
        /* It comes before this node's answer to our command, so a vote is
         * only ever counted from a node whose server is known: the counted
         * votes of a call come from distinct servers. A pair seen only
         * later fails the next call that uses both. */
        if (c->ident_pending > 0) c->ident_pending--;
        c->info_at_us = now;
        c->info_sent_us = e.sent_us;
        if (rp->type == RL_REPLY_ERROR) c->info_refused = 1; /* NOPERM: an ACL without INFO */
        f->ident_seen = 1;
        if (f->ident && f->cmd->op != RL_OP_RELEASE && same_as_other(f, i, why, sizeof(why)) &&
            r->state == RL_PENDING) {
            rlc_q_forget_mine(c, NULL, 0);
            rlc_fail_res(c, r, RL_E_SAME_SERVER, why);
            return 1;
        }
        return 0;
    case EXP_IDENT_AOF:
        /* the last of the identity: what the server is, before its answer */
        if (c->ident_pending > 0) c->ident_pending--;
        if (rp->type == RL_REPLY_ERROR) c->info_refused = 1;
        rlc_ident_done(c, now);
        if (r->state == RL_PENDING) r->id = c->ident; /* known before its answer: the call may wait for it */
        f->ident_seen = 1;
        return 0;
    case EXP_TIME:
        /* the clock-step check (API.md "Restarted nodes"): refused (an ACL) or odd, no sample */
        if (rp->type == RL_REPLY_ARRAY && rp->integer == 2 && c->ntime[0] > 0 && c->ntime[1] >= 0 &&
            c->ntime[1] < 1000000)
            rlc_clock_sample(c, (int64_t)c->ntime[0] * 1000000 + c->ntime[1], e.sent_us, now);
        return 0;
    case EXP_SUB:
    case EXP_UNSUB:
        /* ["subscribe", channel, n]; a refusal (NOPERM: an ACL without the
         * channel) leaves that node to the retry timer; anything else is not Redis */
        if (rp->type == RL_REPLY_ERROR) {
            c->push.kind = PUSH_REFUSED;
            snprintf(c->st.last_error, sizeof(c->st.last_error), "%s refused: %.60s",
                     kind == EXP_SUB ? "SUBSCRIBE" : "UNSUBSCRIBE", rp->str);
        } else if (rp->type != RL_REPLY_ARRAY || rp->integer != 3 ||
                   c->push.kind != (kind == EXP_SUB ? PUSH_SUBSCRIBE : PUSH_UNSUBSCRIBE)) {
            return node_poisoned(f, i, kind == EXP_SUB ? "bad reply to SUBSCRIBE" : "bad reply to UNSUBSCRIBE");
        }
        if (c->on_push) c->on_push(c->push_ud, c);
        return 0;
    case EXP_TIMEOUT_SCRIPT:
        /* (no stats: counted as a timeout already) */
        rlc_late_script_reply(c, rp, &e, now);
        return 0;
    case EXP_LATE_SCRIPT:
        rlc_late_script_reply(c, rp, &e, now);
        /* fall through */
    case EXP_LATE:
        /* the call decided without it; the node did answer */
        if (rp->type != RL_REPLY_ERROR) {
            c->st.ok++;
            rl_latency_add(&c->st.lat, now - e.sent_us);
        }
        return 0;
    case EXP_MINE:
        if (is_noscript(rp) && f->cmd->script && f->cmd->argc >= 2) {
            f->noscript = 1;
            rl_cmd ev = *f->cmd;
            ev.argv[0] = "EVAL";
            ev.argvlen[0] = 4;
            ev.argv[1] = f->cmd->script;
            ev.argvlen[1] = strlen(f->cmd->script);
            if (rlc_append_cmd(c, ev.argc, ev.argv, ev.argvlen, EXP_MINE, e.op, e.tag, now) != 0) {
                rlc_fail_res(c, r, RL_E_NOMEM, "could not queue EVAL");
                return 1;
            }
            /* (a SET done by a script, a waiter's attempt, owes its release
             * again: its EVAL is queued as a SET) */
            if (rlc_flush_out(c, why, sizeof(why)) != 0) {
                node_broken(f, i, RL_E_IO, why, now);
                return r->state != RL_PENDING;
            }
            return 0;
        }
        if (r->state != RL_PENDING) return 0;
        r->latency_us = now - c->sent_us;
        r->reply = *rp;
        r->id = c->ident;
        c->backoff_ms = 0;
        c->down_until_us = 0;
        if (rp->type == RL_REPLY_ERROR) {
            snprintf(why, sizeof(why), "%.80s", rp->str[0] ? rp->str : "empty error reply");
            rlc_fail_res(c, r, RL_E_REDIS, why);
        } else {
            r->state = RL_ANSWERED;
            c->st.ok++;
            rl_latency_add(&c->st.lat, r->latency_us);
        }
        return 1;
    default: /* EXP_SKIP, EXP_SCRIPT: a late or bookkeeping reply, dropped */ return 0;
    }
}

/* Read from node i (all the session layer holds) and dispatch the complete
 * replies. Returns 1 when res[i] has its outcome; *idle (if given) says
 * nothing was there to read. */
static int node_read_ex(fan *f, int i, uint64_t now, int *idle)
{
    rl_conn *c = f->net->conns[i];
    char buf[16384];
    int got = 0;
    if (idle) *idle = 0;
    do {
        ssize_t n = c->io->read(&c->sess, c->fd, buf, sizeof(buf));
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (idle && !got) *idle = errno != EINTR;
            return got;
        }
        if (n <= 0) {
            char why[RL_REASON_LEN];
            if (n < 0 && errno == ETIMEDOUT) c->sock_timedout = 1;
            if (n < 0 && c->sess.err[0])
                snprintf(why, sizeof(why), "%s", c->sess.err);
            else
                snprintf(why, sizeof(why), "%s", n == 0 ? "connection closed by server" : strerror(errno));
            node_broken(f, i, RL_E_IO, why, now);
            return f->res[i].state != RL_PENDING;
        }
        if (rlc_feed(c, buf, (size_t)n) != 0) goto proto;
        /* parse everything that came: a reply beyond what we asked for would
         * otherwise be taken as the answer to the next command */
        for (;;) {
            int r = rlc_next_reply(c);
            if (r < 0) goto proto;
            if (r == 0) break;
            if (c->sub && c->push.kind == PUSH_MESSAGE && c->slot.type == RL_REPLY_ARRAY && c->slot.integer == 3) {
                /* a message answers no command: it never takes a reply's place */
                if (c->on_push) c->on_push(c->push_ud, c);
                continue;
            }
            if (c->qlen == 0) return node_poisoned(f, i, "reply nobody asked for");
            if (on_reply(f, i, now)) got = 1;
            if (c->fd < 0) return f->res[i].state != RL_PENDING;
        }
        /* a lock reply is tiny: a node that streams more is hostile or broken */
        if (c->reader->len - c->reader->pos > RL_REPLY_MAX) return node_poisoned(f, i, "reply too large");
    } while (c->io->pending(&c->sess) > 0); /* TLS: decrypted bytes poll() cannot see */
    return got;
proto : {
    char why[RL_REASON_LEN];
    snprintf(why, sizeof(why), "protocol error: %.60s", c->reader->errstr);
    return node_poisoned(f, i, why);
}
}

static int node_read(fan *f, int i, uint64_t now) { return node_read_ex(f, i, now, NULL); }

/* A stalled node is not polled by calls that spare it: before judging it,
 * take what it sent meanwhile (it may have caught up), without waiting. */
static void catch_up(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    char why[RL_REASON_LEN];
    c->reused = 0; /* nothing of this call to resend if it broke */
    if (rlc_out_limit(c) > c->opos && rlc_flush_out(c, why, sizeof(why)) != 0) {
        node_broken(f, i, RL_E_IO, why, now);
        return;
    }
    for (int k = 0; k < 64 && c->fd >= 0; k++) {
        int idle = 0;
        node_read_ex(f, i, now, &idle);
        if (idle) break;
    }
}

/* The session layer's handshake (TLS), driven by poll like a connect: the
 * handshakes of all nodes run in parallel. Returns 1 when res[i] failed. */
static int session_step(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    char why[RL_REASON_LEN] = "";
    int r = c->io->connect(&c->sess, c->fd, &c->conf, c->conf_shared, &c->io_want, why, sizeof(why));
    if (r < 0) {
        /* nothing of ours was written: the session never existed */
        rl_conn_close(c);
        rlc_node_failed(c, &f->res[i], RL_E_IO, why, now, 1);
        return 1;
    }
    if (r == 0) return 0;
    c->state = ST_READY;
    c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
    if (rlc_flush_out(c, why, sizeof(why)) != 0) {
        node_broken(f, i, RL_E_IO, why, now);
        return f->res[i].state != RL_PENDING;
    }
    return 0;
}

static int connect_done(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    int err = 0;
    socklen_t len = sizeof(err);
    char why[RL_REASON_LEN];
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err) {
        snprintf(why, sizeof(why), "connect: %s", strerror(err));
        int code = err == ECONNREFUSED ? RL_E_REFUSED : RL_E_IO;
        /* begun by an earlier call (a queued release): old news, the server
         * may be back; its buffer goes out on a connect begun now (a probing
         * node's next connect waits for its turn: probe_send) */
        if (c->dialed_us < f->t0 && !c->probing && rlc_redial(c, now, why, sizeof(why), &code) == 0) return 0;
        rl_conn_close(c); /* nothing was written: no connection, nothing ran */
        rlc_node_failed(c, &f->res[i], code, why, now, 1);
        return 1;
    }
    c->state = ST_HANDSHAKE;
    return session_step(f, i, now);
}

static void on_timeout(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (rlc_connecting(c)) {
        /* the TCP or TLS handshake never completed: nothing of ours was written */
        const char *why = c->state == ST_CONNECTING ? "connect timeout" : "TLS handshake timeout";
        rl_conn_close(c);
        rlc_node_failed(c, &f->res[i], RL_E_TIMEOUT, why, now, 1);
        return;
    }
    /* Keep the connection, also when caught in the middle of a reply: the
     * node may still execute what it holds, so its order is kept and its
     * late reply is dropped before the next one (a release script meeting
     * NOSCRIPT then is sent again, as after an early decision). */
    rlc_q_forget_mine(c, f->cmd, 0);
    rlc_fail_res(c, &f->res[i], RL_E_TIMEOUT,
                 c->reader && c->reader->len > c->reader->pos ? "timeout (reply too slow)" : "timeout");
}

/* API.md "Nodes": the first call that connects two entries of one server
 * throws before any lock is granted, so a call waits for the run_id of every
 * connection it opened itself (it comes just before that node's answer:
 * no wait in the normal case). A connection left from an earlier call whose
 * server never said is not waited for again. */
static int ident_blocking(const fan *f)
{
    for (int i = 0; i < f->n; i++) {
        const rl_conn *c = f->net->conns[i];
        if (f->res[i].state == RL_PENDING && c->fd >= 0 && c->ident_pending && !c->reused) return 1;
    }
    return 0;
}

static int any_pending(const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING) return 1;
    return 0;
}

/* What a decided call still has to do for a node: write what a connect or
 * an AUTH/SELECT gate holds back (a SET must not wait for a later call).
 * Bytes held back only by a full socket (a stalled node) are not waited for. */
static int needs_settling(const rl_conn *c)
{
    return c->fd >= 0 && (rlc_connecting(c) || (c->hs_pending && c->olen > c->hs_end));
}

static void stalled_why(const rl_conn *c, uint64_t now, char *why, size_t whylen)
{
    snprintf(why, whylen, "stalled (%d replies outstanding, oldest %llu ms)", c->qlen,
             c->qlen ? (unsigned long long)((now - c->q[c->qhead].sent_us) / 1000u) : 0ull);
}

static void unreachable_why(const rl_conn *c, uint64_t now, char *why, size_t whylen)
{
    snprintf(why, whylen, "unreachable (no ACK, connection reset %llu ms ago; reconnecting, %d release%s kept)",
             (unsigned long long)((now - c->abandoned_us) / 1000u), c->owe_n, c->owe_n == 1 ? "" : "s");
}

/* A probing node's new connection, one step without waiting: its connect,
 * its TLS handshake, the replies to its handshake and PING gate. */
static void probe_advance(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    c->reused = 0; /* nothing of a call to resend if it broke */
    c->retried = 1;
    if (c->state == ST_CONNECTING) {
        struct pollfd p = {.fd = c->fd, .events = POLLOUT, .revents = 0};
        if (do_poll(f->net, &p, 1, 0) <= 0 || !p.revents) return;
        if (connect_done(f, i, now) || c->fd < 0) return;
    } else if (c->state == ST_HANDSHAKE) {
        if (session_step(f, i, now) || c->fd < 0) return;
    }
    if (c->state == ST_READY) catch_up(f, i, now);
}

/* node_send for a node whose connection was given up as unreachable
 * (rlc_abandon). A new connect is begun at most every PROBE_GAP_US, each
 * bounded by rlc_probe_ms() for the connect and a timeout more for its
 * handshake and PING: the node is used again within about that long after
 * the network heals, however long it was cut off (a connect's SYN, unlike
 * the old connection's data, is not behind a doubling retransmission gap).
 * Returns 1 when the node answers again (its command then goes out as
 * usual), 0 when it is watched in this call, -1 when res[i] failed. */
static int probe_send(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_cmd *cmd = f->cmd;
    char why[RL_REASON_LEN];
    if (c->gen != rl_fork_generation()) {
        rl_conn_close(c); /* the parent's: what it owes is the parent's to send */
        return 1;
    }
    /* an attempt that did not get through in time: nothing past its gate
     * was written, so closing it loses nothing (owe is kept) */
    if (c->fd >= 0 && ((rlc_connecting(c) && now >= c->deadline_us) || now >= c->probe_until_us)) rl_conn_close(c);
    if (c->fd < 0 && now >= c->probe_next_us) {
        c->probe_next_us = now + PROBE_GAP_US;
        if (rlc_conn_open(c, r, now, f->ident) == 0) {
            int ms = rlc_probe_ms(c);
            c->deadline_us = now + (uint64_t)ms * 1000u;
            c->probe_until_us = now + (uint64_t)(ms + c->conf.timeout_ms) * 1000u;
        }
    }
    if (c->fd >= 0) probe_advance(f, i, now);
    if (!c->probing) {
        if (r->state != RL_PENDING) memset(r, 0, sizeof(*r)); /* (cannot fail after the gate) */
        return 1;
    }
    if (cmd->op == RL_OP_RELEASE) {
        /* kept in order behind the gate (or for the next connect) */
        if (c->fd >= 0 &&
            rlc_append_cmd(c, cmd->argc, cmd->argv, cmd->argvlen, EXP_MINE, (unsigned char)cmd->op, cmd->tag, now) == 0)
            rlc_q_forget_mine(c, cmd, 0);
        else
            rlc_owe_add(c, cmd);
    }
    if (r->state != RL_PENDING) return -1;
    if (c->fd >= 0 && cmd->op != RL_OP_RELEASE) {
        /* under way: it may answer within this call (a quorum may need it) */
        f->stalled |= (uint64_t)1 << i;
        c->probe_watch_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
        if (c->probe_watch_us > c->probe_until_us) c->probe_watch_us = c->probe_until_us;
        return 0;
    }
    unreachable_why(c, now, why, sizeof(why));
    rlc_fail_res(c, r, RL_E_STALLED, why);
    return -1;
}

/* A node that fell behind, watched during the call (node_send): once it has
 * caught up (or the server ended the connection) it gets the command, until
 * its deadline. Returns 1 when res[i] got its outcome. */
static int stalled_step(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    uint64_t bit = (uint64_t)1 << i;
    if (r->state != RL_PENDING) {
        f->stalled &= ~bit;
        return 1;
    }
    if (c->probing) {
        /* its new connection is under way: it counts if the PING gate is
         * answered within this call's wait (probe_send) */
        if (c->fd >= 0 && now < c->probe_watch_us) return 0;
        char why[RL_REASON_LEN];
        f->stalled &= ~bit;
        unreachable_why(c, now, why, sizeof(why));
        rlc_fail_res(c, r, RL_E_STALLED, why);
        return 1;
    }
    if (c->fd < 0 || !rlc_stalled(c, now)) {
        f->stalled &= ~bit;
        return node_send(f, i, now, 1) != 0;
    }
    if (now < c->deadline_us) return 0;
    char why[RL_REASON_LEN];
    f->stalled &= ~bit;
    stalled_why(c, now, why, sizeof(why));
    rlc_fail_res(c, r, RL_E_STALLED, why);
    return 1;
}

/* Nodes skipped for their back-off count as failed only while their answers
 * could not change the outcome (the call is decided with them pending too).
 * Else they are tried now, in this call: a node back from a restart must not
 * cost a call that the others cannot decide. Returns 1 when it sent. */
static int held_matter(fan *f, rl_decide_fn decide, void *ud, uint64_t now)
{
    uint64_t h = f->held;
    if (!h) return 0;
    for (int i = 0; i < f->n; i++)
        if (h >> i & 1) f->res[i].state = RL_PENDING;
    int d = decide(ud, f->res, f->n);
    for (int i = 0; i < f->n; i++)
        if (h >> i & 1) f->res[i].state = RL_FAILED;
    if (d) return 0;
    f->held = 0;
    f->ignore_backoff = 1;
    for (int i = 0; i < f->n; i++) {
        if (!(h >> i & 1)) continue;
        memset(&f->res[i], 0, sizeof(f->res[i]));
        node_send(f, i, now, 1);
    }
    return 1;
}

static int is_decided(fan *f, rl_decide_fn decide, void *ud, uint64_t now)
{
    if (!decide) return 0;
    while (decide(ud, f->res, f->n))
        if (!held_matter(f, decide, ud, now)) return 1;
    return 0;
}

/* The call returns: nodes still skipped for their back-off, or still behind,
 * get their reason (and their statistics) now. */
static void fan_end(fan *f, uint64_t now)
{
    for (int i = 0; i < f->n; i++) {
        rl_conn *c = f->net->conns[i];
        uint64_t bit = (uint64_t)1 << i;
        if (f->held & bit) rlc_fail_down(c, &f->res[i]);
        if ((f->stalled & bit) && f->res[i].state == RL_PENDING) {
            char why[RL_REASON_LEN];
            if (c->probing)
                unreachable_why(c, now, why, sizeof(why));
            else
                stalled_why(c, now, why, sizeof(why));
            rlc_fail_res(c, &f->res[i], RL_E_STALLED, why);
        }
    }
    f->held = f->stalled = 0;
}

static int do_poll(rl_net *net, struct pollfd *pfd, int np, int wait_ms)
{
    return net->poll_fn ? net->poll_fn(pfd, (nfds_t)np, wait_ms) : poll(pfd, (nfds_t)np, wait_ms);
}

/* One pass over node i after poll: connect, write, read. Returns 1 when
 * res[i] got its outcome. */
static int serve(fan *f, int i, short revents, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->state == ST_CONNECTING) return connect_done(f, i, now);
    if (c->state == ST_HANDSHAKE) return session_step(f, i, now);
    if ((revents & POLLOUT) && rlc_out_limit(c) > c->opos) {
        char why[RL_REASON_LEN];
        if (rlc_flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return f->res[i].state != RL_PENDING;
        }
    }
    if (c->fd >= 0 && (revents & (POLLIN | POLLHUP | POLLERR))) return node_read(f, i, now);
    return 0;
}

/* Adds node i's connection to the poll set; returns the new size. */
static int watch(struct pollfd *pfd, int *map, int np, int i, const rl_conn *c)
{
    pfd[np] = (struct pollfd){.fd = c->fd, .events = rlc_events(c), .revents = 0};
    map[np] = i;
    return np + 1;
}

/* A pass outside any call (drain, listen): no command of its own, the
 * outcomes land in scratch results nobody reads. */
typedef struct outside {
    rl_result scratch[RL_MAX_NODES];
    rl_cmd none;
} outside;

static fan fan_outside(rl_net *net, outside *o)
{
    memset(o, 0, sizeof(*o));
    return (fan){.net = net,
                 .cmd = &o->none,
                 .res = o->scratch,
                 .n = net->n < RL_MAX_NODES ? net->n : RL_MAX_NODES,
                 .settling = 1};
}

/* After poll, outside a call (drain, listen): serve every ready node, its
 * outcome going to f's scratch results nobody reads. */
static void serve_ready(fan *f, const struct pollfd *pfd, const int *map, int np, uint64_t now)
{
    for (int k = 0; k < np; k++) {
        int i = map[k];
        rl_conn *c = f->net->conns[i];
        if (!pfd[k].revents || c->fd != pfd[k].fd) continue;
        memset(&f->res[i], 0, sizeof(f->res[i]));
        c->reused = 0; /* nothing to resend if it broke */
        serve(f, i, pfd[k].revents, now);
    }
}

int rl_net_fanout(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud)
{
    rl_net *net = ctx;
    fan f = {.net = net, .cmd = cmd, .res = res, .n = n, .ident = n > 1};
    const rl_clock *clk = net->clock;
    struct pollfd pfd[RL_MAX_NODES];
    int map[RL_MAX_NODES];
    int decided = 0;

    if (n > RL_MAX_NODES || n > net->n) return -1;
    uint64_t now = clk->now_us(clk->ctx);
    f.t0 = now;
    memset(res, 0, sizeof(*res) * (size_t)n);
    /* a node in back-off may be skipped only while the others can still
     * make a quorum; when they cannot, every node is tried */
    int usable = 0;
    for (int i = 0; i < n; i++) {
        rl_conn *c = net->conns[i];
        if (c->probing) continue; /* usable once its new connection answers */
        if (c->fd >= 0 && (!rlc_connecting(c) || now < c->deadline_us))
            usable += !rlc_stalled(c, now);
        else
            usable += now >= c->down_until_us; /* closed, or a connect overdue (closed at send) */
    }
    f.ignore_backoff = usable < rl_quorum(n);
    for (int i = 0; i < n; i++) {
        if (cmd->skip >> i & 1) {
            /* not asked (a repair sent to some nodes only): failed for this
             * call without a reason of the node's (no stats) */
            if (!cmd->nowait) {
                res[i].state = RL_FAILED;
                res[i].err = RL_E_DOWN;
                snprintf(res[i].reason, sizeof(res[i].reason), "not asked");
            }
            continue;
        }
        if (node_send(&f, i, now, 1) != 0 && decide && decide(ud, res, n)) decided = 1;
    }
    if (decided) decided = is_decided(&f, decide, ud, now);
    if (cmd->nowait) decided = 1;
    while (!decided) {
        int np = 0;
        uint64_t next = UINT64_MAX;
        for (int i = 0; i < n; i++) {
            rl_conn *c = net->conns[i];
            if (res[i].state != RL_PENDING || c->fd < 0) continue;
            np = watch(pfd, map, np, i, c);
            uint64_t dl = c->probing ? c->probe_watch_us : c->deadline_us;
            if (dl < next) next = dl;
        }
        if (np == 0) break;
        int wait_ms = next <= now ? 0 : (int)((next - now + 999) / 1000);
        int pr = do_poll(net, pfd, np, wait_ms);
        if (pr < 0 && errno != EINTR) {
            /* every node still waited for fails; its reply, when it comes,
             * is dropped like any late one (below), never taken for the
             * next command's */
            char why[RL_REASON_LEN];
            snprintf(why, sizeof(why), "poll: %s", strerror(errno));
            for (int i = 0; i < n; i++)
                if (res[i].state == RL_PENDING) {
                    rlc_q_forget_mine(net->conns[i], cmd, 1);
                    rlc_fail_res(net->conns[i], &res[i], RL_E_IO, why);
                }
            fan_end(&f, now);
            return 0;
        }
        now = clk->now_us(clk->ctx);
        /* Every ready descriptor is served, also after the decision: its
         * bytes are already here, so reading them costs no wait and keeps
         * late replies (a NOSCRIPT among them) from piling up. */
        for (int k = 0; k < np; k++) {
            int i = map[k];
            rl_conn *c = net->conns[i];
            int got = 0;
            if (res[i].state != RL_PENDING || c->fd != pfd[k].fd) continue;
            if (decided && !pfd[k].revents) continue;
            f.ident_seen = 0;
            if (pfd[k].revents) got = serve(&f, i, pfd[k].revents, now);
            got |= f.ident_seen;
            if (f.stalled >> i & 1) {
                got |= stalled_step(&f, i, now);
            } else if (!decided && !got && res[i].state == RL_PENDING && c->fd >= 0 && now >= c->deadline_us) {
                on_timeout(&f, i, now);
                got = 1;
            }
            if (got && !decided && is_decided(&f, decide, ud, now) && !(f.noscript && any_pending(res, n)) &&
                !ident_blocking(&f))
                decided = 1;
        }
    }
    fan_end(&f, now);
    /* API.md "stats()": every node whose deadline had passed when the call
     * was decided counts its timeout, also one the deciding pass did not
     * reach (decided by another node's timeout at the same instant) */
    for (int i = 0; i < n && !cmd->nowait; i++)
        if (res[i].state == RL_PENDING && net->conns[i]->fd >= 0 && now >= net->conns[i]->deadline_us)
            on_timeout(&f, i, now);
    /* Returned early: replies still in flight are dropped when they come. */
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING && net->conns[i]->fd >= 0 && !(cmd->nowait && (cmd->skip >> i & 1)))
            rlc_q_forget_mine(net->conns[i], cmd, 1);
    if (cmd->nowait) return 0;
    /* Decided, but a node's command still sits behind its connect or its
     * AUTH/SELECT gate: serve that node (writes and the handshake's replies
     * only) until its command is out or its own deadline passes, so a SET
     * reaches every node in this call, not at some later one. */
    f.settling = 1;
    for (;;) {
        int np = 0;
        uint64_t next = UINT64_MAX;
        for (int i = 0; i < n; i++) {
            rl_conn *c = net->conns[i];
            if (!res[i].sent || !needs_settling(c) || now >= c->deadline_us) continue;
            np = watch(pfd, map, np, i, c);
            if (c->deadline_us < next) next = c->deadline_us;
        }
        if (np == 0) break;
        int pr = do_poll(net, pfd, np, (int)((next - now + 999) / 1000));
        if (pr < 0 && errno != EINTR) break;
        now = clk->now_us(clk->ctx);
        for (int k = 0; k < np; k++) {
            int i = map[k];
            rl_conn *c = net->conns[i];
            if (c->fd != pfd[k].fd || !pfd[k].revents) continue;
            serve(&f, i, pfd[k].revents, now);
        }
        for (int i = 0; i < n; i++) {
            rl_conn *c = net->conns[i];
            if (c->fd >= 0 && rlc_connecting(c) && now >= c->deadline_us) {
                rl_conn_close(c);
                rlc_node_failed(c, NULL, RL_E_TIMEOUT, "connect timeout", now, 1);
            }
        }
    }
    return 0;
}

/* The drain's passes over f's connections until each is settled or end. */
static void drain_until(fan *f, struct pollfd *pfd, int *map, uint64_t end)
{
    rl_net *net = f->net;
    const rl_clock *clk = net->clock;
    for (;;) {
        int np = 0;
        uint64_t now = clk->now_us(clk->ctx);
        for (int i = 0; i < f->n; i++) {
            rl_conn *c = net->conns[i];
            if (c->fd < 0 || c->gen != rl_fork_generation()) continue;
            if (rlc_connecting(c) && now >= c->deadline_us) {
                rl_conn_close(c); /* never connected: nothing was written */
                rlc_node_failed(c, NULL, RL_E_TIMEOUT, "connect timeout", now, 1);
                continue;
            }
            if (!rl_conn_busy(c) && !rlc_connecting(c)) continue;
            np = watch(pfd, map, np, i, c);
        }
        if (np == 0 || now >= end) return;
        if (do_poll(net, pfd, np, (int)((end - now + 999) / 1000)) <= 0) return;
        serve_ready(f, pfd, map, np, clk->now_us(clk->ctx));
    }
}

void rl_net_drain(rl_net *net, uint64_t max_us)
{
    const rl_clock *clk = net->clock;
    uint64_t end = clk->now_us(clk->ctx) + max_us;
    /* The same reading as in a call (node_read: reply cap, stray replies,
     * handshake gate, late-reply stats, NOSCRIPT retries), with no command of
     * its own: outcomes land in a scratch array nobody reads. */
    if (net->n <= RL_MAX_NODES) {
        struct pollfd pfd[RL_MAX_NODES];
        int map[RL_MAX_NODES];
        outside o;
        fan f = fan_outside(net, &o);
        drain_until(&f, pfd, map, end);
        return;
    }
    /* Request end drains the whole pool, which may hold more connections
     * than a call has nodes: all of them, together, within the one bound
     * (a part at a time, a slow node of one part would starve the others). */
    size_t n = (size_t)net->n;
    struct pollfd *pfd = malloc(sizeof(*pfd) * n);
    int *map = malloc(sizeof(*map) * n);
    rl_result *scratch = calloc(n, sizeof(*scratch));
    rl_cmd none;
    memset(&none, 0, sizeof(none));
    if (pfd && map && scratch) {
        fan f = {.net = net, .cmd = &none, .res = scratch, .n = net->n, .settling = 1};
        drain_until(&f, pfd, map, end);
    } else {
        /* no memory for that: a part at a time, still every connection */
        for (int k = 0; k < net->n; k += RL_MAX_NODES) {
            rl_net part = *net;
            uint64_t now = clk->now_us(clk->ctx);
            part.conns = net->conns + k;
            part.n = net->n - k < RL_MAX_NODES ? net->n - k : RL_MAX_NODES;
            rl_net_drain(&part, end > now ? end - now : 0);
        }
    }
    free(pfd);
    free(map);
    free(scratch);
}

void rl_net_listen(rl_net *net, uint64_t until_us, int (*stop)(void *ud), void *ud)
{
    const rl_clock *clk = net->clock;
    /* The reading of a call (node_read: reply cap, stray replies, handshake
     * gate) with no command of its own, like rl_net_drain; pushes go to each
     * connection's on_push. */
    outside o;
    fan f = fan_outside(net, &o);
    for (;;) {
        struct pollfd pfd[RL_MAX_NODES];
        int map[RL_MAX_NODES], np = 0;
        if (stop && stop(ud)) return;
        uint64_t now = clk->now_us(clk->ctx), next = until_us;
        for (int i = 0; i < f.n; i++) {
            rl_conn *c = net->conns[i];
            if (c->fd >= 0 && c->gen != rl_fork_generation()) rl_conn_close(c); /* never the parent's */
            if (c->fd < 0) continue;
            if (rlc_connecting(c) && now >= c->deadline_us) {
                rl_conn_close(c); /* never connected: nothing was written */
                rlc_node_failed(c, NULL, RL_E_TIMEOUT, "connect timeout", now, 1);
                continue;
            }
            if (rlc_connecting(c) && c->deadline_us < next) next = c->deadline_us;
            np = watch(pfd, map, np, i, c);
        }
        int last = now >= until_us; /* one pass without waiting, then return */
        if (next < now) next = now;
        int pr = do_poll(net, pfd, np, last ? 0 : (int)((next - now + 999) / 1000));
        if (pr < 0 && errno != EINTR) {
            /* cannot watch the sockets: sleep the rest, the timer is the fallback */
            now = clk->now_us(clk->ctx);
            if (until_us > now) clk->sleep_us(clk->ctx, until_us - now);
            return;
        }
        serve_ready(&f, pfd, map, np, clk->now_us(clk->ctx));
        if (last) return;
    }
}
