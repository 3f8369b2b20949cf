/* restart_model.c -- randomized explorer of the core's own lock decisions with
 * restarted nodes (HACKING.md "Restarted nodes (restart_grace)").
 *
 * Unlike fence_model.c, this is not a model of the rules: the clients ARE the
 * core. Each client calls rl_acquire(), rl_extend(), rl_release() (and, with a
 * fence key, rl_fence_phases() through rl_acquire) of the core objects it is
 * linked with, over a transport of its own (mt_fanout) that delivers every
 * command to modelled nodes; so every decision -- the quorum, the validity and
 * its drift, the restart check (rl_vote_mask), calm attempts, the extend's
 * repair, the fence phases -- is the code's, and a bug there fails this check.
 *
 * The world: N nodes (3, 5, 7), each with a lock key (token, expiry on the
 * node's clock), the maxttl key (value and creation time, as the acquire and
 * extend scripts keep it: answered [answer, stored TTL, age], raised when the
 * TTL asked for is longer), a fence counter, a run_id (incarnation) and its
 * start, AOF on or off, and a clock running up to 0.95 % fast (the drift
 * factor is 1 %). Three clients (processes), each with its own rl_restart
 * (grace 'auto') and its own connections: a connection learns the node's
 * identity (run_id, uptime in whole seconds, aof) when it connects; a restart
 * breaks every connection to the node, and the next command reconnects.
 * Every client uses a short TTL; client 0 turns to a long one (5 or 30 s) at
 * some point of the run (the first long lock of the list). Events, at random:
 *   - a client's lock() (one attempt), extend() or release();
 *   - a node restarts empty (AOF off) or with its data (AOF on). At most
 *     N - q nodes are within their grace at once (the operator's part), and
 *     several may restart within one grace; no node restarts while a maxttl key
 *     younger than 3 s exists (the documented blind window of a fresh process);
 *   - a client process restarts (a fresh rl_restart, new connections);
 *   - a partition: up to N - q of a client's links cut, the others healed (a
 *     cut link times out; in half the runs client 0 never reaches N - q nodes);
 *   - time passes: a little, up to a TTL, or to just after the next key
 *     expiry, validity end or restarted node's grace (where the rules are tight).
 * In two thirds of the runs the events follow a schedule (quiet, see world):
 * client 0's long lock, N - q of its nodes restarting, then the others acting
 * with its remaining nodes mostly slow -- the shape of the reproduction.
 * Per command and node: answered in about a ms, or slow (RL_PENDING when the
 * call decides; the request still lands later, in order on its connection),
 * or timed out (its request may land later too); a damaged node answers
 * sometimes a huge maxttl, an age larger than its uptime, or garbage (an
 * error, a bare answer without the maxttl array).
 *
 * The guarantee checked whenever a client wins or extends: no other token's
 * lock is still valid (the client's own validity, rl_lock_info.valid_until_us,
 * on the model's clock); with fences, a lock() that began after another
 * returned has a larger fence.
 *
 * Variants:
 *   core         the core as linked (restart_grace 'auto'), extend() only while
 *                the lock is valid; plus the scripted reproduction of two nodes
 *                restarted within one grace (scripted()). Expected: an argument
 *                (safe or caught; the Makefile's RESTART_MODEL_CORE)
 *   late-extend  core, and extend() also once the validity ran out (a restored
 *                lock, a late call); plus its scripted reproduction
 *                (scripted_late()). Expected: an argument (RESTART_MODEL_LATE)
 *   fresh        core with fresh processes (first sight of every node) at the
 *                start and mid-run: information only (a fresh process that sees
 *                no old maxttl key among the answers takes a restarted node for a
 *                new cluster's: the documented limit)
 *   no-check     rl_ctx.rs = NULL (restart_grace 0)             -- must be caught
 *   grace-1s     restart_grace 1000 ms, the long TTL 5 or 30 s   -- must be caught
 *
 * Randomized with a fixed seed, bounded runs and events: reproducible. Prints the
 * counterexamples per variant and node count, the shortest of each variant, and
 * "N passed, N failed".
 *
 * Usage: restart_model [runs-per-configuration] [seed] [core: safe|caught]
 *        [late-extend: safe|caught]   (defaults 2000, 20261206, safe, safe)
 *        restart_model scripted|scripted-late   (a reproduction alone, traced) */
#include "rl_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 7
#define NC 3
#define EVENTS 60
#define MAXQ 512
#define TRACE_MAX 160
#define TRACE_W 200
#define T0_US ((uint64_t)1000000000000u) /* the model's clock starts here (nodes up long before) */
#define KEY "r"
#define FENCE_KEY "p\0redlock:fence"
#define MAXTTL_KEY "p" RL_MAXTTL_SUFFIX

enum { V_CORE, V_LATE, V_FRESH, V_NOCHECK, V_GRACE1S, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"core", "late-extend", "fresh", "no-check", "grace-1s"};

enum { K_ACQ, K_REL, K_EXT, K_SETNX, K_INCR, K_RAISE, K_OTHER };

