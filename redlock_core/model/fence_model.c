/* fence_model.c -- randomized explorer of the fencing-token protocol (docs/api.md "Fencing tokens").
 *
 * A model of the protocol whose decisions are the core's: each phase is
 * decided by the function rl_acquire / rl_fence_phases use (rl_decide_set,
 * rl_fence_incr_decided, rl_fence_raise_decided), M is rl_fence_m's, the
 * quorum rl_quorum's (linked with the core objects), so a bug there fails
 * this check; the phases' order, the variants and the trust rule of the
 * restart variants are the model's (the core's own phases with restarts:
 * restart_model.c). N nodes (3, 5), C clients (2, 3),
 * every client runs K lock() calls. Every request and every reply is a message
 * that can be delivered at any later time (arbitrary interleavings and per-message
 * delays, reordering included; some messages are slow, some requests are lost);
 * a client may give up waiting for any node (timeout) while its request still
 * lands later; a node may drop the lock key at
 * any time (TTL expiry: a holder paused past its TTL). Nodes never lose
 * acknowledged writes (the persistence requirement). Each phase is decided at
 * quorum, as the core decides it; replies that come after the decision are dropped.
 *
 * The guarantee checked after every run: for two successful lock() calls A and B,
 * if B started after A returned, then B.fence > A.fence (and fences are > 0).
 *
 * Variants:
 *   correct        SET NX quorum; (1) INCR on all, M = max of the quorum;
 *                  (2) raise to M on all, a quorum confirms   -- must never violate
 *   incr-in-set    one script per node "SET NX and INCR when set", M = max over the
 *                  SET quorum, nothing more                  -- must be caught
 *   no-raise       phases as "correct" without (2)            -- must be caught
 *   incr-in-set+raise  (information only) the INCR inside the SET followed by (2)
 *
 * With restarts (docs/api.md "Restarted nodes"): a node may also restart empty
 * (key and counter gone, a new incarnation) at any time, while at most n - q
 * nodes are within their grace (the operator's part: a quorum never restarts
 * at once). A node's grace ends once every lock() that began before its
 * restart has returned (what restart_grace >= the longest TTL gives: a lock
 * returns within its TTL). Every reply carries the incarnation that ran it.
 *   restart            "correct", and an INCR answer counts only from an
 *                      incarnation the client trusts: the first one, or one it
 *                      saw confirm a raise whose phase (1) began after that
 *                      incarnation's grace (lock/rl_fence.c)   -- must never violate
 *   restart-naive      "correct" with restarts, every answer counts (the code
 *                      before restart_grace)               -- must be caught
 *   restart-no-raise   an incarnation counts once past its grace, without a
 *                      raise (its counter restarted from 0) -- must be caught
 *   restart-any-raise  (information only) trusted after any confirmed raise,
 *                      its phase (1) begun during the grace: unsafe by the
 *                      argument in HACKING.md "Restarted nodes", but its
 *                      counterexample needs several rare steps in a row and
 *                      the random search has not met one (100000 runs)
 *
 * Randomized with a fixed seed and a bounded number of runs and steps, so the
 * result is reproducible. Prints the counterexamples found per variant and
 * configuration, the shortest counterexample of each broken variant, and
 * "N passed, N failed"; exits non-zero when the correct protocol has any
 * violation or a broken variant has none (for 3 nodes and for 5 nodes).
 *
 * Usage: fence_model [runs-per-configuration] [seed]   (defaults 10000, 20240601) */
#include "rl_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 5
#define MAXC 3
#define OPS 4            /* lock() calls per client */
#define MAXMSG 512
#define MAXSTEPS 4000
#define MAXOPS (MAXC * OPS)
#define TRACE_MAX 400

enum variant {
    V_CORRECT,
    V_INCR_IN_SET,
    V_NO_RAISE,
    V_INCR_IN_SET_RAISE,
    V_RESTART,
    V_RESTART_NAIVE,
    V_RESTART_NO_RAISE,
    V_RESTART_ANY_RAISE,
    NVARIANTS
};
static const char *variant_name[NVARIANTS] = {"correct", "incr-in-set", "no-raise", "incr-in-set+raise",
                                              "restart", "restart-naive", "restart-no-raise",
                                              "restart-any-raise"};
