/* rl_fanout.c -- one command written to every node, one poll() loop; the decision at quorum,
 * settling, the drain at request end. Per-call state lives here (rl_fan), not in the
 * connections; what a node does (send, read, every reply's meaning, timeouts, stalls, probes)
 * is rl_node.c's (rlc_send, rlc_serve, rlc_timeout, rlc_stalled_step) and rl_read.c's. */
#include "rl_net_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* docs/api.md "Nodes": the first call that connects two entries of one server
 * throws before any lock is granted, so a call waits for the run_id of every
 * connection it opened itself (it comes just before that node's answer:
 * no wait in the normal case). A connection left from an earlier call whose
 * server never said is not waited for again. */
static int ident_blocking(const rl_fan *f)
{
    for (int i = 0; i < f->n; i++) {
        if (f->res[i].state == RL_PENDING && rlc_ident_due(f->net->conns[i])) return 1;
    }
    return 0;
}

static int any_pending(const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING) return 1;
    return 0;
}

/* Nodes skipped for their back-off count as failed only while their answers
 * could not change the outcome (the call is decided with them pending too).
 * Else they are tried now, in this call: a node back from a restart must not
 * cost a call that the others cannot decide. Returns 1 when it sent. */
static int held_matter(rl_fan *f, rl_decide_fn decide, void *ud, uint64_t now)
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
        rlc_send(f, i, now, 1);
    }
    return 1;
}

static int is_decided(rl_fan *f, rl_decide_fn decide, void *ud, uint64_t now)
{
    if (!decide) return 0;
    while (decide(ud, f->res, f->n))
        if (!held_matter(f, decide, ud, now)) return 1;
    return 0;
}

/* The call returns: nodes still skipped for their back-off, or still behind,
 * get their reason (and their statistics) now. */
static void fan_end(rl_fan *f, uint64_t now) { rlc_fan_end(f, now); }

/* Adds node i's connection to the poll set; returns the new size. */
static int watch(struct pollfd *pfd, int *map, int np, int i, const rl_conn *c)
{
    if (!rlc_watch(c, &pfd[np], NULL)) return np;
    map[np] = i;
    return np + 1;
}

/* A pass outside any call (drain, listen): no command of its own, the
 * outcomes land in scratch results nobody reads. */
typedef struct outside {
    rl_result scratch[RL_MAX_NODES];
    rl_cmd none;
} outside;

static rl_fan fan_outside(rl_net *net, outside *o)
{
    memset(o, 0, sizeof(*o));
    return (rl_fan){.net = net,
                    .cmd = &o->none,
                    .res = o->scratch,
                    .n = net->n < RL_MAX_NODES ? net->n : RL_MAX_NODES,
                    .settling = 1};
}

/* After poll, outside a call (drain, listen): serve every ready node, its
 * outcome going to f's scratch results nobody reads. */
static void serve_ready(rl_fan *f, const struct pollfd *pfd, const int *map, int np, uint64_t now)
{
    for (int k = 0; k < np; k++) {
        int i = map[k];
        if (!pfd[k].revents || rlc_fd(f->net->conns[i]) != pfd[k].fd) continue;
        memset(&f->res[i], 0, sizeof(f->res[i]));
        rlc_serve_outside(f, i, pfd[k].revents, now);
    }
}