typedef struct node {
    int run;           /* incarnation (a run_id), unique in the run */
    uint64_t start_us; /* when it started */
    uint64_t restart_us;
    int aof, damaged;
    double rate; /* its clock: node ms = off_ms + model ms * rate */
    int64_t off_ms;
    char tok[RL_TOKEN_MAX + 1];
    size_t toklen;
    int64_t exp_ms; /* the lock key's expiry on the node's clock; 0 none */
    int64_t mt, mt_at; /* the maxttl key: TTL, created (node ms); mt 0: none */
    int64_t fence;
} node;

/* a client's connection to a node */
typedef struct conn {
    int run; /* the run_id it learnt at connect (0: never connected) */
    int open, cut;
    rl_ident id;
    uint64_t last_at; /* the latest delivery queued on it: in order */
} conn;

typedef struct opres {
    int64_t fence;
    uint64_t start, end;
} opres;

typedef struct client {
    int ttl, long_ttl, long_at; /* the TTL; from event long_at on, long_ttl */
    rl_restart rs;
    conn cn[MAXN];
    int holding;
    rl_lock_info info;
    uint64_t held_from;
    int call; /* the fan-out being decided (its answers go to ans[]) */
    int done[MAXN];
    rl_reply ans[MAXN];
} client;

typedef struct qmsg {
    uint64_t at;
    int c, i, run, call, kind;
    char tok[RL_TOKEN_MAX + 1];
    size_t toklen;
    int64_t ttl, arg;
    int maxttl;
} qmsg;

typedef struct world {
    int n, q, variant, fenced;
    uint64_t now;
    node nd[MAXN];
    client cl[NC];
    qmsg mq[MAXQ];
    int nq, runs, calls;
    /* per run: the adversary */
    int p_slow, p_damage, timeout_ms, w_restart, w_cut, w_fresh;
    /* a schedule the adversary may pick: client 0 never reaches N - q nodes
     * (split); quiet: once client 0 turns to its long TTL, the others wait
     * for its lock; while it is valid, the lock's nodes restart empty (N - q
     * of them), then nobody acts for settle ms, then client 0 waits while the
     * others act, the nodes that still hold its key mostly slow */
    int split, quiet, restarts_since, wins_long;
    uint64_t lost_at, settle_us;
    uint64_t slow_mask; /* (a scripted run: these nodes answer after the timeout) */
    int64_t window_ms; /* a restarted node counts as within its grace this long */
    int violation;
    opres ops[NC * EVENTS];
    int nops;
    long wins, restarts;
    int tracing, tlines;
    char trace[TRACE_MAX][TRACE_W];
} world;

static world W;

/* ---- xorshift64* ---- */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static int below(int k) { return (int)(rnd() % (uint64_t)k); }

static void tr(world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tr(world *w, const char *fmt, ...)
{
    if (!w->tracing || w->tlines >= TRACE_MAX) return;
    char *p = w->trace[w->tlines++];
    int l = snprintf(p, TRACE_W, "t=%8.3f ", (double)(w->now - T0_US) / 1e6);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p + l, TRACE_W - (size_t)l, fmt, ap);
    va_end(ap);
}

static int64_t node_ms(const world *w, int i) { return w->nd[i].off_ms + (int64_t)((double)(w->now / 1000u) * w->nd[i].rate); }
static int64_t node_ms_at(const world *w, int i, uint64_t t) { return w->nd[i].off_ms + (int64_t)((double)(t / 1000u) * w->nd[i].rate); }

static int key_live(const world *w, int i) { return w->nd[i].exp_ms && node_ms(w, i) < w->nd[i].exp_ms; }

/* the node holds client 0's key (quiet, below) */
static int held_by_0(const world *w, int i)
{
    const client *h = &w->cl[0];
    const node *d = &w->nd[i];
    return h->holding && key_live(w, i) && d->toklen == h->info.token_len && memcmp(d->tok, h->info.token, d->toklen) == 0;
}

/* ---- the nodes: what the scripts do (lock/rl_acquire.c, rl_release.c, rl_fence.c) ---- */

static void reply_status(rl_reply *r, const char *s)
{
    memset(r, 0, sizeof(*r));
    r->type = RL_REPLY_STATUS;
    r->len = strlen(s);
    memcpy(r->str, s, r->len);
}
static void reply_int(rl_reply *r, long long v)
{
    memset(r, 0, sizeof(*r));
    r->type = RL_REPLY_INTEGER;
    r->integer = v;
}

/* maxttl (redlock_core/lock/lua/fragments.lua): answer the stored TTL and age as they were, raise to ttl */
static void maxttl(world *w, int i, int64_t ttl, rl_reply *r)
{
    node *d = &w->nd[i];
    int64_t now = node_ms(w, i), m = 0, a = -1, c = now;
    if (d->mt) {
        m = d->mt;
        c = d->mt_at;
        a = now - c < 0 ? 0 : now - c;
    }
    if (ttl > m) {
        d->mt = ttl;
        d->mt_at = c;
    }
    r->naux = 2;
    r->aux[0] = m;
    r->aux[1] = a;
}

