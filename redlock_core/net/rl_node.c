/* rl_node.c -- the per-node steps of a fan-out: rl_fanout.c's poll loop
 * decides, these send node i the call's command (rlc_send: stalls, probing,
 * owed releases, reconnect once), serve its socket (connect, TLS handshake,
 * write, then rl_read.c reads), time it out, watch it while it is stalled or
 * probing, and write its outcome into f->res[i]. */
#include "rl_conn_struct.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* what poll must wait for on an open connection */
static short rlc_events(const rl_conn *c)
{
    if (c->state == ST_CONNECTING) return POLLOUT;
    if (c->state == ST_HANDSHAKE) return c->io_want;
    return (short)(POLLIN | (rlc_out_limit(c) > c->opos ? POLLOUT : 0));
}

static int probe_send(rl_fan *f, int i, uint64_t now);
static int connect_done(rl_fan *f, int i, uint64_t now);
static int session_step(rl_fan *f, int i, uint64_t now);
static void stalled_why(const rl_conn *c, uint64_t now, char *why, size_t whylen);
static void unreachable_why(const rl_conn *c, uint64_t now, char *why, size_t whylen);

/* the call's command at the end of c's output: its RESP encoded once per
 * call (f->enc) and copied, else encoded here */
static int fan_append(const rl_fan *f, rl_conn *c, uint64_t now)
{
    const rl_cmd *cmd = f->cmd;
    if (f->enc) return rlc_append_enc(c, f->enc, f->enclen, EXP_MINE, (unsigned char)cmd->op, cmd->tag, now);
    return rlc_append_cmd(c, cmd->argc, cmd->argv, cmd->argvlen, EXP_MINE, (unsigned char)cmd->op, cmd->tag, now);
}

/* Queue the command for node i (opening the connection if needed) and try to
 * write it. Returns 0, or -1 when res[i] has failed. */
int rlc_send(rl_fan *f, int i, uint64_t now, int allow_retry)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_cmd *cmd = f->cmd;
    char why[RL_REASON_LEN];

again:
    if (rlc_inherited(c)) rl_conn_close(c); /* inherited: never ours to use */
    if (c->probing) {
        int p = probe_send(f, i, now);
        if (p <= 0) return p;
    }
    if (c->fd >= 0 && connecting(c) && now >= c->deadline_us) {
        /* a connect begun by a call that did not wait (a queued release) and
         * never seen through: nothing was written on it, so what it holds
         * (that release) goes out on a new connect; a TLS handshake under
         * way is given up */
        int err;
        if (rlc_redial(c, now, why, sizeof(why), &err) != 0 && c->fd >= 0) rl_conn_close(c);
    }
    int stalled = rlc_stalled(c, now); /* (0 without a ready connection) */
    if (stalled) {
        rlc_catch_up(f, i, now);
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
        stalled = rlc_stalled(c, now);
    }
    if (stalled) {
        /* a release goes behind what the connection holds, whatever the state
         * of the node: its SET may be there still, or may have run (a release
         * whose SET may have landed is never dropped); anything else would
         * only pile up */
        if (cmd->op != RL_OP_RELEASE) {
            /* no new work for now, but it may catch up within this call (a
             * node resumed a moment ago): watched until its deadline, and
             * sent the command once it has (see rlc_stalled_step) */
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
        if (rlc_conn_open(c, r, now, 1) != 0) return -1;
    } else if (cmd->op != RL_OP_RELEASE && rlc_same_server(f, i, why, sizeof(why))) {
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
    if (fan_append(f, c, now) != 0) {
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
            if (c->reused && allow_retry) { /* server restarted: reconnect once */
                allow_retry = 0;
                goto again;
            }
            rlc_fail_res(c, r, RL_E_IO, why);
            return -1;
        }
    }
    return 0;
}

/* The session layer's handshake (TLS), driven by poll like a connect: the
 * handshakes of all nodes run in parallel. Returns 1 when res[i] failed. */
static int session_step(rl_fan *f, int i, uint64_t now)
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
        rlc_node_broken(f, i, RL_E_IO, why, now);
        return f->res[i].state != RL_PENDING;
    }
    return 0;
}

static int connect_done(rl_fan *f, int i, uint64_t now)
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