int rl_net_fanout(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud)
{
    rl_net *net = ctx;
    /* every connection a call opens learns its server's identity (INFO), also
     * with one node: the pooled connection's identity is every later call's,
     * and must never outlive the server it was learnt from */
    rl_fan f = {.net = net, .cmd = cmd, .res = res, .n = n};
    const rl_clock *clk = net->clock;
    struct pollfd pfd[RL_MAX_NODES];
    int map[RL_MAX_NODES];
    int decided = 0;

    if (n > RL_MAX_NODES || n > net->n) return -1;
    /* the same bytes go to every node: encoded once (a command larger than
     * the buffer, rare, is encoded per node) */
    char enc[2048];
    size_t enclen = rl_resp_format(enc, sizeof(enc), cmd->argc, cmd->argv, cmd->argvlen);
    if (enclen <= sizeof(enc)) {
        f.enc = enc;
        f.enclen = enclen;
    }
    uint64_t now = clk->now_us(clk->ctx);
    f.t0 = now;
    memset(res, 0, sizeof(*res) * (size_t)n);
    /* a node in back-off may be skipped only while the others can still
     * make a quorum; when they cannot, every node is tried */
    f.ignore_backoff = rlc_usable(net->conns, n, now) < rl_quorum(n);
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
        if (rlc_send(&f, i, now, 1) != 0 && decide && decide(ud, res, n)) decided = 1;
    }
    if (decided) decided = is_decided(&f, decide, ud, now);
    if (cmd->nowait) decided = 1;
    while (!decided) {
        int np = 0;
        uint64_t next = UINT64_MAX;
        for (int i = 0; i < n; i++) {
            uint64_t dl;
            if (res[i].state != RL_PENDING || !rlc_watch(net->conns[i], &pfd[np], &dl)) continue;
            map[np++] = i;
            if (dl < next) next = dl;
        }
        if (np == 0) break;
        int wait_ms = next <= now ? 0 : (int)((next - now + 999) / 1000);
        int pr = rl_net_poll(net, pfd, np, wait_ms);
        if (pr < 0 && errno != EINTR) {
            /* every node still waited for fails; its reply, when it comes,
             * is dropped like any late one (below), never taken for the
             * next command's */
            char why[RL_REASON_LEN];
            snprintf(why, sizeof(why), "poll: %s", strerror(errno));
            for (int i = 0; i < n; i++)
                if (res[i].state == RL_PENDING) {
                    rlc_q_forget_mine(net->conns[i], cmd, f.enc, f.enclen, 1);
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
            if (res[i].state != RL_PENDING || rlc_fd(c) != pfd[k].fd) continue;
            if (decided && !pfd[k].revents) continue;
            f.ident_seen = 0;
            if (pfd[k].revents) got = rlc_serve(&f, i, pfd[k].revents, now);
            got |= f.ident_seen;
            if (f.stalled >> i & 1) {
                got |= rlc_stalled_step(&f, i, now);
            } else if (!decided && !got && res[i].state == RL_PENDING && rlc_overdue(c, now)) {
                rlc_timeout(&f, i, now);
                got = 1;
            }
            if (got && !decided && is_decided(&f, decide, ud, now) && !(f.noscript && any_pending(res, n)) &&
                !ident_blocking(&f))
                decided = 1;
        }
    }
    fan_end(&f, now);
    /* docs/api.md "stats()": every node whose deadline had passed when the call
     * was decided counts its timeout, also one the deciding pass did not
     * reach (decided by another node's timeout at the same instant) */
    for (int i = 0; i < n && !cmd->nowait; i++)
        if (res[i].state == RL_PENDING && rlc_overdue(net->conns[i], now)) rlc_timeout(&f, i, now);
    /* Returned early: replies still in flight are dropped when they come. */
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING && rlc_fd(net->conns[i]) >= 0 && !(cmd->nowait && (cmd->skip >> i & 1)))
            rlc_q_forget_mine(net->conns[i], cmd, f.enc, f.enclen, 1);
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
            uint64_t dl = res[i].sent ? rlc_settle_until(net->conns[i], now) : 0;
            if (!dl) continue;
            np = watch(pfd, map, np, i, net->conns[i]);
            if (dl < next) next = dl;
        }
        if (np == 0) break;
        int pr = rl_net_poll(net, pfd, np, (int)((next - now + 999) / 1000));
        if (pr < 0 && errno != EINTR) break;
        now = clk->now_us(clk->ctx);
        for (int k = 0; k < np; k++) {
            int i = map[k];
            if (rlc_fd(net->conns[i]) != pfd[k].fd || !pfd[k].revents) continue;
            rlc_serve(&f, i, pfd[k].revents, now);
        }
        for (int i = 0; i < n; i++) rlc_expire_connect(net->conns[i], now);
    }
    return 0;
}

/* The drain's passes over f's connections until each is settled or end. */
static void drain_until(rl_fan *f, struct pollfd *pfd, int *map, uint64_t end)
{
    rl_net *net = f->net;
    const rl_clock *clk = net->clock;
    for (;;) {
        int np = 0;
        uint64_t now = clk->now_us(clk->ctx);
        for (int i = 0; i < f->n; i++) {
            rl_conn *c = net->conns[i];
            if (rlc_fd(c) < 0 || rlc_inherited(c)) continue;
            if (rlc_expire_connect(c, now)) continue;
            if (!rl_conn_busy(c) && !rlc_connecting(c)) continue;
            np = watch(pfd, map, np, i, c);
        }
        if (np == 0 || now >= end) return;
        if (rl_net_poll(net, pfd, np, (int)((end - now + 999) / 1000)) <= 0) return;
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
        rl_fan f = fan_outside(net, &o);
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
        rl_fan f = {.net = net, .cmd = &none, .res = scratch, .n = net->n, .settling = 1};
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
    rl_fan f = fan_outside(net, &o);
    for (;;) {
        struct pollfd pfd[RL_MAX_NODES];
        int map[RL_MAX_NODES], np = 0;
        if (stop && stop(ud)) return;
        uint64_t now = clk->now_us(clk->ctx), next = until_us;
        for (int i = 0; i < f.n; i++) {
            rl_conn *c = net->conns[i];
            if (rlc_inherited(c)) rl_conn_close(c); /* never the parent's */
            if (rlc_fd(c) < 0) continue;
            if (rlc_expire_connect(c, now)) continue;
            if (rlc_connecting(c) && rlc_deadline(c) < next) next = rlc_deadline(c);
            np = watch(pfd, map, np, i, c);
        }
        int last = now >= until_us; /* one pass without waiting, then return */
        if (next < now) next = now;
        int pr = rl_net_poll(net, pfd, np, last ? 0 : (int)((next - now + 999) / 1000));
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