/* what a damaged node may answer instead (its keys are kept faithfully) */
static void damage(world *w, int i, rl_reply *r)
{
    if (!w->nd[i].damaged || below(100) >= w->p_damage) return;
    switch (below(4)) {
    case 0:
        if (r->naux == 2) r->aux[0] = (long long)1 << (40 + below(20)); /* a huge maxttl */
        tr(w, "  (n%d damaged: maxttl answered %lld)", i, r->aux[0]);
        break;
    case 1: /* an age longer than it has been up */
        if (r->naux == 2) r->aux[1] = (long long)((w->now - w->nd[i].start_us) / 1000u) + 1000 + below(100000);
        tr(w, "  (n%d damaged: age answered %lld)", i, r->aux[1]);
        break;
    case 2:
        memset(r, 0, sizeof(*r));
        r->type = RL_REPLY_ERROR;
        r->len = 3;
        memcpy(r->str, "ERR", 3);
        tr(w, "  (n%d damaged: an error)", i);
        break;
    default:
        r->naux = 0; /* the answer without the array */
        tr(w, "  (n%d damaged: no maxttl array)", i);
        break;
    }
}

static void node_exec(world *w, const qmsg *m, rl_reply *r)
{
    node *d = &w->nd[m->i];
    int i = m->i;
    int live = key_live(w, i);
    int mine = live && d->toklen == m->toklen && memcmp(d->tok, m->tok, m->toklen) == 0;
    memset(r, 0, sizeof(*r));
    switch (m->kind) {
    case K_ACQ:
    case K_SETNX:
        if (!live) {
            memcpy(d->tok, m->tok, m->toklen);
            d->toklen = m->toklen;
            d->exp_ms = node_ms(w, i) + m->ttl;
            reply_status(r, "OK");
        } else {
            r->type = RL_REPLY_NIL;
        }
        if (m->kind == K_ACQ && m->maxttl) maxttl(w, i, m->ttl, r);
        tr(w, "n%d runs c%d's %s: %s", i, m->c,
           m->kind == K_ACQ ? (m->maxttl ? "SET (checked)" : "SET (calm)") : "repair SET", live ? "nil" : "OK");
        if (r->naux) tr(w, "  n%d answers maxttl %lld, age %lld", i, r->aux[0], r->aux[1]);
        if (m->kind == K_ACQ) damage(w, i, r);
        break;
    case K_REL:
        if (mine) d->exp_ms = 0;
        reply_int(r, mine);
        tr(w, "n%d runs c%d's release: %d", i, m->c, mine);
        break;
    case K_EXT: {
        int v = mine ? 1 : live ? 0 : -1;
        if (mine) d->exp_ms = node_ms(w, i) + m->ttl;
        reply_int(r, m->maxttl || v >= 0 ? v : 0);
        if (m->maxttl) maxttl(w, i, m->ttl, r);
        tr(w, "n%d runs c%d's extend: %d", i, m->c, v);
        if (m->maxttl) damage(w, i, r);
        break;
    }
    case K_INCR:
        reply_int(r, ++d->fence);
        tr(w, "n%d runs c%d's INCR: %" PRId64, i, m->c, d->fence);
        break;
    case K_RAISE:
        if (d->fence < m->arg) d->fence = m->arg;
        reply_int(r, d->fence);
        tr(w, "n%d runs c%d's raise to %" PRId64 ": %" PRId64, i, m->c, m->arg, d->fence);
        break;
    default: reply_status(r, "OK"); break;
    }
}

/* run every queued request due by t, in order */
static void advance(world *w, uint64_t t)
{
    for (;;) {
        int k = -1;
        for (int j = 0; j < w->nq; j++)
            if (w->mq[j].at <= t && (k < 0 || w->mq[j].at < w->mq[k].at)) k = j;
        if (k < 0) break;
        qmsg m = w->mq[k];
        memmove(&w->mq[k], &w->mq[k + 1], sizeof(qmsg) * (size_t)(w->nq - k - 1));
        w->nq--;
        if (m.at > w->now) w->now = m.at;
        if (w->nd[m.i].run != m.run) continue; /* its connection died with the server */
        rl_reply r;
        node_exec(w, &m, &r);
        client *c = &w->cl[m.c];
        if (m.call == c->call && !c->done[m.i]) {
            c->ans[m.i] = r;
            c->done[m.i] = 1;
        }
    }
    if (t > w->now) w->now = t;
}

/* ---- the clients' transport, clock and random source ---- */

static uint64_t mt_now(void *ctx)
{
    (void)ctx;
    return W.now;
}
static void mt_sleep(void *ctx, uint64_t us)
{
    (void)ctx;
    advance(&W, W.now + us);
}
static int mt_fill(void *ctx, void *buf, size_t len)
{
    (void)ctx;
    unsigned char *p = buf;
    for (size_t k = 0; k < len; k++) p[k] = (unsigned char)rnd();
    return 0;
}
static const rl_clock mt_clock = {mt_now, mt_sleep, NULL};
static const rl_random mt_random = {mt_fill, NULL};

static int is_sha(const rl_cmd *cmd, const char *sha)
{
    return cmd->argc > 1 && cmd->argvlen[1] == strlen(sha) && memcmp(cmd->argv[1], sha, cmd->argvlen[1]) == 0;
}

/* argument k as a number (arguments are not NUL-terminated) */
static long long num(const rl_cmd *cmd, int k)
{
    char b[32];
    size_t l = cmd->argvlen[k] < sizeof(b) - 1 ? cmd->argvlen[k] : sizeof(b) - 1;
    memcpy(b, cmd->argv[k], l);
    b[l] = '\0';
    return atoll(b);
}