/* expected to be caught (1), never violated (0), information only (-1) */
static const int variant_broken[NVARIANTS] = {0, 1, 1, -1, 0, 1, 1, -1};
static int has_restarts(int v) { return v >= V_RESTART; }

enum mtype { M_SET, M_SETINCR, M_INCR, M_RAISE, M_REL };
static const char *mtype_name[] = {"SET", "SET+INCR", "INCR", "RAISE", "REL"};

typedef struct msg {
    int reply;       /* 0: request to node, 1: reply to client */
    int type;        /* enum mtype */
    int client, call, node;
    int token;       /* the lock() call it belongs to (1-based op id) */
    int64_t arg;     /* RAISE: M */
    int ok;          /* reply: SET accepted */
    int64_t val;     /* reply: counter value */
    int inc;         /* reply: the node's incarnation that ran it */
    int w;           /* delivery weight: 20, or 1 for a slow message (a long delay) */
} msg;

enum cstate { C_IDLE, C_WAIT, C_HOLD, C_DONE };
enum phase { P_SET, P_INCR, P_RAISE };
enum rstate { R_PENDING, R_OK, R_NO, R_FAILED };

typedef struct client {
    int state, phase, call; /* call: id of the current fan-out, replies of others are dropped */
    int ops_left;
    int op;                 /* current lock() call (index into ops) */
    int res[MAXN];
    int64_t val[MAXN];
    int64_t m;
    int trust[MAXN];       /* restarts: the incarnation whose INCR answers count */
    int incr_inc[MAXN];    /* the incarnation phase (1) of this call met, if past its grace then, else -1 */
} client;

typedef struct op {
    int client, token;
    long start, end;        /* logical time of the call and of its return */
    int ok;
    int64_t fence;
} op;

typedef struct world {
    int n, c, variant;
    int holder[MAXN];       /* token holding the key, 0 = none */
    int64_t counter[MAXN];
    int inc[MAXN];          /* incarnation: bumped by a restart */
    long restart_at[MAXN];  /* logical time of its last restart, -1 none */
    int w_restart;
    msg net[MAXMSG];
    int nmsg;
    client cl[MAXC];
    op ops[MAXOPS];
    int nops;
    long now;
    int calls;
    int w_timeout, w_expire, w_drop, slow_pct;
    char *trace;
    size_t tlen;
    int tlines;
} world;

/* ---- xorshift64*: fixed seed, reproducible ---- */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static int rnd_below(int n) { return (int)(rnd() % (uint64_t)n); }

static int quorum(int n) { return rl_quorum(n); }

struct world;
static int graced(const struct world *w, int i);