void rlc_timeout(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (connecting(c)) {
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
    rlc_q_forget_mine(c, f->cmd, f->enc, f->enclen, 0);
    rlc_fail_res(c, &f->res[i], RL_E_TIMEOUT,
                 c->reader && c->reader->len > c->reader->pos ? "timeout (reply too slow)" : "timeout");
}

/* What a decided call still has to do for a node: write what a connect or
 * an AUTH/SELECT gate holds back (a SET must not wait for a later call).
 * Bytes held back only by a full socket (a stalled node) are not waited for. */
static int needs_settling(const rl_conn *c)
{
    return c->fd >= 0 && (connecting(c) || (c->hs_pending && c->olen > c->hs_end));
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
static void probe_advance(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    c->reused = 0; /* nothing of a call to resend if it broke */
    c->retried = 1;
    if (c->state == ST_CONNECTING) {
        struct pollfd p = {.fd = c->fd, .events = POLLOUT, .revents = 0};
        if (rl_net_poll(f->net, &p, 1, 0) <= 0 || !p.revents) return;
        if (connect_done(f, i, now) || c->fd < 0) return;
    } else if (c->state == ST_HANDSHAKE) {
        if (session_step(f, i, now) || c->fd < 0) return;
    }
    if (c->state == ST_READY) rlc_catch_up(f, i, now);
}

/* node_send for a node whose connection was given up as unreachable
 * (rlc_abandon). A new connect is begun at most every PROBE_GAP_US, each
 * bounded by rlc_probe_ms() for the connect and a timeout more for its
 * handshake and PING: the node is used again within about that long after
 * the network heals, however long it was cut off (a connect's SYN, unlike
 * the old connection's data, is not behind a doubling retransmission gap).
 * Returns 1 when the node answers again (its command then goes out as
 * usual), 0 when it is watched in this call, -1 when res[i] failed. */
static int probe_send(rl_fan *f, int i, uint64_t now)
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
    if (c->fd >= 0 && ((connecting(c) && now >= c->deadline_us) || now >= c->probe_until_us)) rl_conn_close(c);
    if (c->fd < 0 && now >= c->probe_next_us) {
        c->probe_next_us = now + PROBE_GAP_US;
        if (rlc_conn_open(c, r, now, 1) == 0) {
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
        if (c->fd >= 0 && fan_append(f, c, now) == 0)
            rlc_q_forget_mine(c, cmd, f->enc, f->enclen, 0);
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
int rlc_stalled_step(rl_fan *f, int i, uint64_t now)
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
        return rlc_send(f, i, now, 1) != 0;
    }
    if (now < c->deadline_us) return 0;
    char why[RL_REASON_LEN];
    f->stalled &= ~bit;
    stalled_why(c, now, why, sizeof(why));
    rlc_fail_res(c, r, RL_E_STALLED, why);
    return 1;
}

/* connect, write, read: 1 when res[i] got its outcome */
static int serve_io(rl_fan *f, int i, short revents, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->state == ST_CONNECTING) return connect_done(f, i, now);
    if (c->state == ST_HANDSHAKE) return session_step(f, i, now);
    if ((revents & POLLOUT) && rlc_out_limit(c) > c->opos) {
        char why[RL_REASON_LEN];
        if (rlc_flush_out(c, why, sizeof(why)) != 0) {
            rlc_node_broken(f, i, RL_E_IO, why, now);
            return f->res[i].state != RL_PENDING;
        }
    }
    if (c->fd >= 0 && (revents & (POLLIN | POLLHUP | POLLERR))) return rlc_node_read(f, i, now);
    return 0;
}

/* One pass over node i after poll: connect, write, read. Returns 1 when
 * res[i] got its outcome. A connection from an earlier call that broke
 * meanwhile (rlc_node_broken: f->redo) is replaced here, once, and the
 * command sent again: the read path only records it, so that reading never
 * calls back into sending. */
int rlc_serve(rl_fan *f, int i, short revents, uint64_t now)
{
    int done = serve_io(f, i, revents, now);
    /* (a call has at most RL_MAX_NODES = 64 nodes; the request-end drain
     * serves more connections, settling: it never records a resend) */
    if (i < 64 && (f->redo >> i & 1)) {
        f->redo &= ~((uint64_t)1 << i);
        if (rlc_send(f, i, now, 0) != 0) done = 1;
    }
    return done;
}

/* The call returns: nodes still skipped for their back-off, or still
 * behind, get their reason (and their statistics) now. */
void rlc_fan_end(rl_fan *f, uint64_t now)
{
    for (int i = 0; i < f->n && (f->held | f->stalled); i++) {
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

/* outside a call (drain, listen): nothing of a call to resend if it broke */
void rlc_serve_outside(rl_fan *f, int i, short revents, uint64_t now)
{
    f->net->conns[i]->reused = 0;
    rlc_serve(f, i, revents, now);
}

int rlc_watch(const rl_conn *c, struct pollfd *p, uint64_t *until)
{
    if (c->fd < 0) return 0;
    *p = (struct pollfd){.fd = c->fd, .events = rlc_events(c), .revents = 0};
    if (until) *until = c->probing ? c->probe_watch_us : c->deadline_us;
    return 1;
}

uint64_t rlc_settle_until(const rl_conn *c, uint64_t now)
{
    return needs_settling(c) && now < c->deadline_us ? c->deadline_us : 0;
}

/* how many of the n nodes may count for a quorum in a call beginning now:
 * open (or a connect within its time) and not stalled, or closed and past
 * its back-off; a probing node only once its new connection answers */
int rlc_usable(rl_conn *const *conns, int n, uint64_t now)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        const rl_conn *c = conns[i];
        if (c->probing) continue;
        if (c->fd >= 0 && (!connecting(c) || now < c->deadline_us))
            k += !rlc_stalled(c, now);
        else
            k += now >= c->down_until_us; /* closed, or a connect overdue (closed at send) */
    }
    return k;
}

/* a connect (or TLS handshake) past its deadline, nothing written on it:
 * closed and failed (1), else 0 */
int rlc_expire_connect(rl_conn *c, uint64_t now)
{
    if (c->fd < 0 || !connecting(c) || now < c->deadline_us) return 0;
    rl_conn_close(c); /* never connected: nothing was written */
    rlc_node_failed(c, NULL, RL_E_TIMEOUT, "connect timeout", now, 1);
    return 1;
}