/* the command's kind and arguments (the layouts of lock/rl_acquire.c, rl_release.c and rl_fence.c) */
static int parse(const rl_cmd *cmd, qmsg *m)
{
    memset(m, 0, sizeof(*m));
    const char *tok = NULL;
    size_t toklen = 0;
    if (cmd->argc >= 2 && cmd->argvlen[0] == 3 && memcmp(cmd->argv[0], "SET", 3) == 0) {
        m->kind = K_SETNX; /* SET key token NX PX ttl (the extend's repair) */
        tok = cmd->argv[2];
        toklen = cmd->argvlen[2];
        m->ttl = num(cmd, 5);
    } else if (cmd->argvlen[0] == 4 && memcmp(cmd->argv[0], "INCR", 4) == 0) {
        m->kind = K_INCR;
    } else if (is_sha(cmd, rl_script_fence_raise_sha)) {
        m->kind = K_RAISE;
        m->arg = num(cmd, 4);
    } else if (is_sha(cmd, rl_script_acquire_sha)) {
        /* EVALSHA sha 1 key token ttl "" ["" maxttl-key] */
        m->kind = K_ACQ;
        tok = cmd->argv[4];
        toklen = cmd->argvlen[4];
        m->ttl = num(cmd, 5);
        m->maxttl = cmd->argc >= 9 && cmd->argvlen[8] > 0;
    } else if (is_sha(cmd, rl_script_release_sha)) {
        m->kind = K_REL;
        tok = cmd->argv[4];
        toklen = cmd->argvlen[4];
    } else if (is_sha(cmd, rl_script_extend_sha)) {
        m->kind = K_EXT;
        tok = cmd->argv[4];
        toklen = cmd->argvlen[4];
        m->ttl = num(cmd, 5);
        m->maxttl = cmd->argc >= 7;
    } else {
        return -1;
    }
    if (tok) {
        if (toklen > RL_TOKEN_MAX) return -1;
        memcpy(m->tok, tok, toklen);
        m->toklen = toklen;
    }
    return 0;
}

/* (re)connect: INFO tells the run_id, the uptime in whole seconds, aof */
static void connect_to(world *w, int ci, int i)
{
    conn *k = &w->cl[ci].cn[i];
    node *d = &w->nd[i];
    if (k->open && k->run == d->run) return;
    rl_ident *id = &k->id;
    if (k->run && k->run != d->run) {
        id->inc++;
        id->restarted = !d->aof;
    } else if (!k->run) {
        memset(id, 0, sizeof(*id));
        id->inc = 1;
    }
    id->known = 1;
    id->aof = (unsigned char)d->aof;
    int64_t up_s = (node_ms(w, i) - node_ms_at(w, i, d->start_us)) / 1000;
    id->up_since_us = w->now - (uint64_t)up_s * 1000000u;
    k->run = d->run;
    k->open = 1;
}

static int mt_fanout(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud)
{
    world *w = &W;
    int ci = (int)(intptr_t)ctx;
    client *c = &w->cl[ci];
    qmsg m;
    uint64_t t0 = w->now, ans_at[MAXN];
    int failed_at[MAXN];
    if (parse(cmd, &m) != 0) {
        fprintf(stderr, "restart_model: a command it does not know (%.*s)\n", (int)cmd->argvlen[0], cmd->argv[0]);
        abort();
    }
    c->call = ++w->calls;
    for (int i = 0; i < n; i++) {
        memset(&res[i], 0, sizeof(res[i]));
        c->done[i] = 0;
        failed_at[i] = 0;
        ans_at[i] = UINT64_MAX;
        if (cmd->skip >> i & 1) {
            if (!cmd->nowait) res[i].state = RL_FAILED;
            continue;
        }
        conn *k = &c->cn[i];
        if (k->cut) {
            failed_at[i] = 1;
            ans_at[i] = t0 + (uint64_t)w->timeout_ms * 1000u;
            continue;
        }
        connect_to(w, ci, i);
        res[i].sent = 1;
        res[i].id = k->id;
        /* the request's way there, then the answer's way back */
        uint64_t go = 100 + (uint64_t)below(900), back = 100 + (uint64_t)below(900);
        if (below(100) < w->p_slow) go += (uint64_t)below(3 * w->timeout_ms) * 1000u;
        if (w->slow_mask >> i & 1) go += (uint64_t)w->timeout_ms * 1000u;
        if (w->quiet && w->restarts_since >= n - w->q && held_by_0(w, i) && below(4))
            go += (uint64_t)w->timeout_ms * 1000u;
        if (below(100) < w->p_slow / 2) back += (uint64_t)below(2 * w->timeout_ms) * 1000u;
        if (below(50) == 0) go += (uint64_t)below(20) * 1000u;
        qmsg *q = &w->mq[w->nq];
        if (w->nq >= MAXQ) abort();
        *q = m;
        q->c = ci;
        q->i = i;
        q->run = w->nd[i].run;
        q->call = c->call;
        q->at = t0 + go > k->last_at ? t0 + go : k->last_at;
        k->last_at = q->at;
        w->nq++;
        ans_at[i] = q->at + back;
    }
    if (cmd->nowait) return 0;
    uint64_t limit = t0 + (uint64_t)w->timeout_ms * 1000u;
    for (;;) {
        int k = -1;
        for (int i = 0; i < n; i++)
            if (res[i].state == RL_PENDING && ans_at[i] != UINT64_MAX && (k < 0 || ans_at[i] < ans_at[k])) k = i;
        if (k < 0) break;
        uint64_t t = ans_at[k] < limit ? ans_at[k] : limit;
        advance(w, t);
        if (t == limit && (ans_at[k] > limit || failed_at[k])) {
            /* every node not answered by now times out (its request may still land) */
            for (int i = 0; i < n; i++)
                if (res[i].state == RL_PENDING && ans_at[i] != UINT64_MAX) {
                    res[i].state = RL_FAILED;
                    res[i].err = RL_E_TIMEOUT;
                    tr(w, "  c%d: n%d timed out", ci, i);
                }
        } else if (!c->done[k]) {
            /* the server restarted under the request: the connection broke */
            res[k].state = RL_FAILED;
            res[k].err = RL_E_IO;
            c->cn[k].open = 0;
        } else {
            res[k].state = RL_ANSWERED;
            res[k].reply = c->ans[k];
        }
        if (decide && decide(ud, res, n)) break;
    }
    c->call = 0; /* later answers are dropped */
    return 0;
}