static void tracef(world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tracef(world *w, const char *fmt, ...)
{
    if (!w->trace || w->tlines >= TRACE_MAX) return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    int l = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (l < 0) return;
    if ((size_t)l >= sizeof(line)) l = sizeof(line) - 1;
    memcpy(w->trace + w->tlen, line, (size_t)l);
    w->tlen += (size_t)l;
    w->trace[w->tlen++] = '\n';
    w->trace[w->tlen] = '\0';
    w->tlines++;
}

static void send_all(world *w, int ci, int type, int64_t arg)
{
    client *c = &w->cl[ci];
    c->call = ++w->calls;
    for (int i = 0; i < w->n; i++) {
        if (w->nmsg >= MAXMSG) abort(); /* bounded by construction: OPS*phases*n per client */
        msg *m = &w->net[w->nmsg++];
        memset(m, 0, sizeof(*m));
        m->type = type;
        m->client = ci;
        m->call = c->call;
        m->node = i;
        m->token = w->ops[c->op].token;
        m->arg = arg;
        m->w = rnd_below(100) < w->slow_pct ? 1 : 20;
        c->res[i] = R_PENDING;
        c->val[i] = 0;
    }
}

/* past its grace: every lock() begun before its restart has returned */
static int graced(const world *w, int i)
{
    if (w->restart_at[i] < 0) return 1;
    for (int o = 0; o < w->nops; o++)
        if (w->ops[o].start < w->restart_at[i] && w->ops[o].end < 0) return 0;
    return 1;
}

static void lock_start(world *w, int ci)
{
    client *c = &w->cl[ci];
    op *o = &w->ops[w->nops];
    o->client = ci;
    o->token = w->nops + 1;
    o->start = w->now;
    o->end = -1;
    o->ok = 0;
    o->fence = 0;
    c->op = w->nops++;
    c->state = C_WAIT;
    c->phase = P_SET;
    tracef(w, "t=%ld client %d: lock() starts (token %d)", w->now, ci, o->token);
    int inset = w->variant == V_INCR_IN_SET || w->variant == V_INCR_IN_SET_RAISE;
    send_all(w, ci, inset ? M_SETINCR : M_SET, 0);
}

static void lock_end(world *w, int ci, int ok, int64_t fence)
{
    client *c = &w->cl[ci];
    op *o = &w->ops[c->op];
    o->end = w->now;
    o->ok = ok;
    o->fence = fence;
    if (ok) {
        c->state = C_HOLD;
        tracef(w, "t=%ld client %d: lock() returns, fence %" PRId64, w->now, ci, fence);
    } else {
        /* a failed attempt releases on all nodes; the replies are not awaited */
        tracef(w, "t=%ld client %d: lock() fails, releases", w->now, ci);
        send_all(w, ci, M_REL, 0);
        c->ops_left--;
        c->state = c->ops_left > 0 ? C_IDLE : C_DONE;
    }
}

/* the client's answers as the core's results: a SET's OK or nil; an INCR's
 * integer (an answer the trust rule refuses: nil); a raise's integer */
static void as_results(const client *c, int n, rl_result *r)
{
    for (int i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        r[i].state = c->res[i] == R_PENDING ? RL_PENDING : c->res[i] == R_FAILED ? RL_FAILED : RL_ANSWERED;
        if (r[i].state != RL_ANSWERED) continue;
        rl_reply *y = &r[i].reply;
        if (c->phase == P_RAISE || (c->phase == P_INCR && c->res[i] == R_OK)) {
            y->type = RL_REPLY_INTEGER;
            y->integer = c->val[i];
        } else if (c->phase == P_SET && c->res[i] == R_OK) {
            y->type = RL_REPLY_STATUS;
            y->len = 2;
            memcpy(y->str, "OK", 2);
        } else {
            y->type = RL_REPLY_NIL;
        }
    }
}

/* the client's decision after a node outcome: the core's, decided at quorum */
static void decide(world *w, int ci)
{
    client *c = &w->cl[ci];
    int ok = 0, q = quorum(w->n);
    int64_t max = 0;
    rl_result r[MAXN];
    as_results(c, w->n, r);
    int decided = c->phase == P_SET    ? rl_decide_set(r, w->n)
                  : c->phase == P_INCR ? rl_fence_incr_decided(NULL, r, w->n)
                                       : rl_fence_raise_decided(c->m, r, w->n);
    if (!decided) return;
    for (int i = 0; i < w->n; i++) {
        if (c->res[i] == R_OK) {
            ok++;
            if (c->val[i] > max) max = c->val[i];
        }
    }
    if (c->phase == P_INCR) max = rl_fence_m(r, w->n);
    if (ok < q) {
        lock_end(w, ci, 0, 0);
        return;
    }
    switch (c->phase) {
    case P_SET:
        if (w->variant == V_INCR_IN_SET) {
            lock_end(w, ci, 1, max);
        } else if (w->variant == V_INCR_IN_SET_RAISE) {
            c->m = max;
            c->phase = P_RAISE;
            send_all(w, ci, M_RAISE, c->m);
        } else {
            c->phase = P_INCR;
            for (int i = 0; i < w->n; i++) c->incr_inc[i] = graced(w, i) ? w->inc[i] : -1;
            send_all(w, ci, M_INCR, 0);
        }
        break;
    case P_INCR:
        c->m = max;
        if (w->variant == V_NO_RAISE) {
            lock_end(w, ci, 1, max);
        } else {
            c->phase = P_RAISE;
            send_all(w, ci, M_RAISE, c->m);
        }
        break;
    case P_RAISE:
        lock_end(w, ci, 1, c->m);
        break;
    }
}

/* restarts: does this INCR answer count, and does this confirmed raise make
 * its incarnation trusted? */
static int incr_counts(const world *w, const client *c, const msg *m)
{
    if (w->variant == V_RESTART_NO_RAISE) return m->inc == 0 || m->inc == c->incr_inc[m->node];
    return !has_restarts(w->variant) || w->variant == V_RESTART_NAIVE || m->inc == c->trust[m->node];
}

static void raise_confirmed(const world *w, client *c, const msg *m)
{
    if (w->variant == V_RESTART_ANY_RAISE || (w->variant == V_RESTART && m->inc == c->incr_inc[m->node]))
        c->trust[m->node] = m->inc;
}

/* a node runs one request atomically and answers */
static void node_exec(world *w, msg *m)
{
    int i = m->node;
    m->reply = 1;
    m->inc = w->inc[i];
    switch (m->type) {
    case M_SET:
    case M_SETINCR:
        m->ok = w->holder[i] == 0;
        if (m->ok) {
            w->holder[i] = m->token;
            if (m->type == M_SETINCR) m->val = ++w->counter[i];
        }
        tracef(w, "t=%ld node %d: %s token %d -> %s%s (counter %" PRId64 ")", w->now, i, mtype_name[m->type], m->token,
               m->ok ? "OK" : "nil", "", w->counter[i]);
        break;
    case M_INCR:
        m->val = ++w->counter[i];
        m->ok = 1;
        tracef(w, "t=%ld node %d: INCR (token %d) -> %" PRId64, w->now, i, m->token, m->val);
        break;
    case M_RAISE:
        if (w->counter[i] < m->arg) w->counter[i] = m->arg;
        m->val = w->counter[i];
        m->ok = 1;
        tracef(w, "t=%ld node %d: RAISE to %" PRId64 " (token %d) -> %" PRId64, w->now, i, m->arg, m->token, m->val);
        break;
    case M_REL:
        if (w->holder[i] == m->token) w->holder[i] = 0;
        m->ok = 1;
        break;
    }
}

static void client_reply(world *w, const msg *m)
{
    client *c = &w->cl[m->client];
    if (m->type == M_REL || c->state != C_WAIT || m->call != c->call || c->res[m->node] != R_PENDING) return;
    int yes;
    switch (c->phase) {
    case P_SET: yes = m->ok; break;
    case P_INCR: yes = m->val >= 1 && incr_counts(w, c, m); break;
    default:
        yes = m->val >= c->m;
        if (yes) raise_confirmed(w, c, m);
        break;
    }
    c->res[m->node] = yes ? R_OK : R_NO;
    c->val[m->node] = m->val;
    decide(w, m->client);
}

/* one run; returns 1 when the guarantee was violated */
static int run(world *w)
{
    for (w->now = 0; w->now < MAXSTEPS; w->now++) {
        /* enabled events with weights: client steps 20 each, deliveries 20 each
         * (1 for a slow message), a timeout per pending node w_timeout, an expiry
         * per held key w_expire, a lost request (never reaches its node) w_drop */
        long total = 0;
        int nc_step = 0;
        for (int ci = 0; ci < w->c; ci++) nc_step += w->cl[ci].state == C_IDLE || w->cl[ci].state == C_HOLD;
        int npend = 0;
        for (int ci = 0; ci < w->c; ci++)
            if (w->cl[ci].state == C_WAIT)
                for (int i = 0; i < w->n; i++) npend += w->cl[ci].res[i] == R_PENDING;
        int nheld = 0;
        for (int i = 0; i < w->n; i++) nheld += w->holder[i] != 0;
        long wmsg = 0;
        int nreq = 0;
        for (int k = 0; k < w->nmsg; k++) {
            wmsg += w->net[k].w;
            nreq += !w->net[k].reply;
        }
        /* a restart: of a node past its grace, while fewer than n - q others are within theirs */
        int ngrace = 0, nrestartable = 0;
        if (has_restarts(w->variant)) {
            for (int i = 0; i < w->n; i++) ngrace += !graced(w, i);
            if (ngrace < w->n - quorum(w->n))
                for (int i = 0; i < w->n; i++) nrestartable += graced(w, i);
        }
        total = 20L * nc_step + wmsg + (long)w->w_timeout * npend + (long)w->w_expire * nheld + (long)w->w_drop * nreq +
                (long)w->w_restart * nrestartable;
        if (nc_step == 0 && w->nmsg == 0 && npend == 0) break; /* all done */
        if (total == 0) break;
        long r = (long)(rnd() % (uint64_t)total);
        if (r < 20L * nc_step) {
            int k = (int)(r / 20);
            for (int ci = 0; ci < w->c; ci++) {
                if (!(w->cl[ci].state == C_IDLE || w->cl[ci].state == C_HOLD)) continue;
                if (k-- > 0) continue;
                if (w->cl[ci].state == C_IDLE) {
                    lock_start(w, ci);
                } else {
                    tracef(w, "t=%ld client %d: release (token %d)", w->now, ci, w->ops[w->cl[ci].op].token);
                    send_all(w, ci, M_REL, 0);
                    w->cl[ci].ops_left--;
                    w->cl[ci].state = w->cl[ci].ops_left > 0 ? C_IDLE : C_DONE;
                }
                break;
            }
            continue;
        }
        r -= 20L * nc_step;
        if (r < wmsg) {
            int k = 0;
            while (r >= w->net[k].w) r -= w->net[k++].w;
            msg m = w->net[k];
            w->net[k] = w->net[--w->nmsg];
            if (!m.reply) {
                node_exec(w, &m);
                if (w->nmsg >= MAXMSG) abort();
                w->net[w->nmsg++] = m; /* the reply travels back, with its own delay */
            } else {
                client_reply(w, &m);
            }
            continue;
        }
        r -= wmsg;
        if (r < (long)w->w_drop * nreq) {
            int k = (int)(r / w->w_drop);
            for (int j = 0; j < w->nmsg; j++) {
                if (w->net[j].reply || k-- > 0) continue;
                tracef(w, "t=%ld %s (token %d) to node %d is lost", w->now, mtype_name[w->net[j].type], w->net[j].token,
                       w->net[j].node);
                w->net[j] = w->net[--w->nmsg];
                break;
            }
            continue;
        }
        r -= (long)w->w_drop * nreq;
        if (r < (long)w->w_timeout * npend) {
            int k = (int)(r / w->w_timeout);
            for (int ci = 0; ci < w->c; ci++) {
                if (w->cl[ci].state != C_WAIT) continue;
                for (int i = 0; i < w->n; i++) {
                    if (w->cl[ci].res[i] != R_PENDING || k-- > 0) continue;
                    /* the client stops waiting; the request may still land later */
                    w->cl[ci].res[i] = R_FAILED;
                    tracef(w, "t=%ld client %d: node %d timed out", w->now, ci, i);
                    decide(w, ci);
                    goto next;
                }
            }
            continue;
        }
        r -= (long)w->w_timeout * npend;
        if (r < (long)w->w_restart * nrestartable) {
            int k = (int)(r / w->w_restart);
            for (int i = 0; i < w->n; i++) {
                if (!graced(w, i) || k-- > 0) continue;
                w->holder[i] = 0;
                w->counter[i] = 0;
                w->inc[i]++;
                w->restart_at[i] = w->now;
                tracef(w, "t=%ld node %d: restarts empty (incarnation %d)", w->now, i, w->inc[i]);
                break;
            }
            continue;
        }
        r -= (long)w->w_restart * nrestartable;
        if (w->w_expire > 0) {
            int k = (int)(r / w->w_expire);
            for (int i = 0; i < w->n; i++) {
                if (w->holder[i] == 0 || k-- > 0) continue;
                tracef(w, "t=%ld node %d: key of token %d expires", w->now, i, w->holder[i]);
                w->holder[i] = 0;
                break;
            }
        }
    next:;
    }
    /* the guarantee */
    int bad = 0;
    for (int a = 0; a < w->nops; a++) {
        const op *A = &w->ops[a];
        if (!A->ok) continue;
        if (A->fence <= 0) bad = 1;
        for (int b = 0; b < w->nops; b++) {
            const op *B = &w->ops[b];
            if (!B->ok || B->start <= A->end) continue;
            if (B->fence <= A->fence) {
                {
                    tracef(w, "VIOLATION: token %d (client %d) returned fence %" PRId64 " at t=%ld; token %d (client %d) "
                              "started at t=%ld and got fence %" PRId64,
                           A->token, A->client, A->fence, A->end, B->token, B->client, B->start, B->fence);
                }
                bad = 1;
            }
        }
    }
    return bad;
}

static void world_init(world *w, int n, int c, int variant, char *trace)
{
    memset(w, 0, sizeof(*w));
    w->n = n;
    w->c = c;
    w->variant = variant;
    for (int ci = 0; ci < c; ci++) {
        w->cl[ci].state = C_IDLE;
        w->cl[ci].ops_left = OPS;
    }
    /* per run: how often clients give up and keys expire (0 = never) */
    w->w_timeout = rnd_below(4);
    w->w_expire = rnd_below(4);
    w->w_drop = rnd_below(4);
    w->slow_pct = rnd_below(5) * 10;
    for (int i = 0; i < n; i++) w->restart_at[i] = -1;
    w->w_restart = has_restarts(variant) ? 1 + rnd_below(4) : 0;
    w->trace = trace;
    if (trace) trace[0] = '\0';
}

int main(int argc, char **argv)
{
    long runs = argc > 1 ? atol(argv[1]) : 10000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20240601u;
    if (runs < 1 || runs > 10000000) runs = 10000;
    static char trace[TRACE_MAX * 160 + 1];
    static char best[NVARIANTS][TRACE_MAX * 160 + 64];
    int best_lines[NVARIANTS];
    long viol[NVARIANTS][MAXN + 1];
    for (int v = 0; v < NVARIANTS; v++) best_lines[v] = TRACE_MAX + 1;
    memset(viol, 0, sizeof(viol));
    int passed = 0, failed = 0;

    printf("fence model: %ld runs per configuration, seed %" PRIu64 ", %d lock() calls per client, <= %d steps per run\n",
           runs, seed, OPS, MAXSTEPS);
    printf("%-18s %5s %7s %10s %12s %10s\n", "variant", "nodes", "clients", "runs", "violations", "locks ok");
    for (int v = 0; v < NVARIANTS; v++) {
        for (int n = 3; n <= 5; n += 2) {
            for (int c = 2; c <= 3; c++) {
                /* the same seed for every variant: the same adversary */
                rng_state = seed ^ ((uint64_t)n << 32) ^ ((uint64_t)c << 40);
                if (!rng_state) rng_state = 1;
                long bad = 0, oks = 0;
                for (long k = 0; k < runs; k++) {
                    world w;
                    uint64_t saved = rng_state;
                    world_init(&w, n, c, v, NULL);
                    int violated = run(&w);
                    for (int o = 0; o < w.nops; o++) oks += w.ops[o].ok;
                    if (violated) {
                        bad++;
                        /* replay the run with a trace, keep the shortest */
                        uint64_t after = rng_state;
                        rng_state = saved;
                        world_init(&w, n, c, v, trace);
                        run(&w);
                        rng_state = after;
                        if (w.tlines < best_lines[v]) {
                            best_lines[v] = w.tlines;
                            snprintf(best[v], sizeof(best[v]), "(%d nodes, %d clients)\n%s", n, c, trace);
                        }
                    }
                }
                viol[v][n] += bad;
                printf("%-18s %5d %7d %10ld %12ld %10ld\n", variant_name[v], n, c, runs, bad, oks);
            }
        }
    }
    printf("\n");
    for (int v = 0; v < NVARIANTS; v++) {
        for (int n = 3; n <= 5; n += 2) {
            const char *verdict;
            if (variant_broken[v] < 0) {
                verdict = "information only";
            } else if (variant_broken[v] == 0) {
                verdict = viol[v][n] == 0 ? "PASS (no violation)" : "FAIL (the protocol violates the guarantee)";
                viol[v][n] == 0 ? passed++ : failed++;
            } else {
                verdict = viol[v][n] > 0 ? "PASS (caught)" : "FAIL (broken variant not caught: the check is too weak)";
                viol[v][n] > 0 ? passed++ : failed++;
            }
            printf("%-18s %d nodes: %ld counterexamples: %s\n", variant_name[v], n, viol[v][n], verdict);
        }
    }
    for (int v = 0; v < NVARIANTS; v++) {
        if (best_lines[v] > TRACE_MAX) continue;
        printf("\nshortest counterexample, %s %s", variant_name[v], best[v]);
    }
    printf("\n%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