static const rl_transport mt_tp = {mt_fanout, NULL};

/* ---- the clients ---- */

static void client_fresh(world *w, int ci)
{
    client *c = &w->cl[ci];
    memset(&c->rs, 0, sizeof(c->rs));
    c->rs.grace_ms = w->variant == V_GRACE1S ? 1000 : RL_GRACE_AUTO;
    c->rs.maxttl_key = MAXTTL_KEY;
    c->rs.maxttl_keylen = sizeof(MAXTTL_KEY) - 1;
    memset(c->cn, 0, sizeof(c->cn));
}

static rl_ctx ctx_of(world *w, int ci)
{
    static rl_transport tps[NC];
    tps[ci] = mt_tp;
    tps[ci].ctx = (void *)(intptr_t)ci;
    rl_ctx x = {.tp = &tps[ci], .clock = &mt_clock, .rnd = &mt_random, .n = w->n};
    if (w->variant != V_NOCHECK) x.rs = &w->cl[ci].rs;
    return x;
}

/* another token's lock still valid now: two holders */
static void check(world *w, int ci, const char *what)
{
    for (int j = 0; j < NC; j++) {
        client *o = &w->cl[j];
        if (j == ci || !o->holding || o->info.valid_until_us <= w->now) continue;
        tr(w, "VIOLATION: c%d %s while c%d's lock is valid for %.3f s more", ci, what, j,
           (double)(o->info.valid_until_us - w->now) / 1e6);
        w->violation = 1;
    }
}

static void do_lock(world *w, int ci)
{
    client *c = &w->cl[ci];
    rl_ctx x = ctx_of(w, ci);
    rl_opts o = {.drift_factor = 0.01};
    if (w->fenced) {
        o.fence_key = FENCE_KEY;
        o.fence_keylen = sizeof(FENCE_KEY) - 1;
    }
    uint64_t start = w->now;
    tr(w, "c%d lock() ttl %d ms", ci, c->ttl);
    int r = rl_acquire(&x, KEY, 1, c->ttl, &o, &c->info, NULL);
    if (r != RL_ACQUIRED) {
        tr(w, "c%d: lock() fails (%d)", ci, r);
        return;
    }
    c->holding = 1;
    c->held_from = w->now;
    if (ci == 0) w->restarts_since = 0;
    if (ci == 0 && c->ttl == c->long_ttl) w->wins_long = 1;
    w->wins++;
    tr(w, "c%d: lock() wins, valid %" PRId64 " ms (until t=%.3f)%s", ci, c->info.validity_ms,
       (double)(c->info.valid_until_us - T0_US) / 1e6, "");
    check(w, ci, "wins");
    if (w->fenced) {
        opres *p = &w->ops[w->nops++];
        p->fence = c->info.fence;
        p->start = start;
        p->end = w->now;
        tr(w, "c%d: fence %" PRId64, ci, p->fence);
        for (int k = 0; k < w->nops - 1; k++)
            if (w->ops[k].end < start && w->ops[k].fence >= p->fence) {
                tr(w, "VIOLATION: fence %" PRId64 " of a lock() begun after one that returned %" PRId64, p->fence,
                   w->ops[k].fence);
                w->violation = 1;
            }
    }
}

static void do_extend(world *w, int ci)
{
    client *c = &w->cl[ci];
    rl_ctx x = ctx_of(w, ci);
    tr(w, "c%d extend()", ci);
    int r = rl_extend(&x, KEY, 1, c->info.token, c->ttl, 0.01, &c->info, NULL);
    if (r != RL_EXTENDED) {
        tr(w, "c%d: extend() fails (%d), valid until t=%.3f", ci, r, (double)(c->info.valid_until_us - T0_US) / 1e6);
        return;
    }
    tr(w, "c%d: extend() succeeds, valid until t=%.3f", ci, (double)(c->info.valid_until_us - T0_US) / 1e6);
    check(w, ci, "extends");
}

static void do_release(world *w, int ci)
{
    client *c = &w->cl[ci];
    rl_ctx x = ctx_of(w, ci);
    c->holding = 0; /* it stops using the lock before it releases */
    tr(w, "c%d release()", ci);
    (void)rl_release(&x, KEY, 1, c->info.token, NULL);
}

/* ---- restarts ---- */

static int64_t since_ms(const world *w, uint64_t t) { return (int64_t)((w->now - t) / 1000u); }

static int in_grace(const world *w, int i)
{
    return w->nd[i].restart_us && !w->nd[i].aof && since_ms(w, w->nd[i].restart_us) < w->window_ms;
}

static int can_restart(const world *w, int i)
{
    int others = 0;
    for (int j = 0; j < w->n; j++) {
        others += j != i && in_grace(w, j);
        /* (a maxttl key younger than 3 s: a fresh process cannot tell a restart then) */
        if (w->nd[j].mt && node_ms(w, j) - w->nd[j].mt_at < 3000) return 0;
    }
    return w->nd[i].aof || others < w->n - w->q;
}

static void restart(world *w, int i)
{
    node *d = &w->nd[i];
    /* (for quiet: an empty restart of a node that held client 0's key) */
    if (!d->aof && held_by_0(w, i)) {
        w->restarts_since++;
        w->lost_at = w->now;
    }
    d->run = ++w->runs;
    d->start_us = d->restart_us = w->now;
    if (!d->aof) {
        d->exp_ms = 0;
        d->mt = 0;
        d->fence = 0;
    }
    for (int ci = 0; ci < NC; ci++) w->cl[ci].cn[i].open = 0;
    w->restarts++;
    tr(w, "n%d restarts%s (run %d)", i, d->aof ? " with its data (AOF)" : " empty", d->run);
}

/* ---- a run ---- */

/* quiet's phase at event e: 0 not quiet (or over), 1 client 0 takes its long
 * lock, 2 its nodes restart, 3 nobody acts (settle), 4 the others act */
static int phase(const world *w, int e)
{
    const client *h = &w->cl[0];
    if (!w->quiet || e < h->long_at) return 0;
    if (!w->wins_long) return 1;
    if (!h->holding || h->info.valid_until_us <= w->now) return 0;
    if (w->restarts_since < w->n - w->q) return 2;
    return w->now < w->lost_at + w->settle_us ? 3 : 4;
}


static void next_time(world *w)
{
    uint64_t t = w->now;
    switch (below(6)) {
    case 0: t += (uint64_t)(1 + below(50)) * 1000u; break;
    case 1: t += (uint64_t)below(3000) * 1000u; break;
    case 2: t += (uint64_t)below(w->cl[0].long_ttl) * 1000u; break;
    default: {
        /* just after the next key expiry or grace end (model time) */
        uint64_t best = UINT64_MAX;
        for (int i = 0; i < w->n; i++) {
            const node *d = &w->nd[i];
            if (key_live(w, i)) {
                uint64_t e = (uint64_t)((double)(d->exp_ms - d->off_ms) / d->rate) * 1000u + 1000u;
                if (e > w->now && e < best) best = e;
            }
            if (in_grace(w, i)) {
                /* the end of its grace for the long TTL, and for a short one */
                uint64_t e = d->restart_us + (uint64_t)w->window_ms * 1000u;
                uint64_t e1 = d->restart_us + (uint64_t)(2 + below(2000)) * 1000u + 1010000u;
                if (e1 > w->now && e1 < best) best = e1;
                if (e > w->now && e < best) best = e;
            }
            for (int ci = 0; ci < NC; ci++) {
                const client *c = &w->cl[ci];
                if (c->holding && c->info.valid_until_us > w->now && c->info.valid_until_us < best)
                    best = c->info.valid_until_us;
            }
        }
        if (best != UINT64_MAX) t = best + (uint64_t)below(30) * 1000u;
        else t += 1000u;
    }
    }
    advance(w, t);
}

static void one_run(world *w, int n, int variant, int tracing)
{
    memset(w, 0, offsetof(world, trace));
    w->n = n;
    w->q = rl_quorum(n);
    w->variant = variant;
    w->tracing = tracing;
    w->now = T0_US;
    w->fenced = below(3) == 0;
    w->p_slow = below(4) * 20;
    w->p_damage = below(3) * 25;
    w->timeout_ms = (int[]){50, 300, 1500}[below(3)];
    w->w_restart = 1 + below(4);
    w->w_cut = below(3);
    w->w_fresh = variant == V_FRESH;
    /* client 0 turns to a long TTL at some point (the first long lock of the
     * list: the others' graces were short until then) */
    for (int ci = 0; ci < NC; ci++) w->cl[ci].ttl = below(2) ? 1000 : 500;
    w->cl[0].long_ttl = below(2) ? 30000 : 5000;
    w->cl[0].long_at = below(EVENTS / 2);
    for (int ci = 0; ci < NC; ci++) client_fresh(w, ci);
    /* a grace: the longest TTL + drift, + up to 2 s for the uptime's whole seconds and margin */
    w->window_ms = (int64_t)((double)w->cl[0].long_ttl * 1.01) + 2 + 2000;
    int ndamaged = below(3) == 0;
    for (int i = 0; i < n; i++) {
        node *d = &w->nd[i];
        d->run = ++w->runs;
        d->start_us = T0_US - 1000000000u; /* up for 1000 s */
        d->aof = below(6) == 0;
        d->rate = 1.0 + (double)below(96) / 10000.0;
        d->off_ms = (int64_t)below(1000000);
    }
    if (ndamaged) w->nd[below(n)].damaged = 1;
    w->split = below(2);
    w->quiet = below(3) > 0;
    w->settle_us = (uint64_t)(2000 + below(2000)) * 1000u;
    for (int i = w->q; i < n && w->split; i++) w->cl[0].cn[i].cut = 1;
    /* the processes knew every node's run_id before (a fresh process: the
     * variant fresh, first sight of every node) */
    for (int ci = 0; ci < NC; ci++)
        for (int i = 0; i < n && variant != V_FRESH; i++) {
            w->cl[ci].cn[i].run = w->nd[i].run;
            w->cl[ci].cn[i].id.inc = 1;
        }
    for (int e = 0; e < EVENTS && !w->violation; e++) {
        int what = below(20);
        int ci = below(NC);
        if (e == w->cl[0].long_at) w->cl[0].ttl = w->cl[0].long_ttl;
        client *c = &w->cl[ci];
        int ph = phase(w, e);
        if (ph && (what < 8 || what >= 13)) {
            /* (quiet: see world.quiet) */
            if (ph == 1 && ci == 0 && what < 8) {
                /* client 0 may act */
            } else if (ph == 2 && what < 8 && below(2)) {
                what = 8;
            } else if (ph == 4 && what < 8 && ci != 0) {
                /* the others act */
            } else {
                advance(w, w->now + (uint64_t)(1 + below(ph == 3 ? 700 : 1500)) * 1000u);
                continue;
            }
        }
        if (what < 8) {
            /* (an extend() once the validity ran out: only late-extend) */
            int late = c->holding && c->info.valid_until_us <= w->now;
            if (!c->holding)
                do_lock(w, ci);
            else if (below(variant == V_LATE ? 8 : 3) == 0 || (late && variant != V_LATE))
                do_release(w, ci);
            else
                do_extend(w, ci);
        } else if (what < 8 + w->w_restart) {
            /* mostly a node that holds a lock key (adversarial) */
            int i = below(n);
            for (int k = 0; k < n && (what == 8 || below(3)); k++)
                if (key_live(w, (i + k) % n)) {
                    i = (i + k) % n;
                    break;
                }
            if (can_restart(w, i)) restart(w, i);
        } else if (what < 13 && w->w_cut) {
            /* a partition of client ci: up to N - q of its links cut */
            int cut = below(n - w->q + 1), first = below(n);
            for (int i = 0; i < n; i++) c->cn[i].cut = (i - first + n) % n < cut || (ci == 0 && w->split && i >= w->q);
            tr(w, "c%d: links to %d nodes from n%d cut, the others healed", ci, cut, first);
        } else if (what == 13 && w->w_fresh && !c->holding) {
            client_fresh(w, ci);
            tr(w, "c%d: a fresh process", ci);
        } else {
            next_time(w);
        }
    }
}

/* the reproduction of HACKING.md "Restarted nodes": 5 nodes, V (c1) used 1 s
 * TTLs; H (c0), cut off from n3 and n4, takes the lock for 30 s on n0-n2; n1
 * and n2 restart empty; n0 is slow during V's next lock() */
/* a scripted run's world: n nodes up for 1000 s, clients with 1 s TTLs that
 * knew every node's run_id, answers in about a ms, traced */
static void scripted_world(world *w, int n)
{
    rng_state = 20261206u; /* (the tokens, and the answers' delays) */
    memset(w, 0, offsetof(world, trace));
    w->n = n;
    w->q = rl_quorum(n);
    w->tracing = 1;
    w->now = T0_US;
    w->timeout_ms = 300;
    for (int i = 0; i < n; i++) {
        w->nd[i].run = ++w->runs;
        w->nd[i].start_us = T0_US - 1000000000u;
        w->nd[i].rate = 1.0;
    }
    for (int ci = 0; ci < NC; ci++) {
        client_fresh(w, ci);
        w->cl[ci].ttl = 1000;
        for (int i = 0; i < n; i++) {
            w->cl[ci].cn[i].run = w->nd[i].run;
            w->cl[ci].cn[i].id.inc = 1;
        }
    }
}

static int scripted(void)
{
    world *w = &W;
    scripted_world(w, 5);
    w->window_ms = 32302;
    do_lock(w, 1);
    do_release(w, 1);
    advance(w, w->now + 5000000u);
    w->cl[0].ttl = 30000;
    w->cl[0].cn[3].cut = w->cl[0].cn[4].cut = 1;
    do_lock(w, 0);
    advance(w, w->now + 500000u);
    restart(w, 1);
    restart(w, 2);
    advance(w, w->now + 3000000u);
    w->slow_mask = 1;
    do_lock(w, 1);
    return w->violation;
}
/* late-extend's: 3 nodes; V (c1) locked at t=0 and let it expire; n2
 * restarts; H (c0), cut off from n2, takes the lock on n0, n1; n1 restarts;
 * V's extend() finds no key on n1 and n2, both restarted since its lock
 * began, and repairs them: two holders */
static int scripted_late(void)
{
    world *w = &W;
    scripted_world(w, 3);
    w->window_ms = 7052;
    w->cl[0].ttl = 5000;
    do_lock(w, 1);
    advance(w, w->now + 1000000u);
    restart(w, 2);
    advance(w, w->now + 8000000u);
    w->cl[0].cn[2].cut = 1;
    do_lock(w, 0);
    advance(w, w->now + 500000u);
    restart(w, 1);
    do_extend(w, 1);
    return w->violation;
}

static int scripted_quiet(int (*f)(void))
{
    int v = f();
    W.tracing = 0;
    return v;
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "scripted") == 0 || strcmp(argv[1], "scripted-late") == 0)) {
        int v = argv[1][8] ? scripted_late() : scripted();
        for (int t = 0; t < W.tlines; t++) printf("%s\n", W.trace[t]);
        return v;
    }
    long runs = argc > 1 ? atol(argv[1]) : 2000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261206u;
    int core_broken = argc > 3 && strcmp(argv[3], "caught") == 0;
    int late_broken = argc > 4 && strcmp(argv[4], "caught") == 0;
    if (runs < 1 || runs > 10000000) runs = 2000;
    /* expected: caught (1), never violated (0), information only (-1) */
    const int broken[NVARIANTS] = {core_broken, late_broken, -1, 1, 1};
    static char best[NVARIANTS][TRACE_MAX * (TRACE_W + 1) + 160];
    int best_len[NVARIANTS], passed = 0, failed = 0;
    long viol[NVARIANTS] = {0};
    for (int v = 0; v < NVARIANTS; v++) best_len[v] = TRACE_MAX + 1;
    printf("restart model (the core's rl_acquire/rl_extend/rl_release): %ld runs per configuration, seed %" PRIu64
           ", %d events per run; expected: core %s, late-extend %s\n",
           runs, seed, EVENTS, core_broken ? "caught" : "safe", late_broken ? "caught" : "safe");
    for (int v = 0; v < NVARIANTS; v++) {
        for (int n = 3; n <= MAXN; n += 2) {
            rng_state = seed ^ ((uint64_t)n << 32);
            if (!rng_state) rng_state = 1;
            long bad = 0, wins = 0, rs = 0;
            long first = -1;
            for (long k = 0; k < runs; k++) {
                uint64_t saved = rng_state;
                one_run(&W, n, v, 0);
                wins += W.wins;
                rs += W.restarts;
                if (!W.violation) continue;
                if (first < 0) first = k;
                bad++;
                uint64_t after = rng_state;
                rng_state = saved;
                one_run(&W, n, v, 1);
                rng_state = after;
                if (W.tlines < best_len[v]) {
                    best_len[v] = W.tlines;
                    int l = snprintf(best[v], sizeof(best[v]), "(%d nodes, run %ld of seed %" PRIu64 ")\n", n, k, seed);
                    for (int t = 0; t < W.tlines; t++)
                        l += snprintf(best[v] + l, sizeof(best[v]) - (size_t)l, "%s\n", W.trace[t]);
                }
            }
            viol[v] += bad;
            printf("%-11s %d nodes: %ld counterexamples in %ld runs (first: run %ld; %ld wins, %ld restarts)\n",
                   variant_name[v], n, bad, runs, first, wins, rs);
            if (wins == 0) {
                printf("  (no client ever won: the run proves nothing)\n");
                failed++;
            }
        }
    }
    printf("\n");
    /* the reproduction of HACKING.md (scripted()): a counterexample of core */
    memset(&W, 0, sizeof(W));
    int repro = scripted_quiet(scripted);
    viol[V_CORE] += repro;
    printf("core        scripted reproduction (5 nodes, 2 restarted in one grace): %s\n",
           repro ? "counterexample" : "no violation");
    memset(&W, 0, sizeof(W));
    repro = scripted_quiet(scripted_late);
    viol[V_LATE] += repro;
    printf("late-extend scripted reproduction (3 nodes, an expired lock repaired): %s\n",
           repro ? "counterexample" : "no violation");
    for (int v = 0; v < NVARIANTS; v++) {
        if (broken[v] < 0) {
            printf("%-11s %ld counterexamples: information only\n", variant_name[v], viol[v]);
            continue;
        }
        int ok = broken[v] ? viol[v] > 0 : viol[v] == 0;
        ok ? passed++ : failed++;
        printf("%-11s %ld counterexamples: %s\n", variant_name[v], viol[v],
               ok          ? (broken[v] ? "PASS (caught)" : "PASS (no violation)")
               : broken[v] ? "FAIL (expected to be caught, not caught)"
                           : "FAIL (the core violates the guarantee)");
    }
    for (int v = 0; v < NVARIANTS; v++)
        if (best_len[v] <= TRACE_MAX) printf("\nshortest counterexample, %s %s", variant_name[v], best[v]);
    printf("\n%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
