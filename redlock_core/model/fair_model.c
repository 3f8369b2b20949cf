/* fair_model.c -- randomized explorer of fair waiting's queue (docs/api.md "Fair waiting",
 * HACKING.md "Fair waiting").
 *
 * A model of the protocol whose decisions are the core's: an attempt is decided
 * by rl_fair_decided (a first attempt: decide_fair) or rl_decide_set (with a
 * ticket), the ticket is rl_fair_ticket's (fair_ticket), the nodes a failed
 * attempt's cleanup goes to rl_cleanup_skip's (acq_cleanup_mask), the quorum
 * rl_quorum's (linked with the core objects), so a bug there fails this check. N nodes (3, 5), C clients (3, 4), one
 * resource; every client runs OPS (2) fair lock() calls: lock, hold, release. Each
 * request and reply is a message on the FIFO channel of one (client, node) pair,
 * channels are served in any interleaving, so a node may run a request long after
 * the client decided without it (a timeout). Per node: the key's owner, the queue
 * (entry -> ticket, ordered by (ticket, id)) and the counter. A lock() call:
 *   ticket attempt  the node sets the key when its queue is empty and the key is
 *                   free (OK), else answers INCR counter; decided as decide_fair
 *                   (a quorum of OKs wins, or a quorum of believed integers, or
 *                   all answered); the nodes that did not refuse are released;
 *                   with a quorum of believed integers the ticket T is their
 *                   highest (fair_ticket), else the ticket attempt is made again
 *                   later. Believed as the fence counter's (lock/rl_fence.c
 *                   rl_incr_believed): below 2^53, and not one node's answer
 *                   more than 2^24 above every other one's
 *   attempt(T)      the node writes our entry (T), raises its counter to T, and sets
 *                   the key when our entry is first and the key is free; the entry
 *                   stays (a win on a minority keeps the place). A quorum of OKs
 *                   wins, the leave then goes to every node; else the nodes that did
 *                   not refuse are released and attempt(T) is made again at any
 *                   later moment (the wake-up, or the retry timer)
 *   give up         between two attempts: the leave to every node
 *   crash           the client sends nothing more; its entries and its key lapse on
 *                   each node later (the TTL: an action of its own), after its last
 *                   message there: each entry on its own (its deadline in k "\0qx"),
 *                   and every script that reads the queue prunes it first, so a
 *                   lapsed entry is gone for all, whatever the queue's keys' PX.
 *                   A live waiter's entry never lapses (it renews).
 *   damage          (half the runs, from the start) one node's counter is 2^30
 *                   or 2^53 and more (a damaged or hostile node:
 *                   tests/fair/counter_outlier.phpt sets 9e18)
 * A run: a random phase of 1..RANDOM_STEPS steps (the faults allowed in it chosen
 * per run: crashes, give-ups, timeouts; one connection in P_SLOW slow), then a calm
 * phase (no fault; a client retries once its requests are out) that must finish
 * every call within CALM_STEPS.
 *
 * Checked after every step: at most one holder (the RedLock quorum rule); FIFO: a
 * client B that wins while a live client A waits in a call it has not given up, an
 * attempt(T) of A's call having run on a quorum of nodes ("queued") before B's call
 * asked (its first ticket attempt), is a violation; so is B taking a ticket that is
 * not above A's then (the order that B's win would break later). At the end of the calm phase: a live
 * client whose call has not finished is a stuck queue.
 *
 * Variants:
 *   quorum-max       T = the highest of a quorum of answers, counters raised to T,
 *                    the entry kept until the leave (lock/rl_acquire.c)  -- must never violate
 *   no-raise         the same without raising the counters       -- must be caught
 *   minority-ticket  T = the first integer answer (one node's)   -- must be caught
 *   local-ticket     no common ticket: each node gives an entry its own next
 *                    counter value (orders by its own arrivals)  -- must be caught
 *                    (as a stuck queue: FIFO as checked holds, a node's values
 *                    grow with its arrivals; concurrent waiters first on
 *                    different nodes, none on a quorum, wait for ever)
 *   drop-on-set      a node that sets the key for a waiter removes its entry at
 *                    once: a win on a minority, released again, costs the waiter
 *                    its place there                             -- must be caught
 *   outlier-short    the damaged node's answer is left out of T but counts for
 *                    the quorum of integers: T from fewer than a quorum, which
 *                    may miss every node of an earlier waiter's quorum
 *                                                                -- must be caught
 *
 * Randomized with a fixed seed, bounded runs and steps: reproducible. Prints the
 * counterexamples per variant and configuration (one verdict each), the shortest of
 * each broken variant, and "N passed, N failed"; exits non-zero when quorum-max has
 * a violation or a broken variant has none in some configuration.
 *
 * Usage: fair_model [runs-per-configuration] [seed]   (defaults 10000, 20261203) */
#include "rl_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 5
#define MAXC 4
#define OPS 2 /* lock() calls per client */
#define QCAP 16
#define RANDOM_STEPS 500 /* the random phase lasts 1..RANDOM_STEPS steps */
#define CALM_STEPS 4000
#define TRACE_MAX 60
/* the scheduler's weights: a message on a fast or a slow connection (one in P_SLOW
 * is slow, per run), a client's next step, a timeout, a give-up */
#define W_FAST 10
#define W_SLOW 1
#define P_SLOW 3
#define W_ACT 12
#define W_TIMEOUT 1
#define W_GIVEUP 1
#define TRACE_W 100

enum { V_QMAX, V_NORAISE, V_MINORITY, V_LOCAL, V_DROP, V_SHORT, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"quorum-max",  "no-raise",      "minority-ticket", "local-ticket",
                                              "drop-on-set", "outlier-short"};
static const int variant_broken[NVARIANTS] = {0, 1, 1, 1, 1, 1};
/* the fence counter's outlier rule (lock/rl_fence.c) */
#define LIMIT (1L << 53)
#define JUMP (1L << 24)

enum { M_ASK, M_TRY, M_REL, M_LEAVE, M_OK, M_INT, M_NIL };
typedef struct msg {
    int kind;
    int seq, call; /* the attempt (a reply answers it), the lock() call */
    long v;        /* M_TRY: the ticket; M_INT: the counter */
} msg;
typedef struct chan {
    msg q[QCAP];
    int head, len;
} chan;

/* IDLE: between calls; ASK, TRY: an attempt in flight; BACK: between attempts */
enum { C_IDLE, C_ASK, C_TRY, C_BACK, C_HOLD, C_DONE, C_CRASHED };
enum { R_PENDING, R_OK, R_INT, R_NIL };
typedef struct client {
    int state, ops_left, seq, call;
    long ticket;    /* 0: none yet */
    int ans[MAXN];  /* the current attempt's answers */
    long val[MAXN]; /* the integers */
    int first_int;  /* node of the first integer answer (-1 none) */
    int asked_at;   /* step of the call's first ticket attempt */
    int ran;        /* nodes that ran an attempt(T) of the call (a mask) */
    int queued_at;  /* step the call's attempt(T) had run on a quorum (-1 not yet) */
} client;

typedef struct world {
    int n, c, q, variant, step, calm;
    int violation;                 /* 1 two holders, 2 FIFO, 3 stuck */
    int giveups, crashy, timeouts; /* per run: the faults allowed (random phase) */
    int slow[MAXC][MAXN];          /* per run: each connection's weight */
    int owner[MAXN];               /* client + 1, 0 free */
    long counter[MAXN];
    long entry[MAXN][MAXC]; /* the queue: ticket, 0 no entry */
    chan up[MAXC][MAXN], down[MAXC][MAXN];
    client cl[MAXC];
    int progress; /* the last step that changed a queue or won */
    long wins, crashes, gaveup, timedout;
    int tracing, tlines;
    char trace[TRACE_MAX][TRACE_W]; /* the last TRACE_MAX lines (a ring) */
} world;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int below(int k) { return (int)(rnd() % (uint64_t)k); }

static void tr(world *w, const char *fmt, ...)
{
    if (!w->tracing) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->trace[w->tlines++ % TRACE_MAX], TRACE_W, fmt, ap);
    va_end(ap);
}

static void push(chan *ch, int kind, int seq, int call, long v)
{
    if (ch->len >= QCAP) abort(); /* (never: a client acts only with room both ways) */
    ch->q[(ch->head + ch->len++) % QCAP] = (msg){kind, seq, call, v};
}
static msg pop(chan *ch)
{
    msg m = ch->q[ch->head];
    ch->head = (ch->head + 1) % QCAP;
    ch->len--;
    return m;
}

/* the queue's first on node i: smallest (ticket, client); -1 empty */
static int head(const world *w, int i)
{
    int h = -1;
    for (int k = 0; k < w->c; k++)
        if (w->entry[i][k] && (h < 0 || w->entry[i][k] < w->entry[i][h])) h = k;
    return h;
}

static void send_all(world *w, int k, int kind, long v)
{
    for (int i = 0; i < w->n; i++) push(&w->up[k][i], kind, w->cl[k].seq, w->cl[k].call, v);
}

static int waiting(const client *c) { return c->state == C_ASK || c->state == C_TRY || c->state == C_BACK; }

/* node i runs client k's next request */
static void serve(world *w, int k, int i)
{
    msg m = pop(&w->up[k][i]);
    client *c = &w->cl[k];
    int h = head(w, i), free = w->owner[i] == 0;
    switch (m.kind) {
    case M_ASK:
        if ((h < 0 || h == k) && free) {
            w->owner[i] = k + 1;
            w->entry[i][k] = 0;
            push(&w->down[k][i], M_OK, m.seq, m.call, 0);
            tr(w, "n%d runs c%d ticket attempt: OK", i, k);
        } else {
            push(&w->down[k][i], M_INT, m.seq, m.call, ++w->counter[i]);
            tr(w, "n%d runs c%d ticket attempt: %ld", i, k, w->counter[i]);
        }
        break;
    case M_TRY:
        if (!w->entry[i][k]) w->progress = w->step;
        if (w->variant == V_LOCAL) {
            if (!w->entry[i][k]) w->entry[i][k] = ++w->counter[i];
        } else {
            w->entry[i][k] = m.v;
            if (w->variant != V_NORAISE && w->counter[i] < m.v) w->counter[i] = m.v;
        }
        if (waiting(c) && m.call == c->call) { /* (not one of an earlier call, still on its way) */
            int e = 0;
            c->ran |= 1 << i;
            for (int j = 0; j < w->n; j++) e += c->ran >> j & 1;
            if (c->queued_at < 0 && e >= w->q) c->queued_at = w->step;
        }
        h = head(w, i);
        if (h == k && free) {
            w->owner[i] = k + 1;
            if (w->variant == V_DROP) w->entry[i][k] = 0;
            push(&w->down[k][i], M_OK, m.seq, m.call, 0);
        } else {
            push(&w->down[k][i], M_NIL, m.seq, m.call, 0);
        }
        tr(w, "n%d runs c%d attempt(%ld) (entry %ld, counter %ld): %s", i, k, m.v, w->entry[i][k], w->counter[i],
           h == k && free ? "OK" : "nil");
        break;
    case M_REL:
        if (w->owner[i] == k + 1) w->owner[i] = 0;
        tr(w, "n%d runs c%d release", i, k);
        break;
    case M_LEAVE:
        if (w->entry[i][k]) w->progress = w->step;
        w->entry[i][k] = 0;
        tr(w, "n%d runs c%d leave", i, k);
        break;
    }
}

static void win(world *w, int k)
{
    client *c = &w->cl[k];
    c->state = C_HOLD;
    w->wins++;
    w->progress = w->step;
    if (c->ticket) send_all(w, k, M_LEAVE, 0);
    tr(w, "c%d holds (ticket %ld)", k, c->ticket);
    int holders = 0;
    for (int j = 0; j < w->c; j++) holders += w->cl[j].state == C_HOLD;
    if (holders > 1 && !w->violation) {
        w->violation = 1;
        tr(w, "VIOLATION: %d holders", holders);
    }
    for (int j = 0; j < w->c && !w->violation; j++) {
        const client *a = &w->cl[j];
        if (j != k && waiting(a) && a->queued_at >= 0 && a->queued_at < c->asked_at) {
            w->violation = 2;
            tr(w, "VIOLATION (FIFO): c%d wins, c%d queued at step %d, before c%d asked (step %d)", k, j, a->queued_at,
               k, c->asked_at);
        }
    }
}

/* outlier-short's T (the core takes it from rl_incr_believed through
 * rl_fair_ticket): of client c's integer answers, those below LIMIT and not the
 * one more than JUMP above every other; how many, their largest in *top */
static int believed(const world *w, const client *c, long *top)
{
    int out = -1, answers = 0, k = 0;
    long a1 = 0, a2 = 0;
    for (int i = 0; i < w->n; i++) {
        long v = c->val[i];
        if (c->ans[i] != R_INT || v < 1 || v >= LIMIT) continue;
        answers++;
        if (out < 0 || v > a1) {
            a2 = a1;
            a1 = v;
            out = i;
        } else if (v > a2) {
            a2 = v;
        }
    }
    if (answers < 2 || a1 - a2 <= JUMP) out = -1;
    *top = 0;
    for (int i = 0; i < w->n; i++) {
        if (i == out || c->ans[i] != R_INT || c->val[i] < 1 || c->val[i] >= LIMIT) continue;
        k++;
        if (c->val[i] > *top) *top = c->val[i];
    }
    return k;
}

/* FIFO, checked where it is decided: a ticket taken after a waiter's entry was on a
 * quorum is above that waiter's ticket (HACKING.md "One order on all nodes"), or it
 * goes before it on every node that holds both. (Not for local-ticket: its nodes
 * ignore the ticket.) */
static void ticket_order(world *w, int k)
{
    const client *b = &w->cl[k];
    for (int j = 0; j < w->c && !w->violation && w->variant != V_LOCAL; j++) {
        const client *a = &w->cl[j];
        if (j == k || !waiting(a) || !a->ticket || a->queued_at < 0 || a->queued_at >= b->asked_at) continue;
        if (b->ticket > a->ticket) continue;
        w->violation = 2;
        tr(w, "VIOLATION (FIFO): c%d's ticket %ld, not above c%d's %ld (queued at step %d, before c%d asked: step %d)", k,
           b->ticket, j, a->ticket, a->queued_at, k, b->asked_at);
    }
}

/* client k's decision on its answers so far; final: the pending ones count as failed */
static void decide(world *w, int k, int final)
{
    client *c = &w->cl[k];
    int ok = 0, ints = 0;
    for (int i = 0; i < w->n; i++) {
        ok += c->ans[i] == R_OK;
        ints += c->ans[i] == R_INT;
    }
    /* the core's: the answers as the acquire script's (OK, the counter, nil) */
    rl_result r[MAXN];
    for (int i = 0; i < w->n; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        r[i].state = c->ans[i] != R_PENDING ? RL_ANSWERED : final ? RL_FAILED : RL_PENDING;
        rl_reply *y = &r[i].reply;
        y->type = c->ans[i] == R_OK ? RL_REPLY_STATUS : c->ans[i] == R_INT ? RL_REPLY_INTEGER : RL_REPLY_NIL;
        y->integer = c->val[i];
        if (c->ans[i] == R_OK) {
            y->len = 2;
            memcpy(y->str, "OK", 2);
        }
    }
    /* outlier-short (not the core's rule): decided on a quorum of integers, the
     * outlier counted, T the highest of the believed ones */
    long top = 0;
    int shortq = w->variant == V_SHORT && c->state == C_ASK && ints >= w->q && believed(w, c, &top) > 0;
    if (!final && !shortq && !(c->state == C_ASK ? rl_fair_decided(r, w->n) : rl_decide_set(r, w->n))) return;
    if (ok >= w->q) {
        win(w, k);
        return;
    }
    /* the cleanup: every node that did not refuse (a late answer may set the
     * key), as the core's rl_cleanup_skip tells */
    for (int i = 0; i < w->n; i++) r[i].sent = 1;
    uint64_t skip = rl_cleanup_skip(r, w->n);
    for (int i = 0; i < w->n; i++)
        if (!(skip >> i & 1)) push(&w->up[k][i], M_REL, c->seq, c->call, 0);
    if (c->state == C_ASK && ints >= w->q) {
        c->ticket = w->variant == V_MINORITY ? c->val[c->first_int] : w->variant == V_SHORT ? top : rl_fair_ticket(r, w->n);
        if (c->ticket) ticket_order(w, k);
    }
    tr(w, "c%d fails%s (%d OK, %d integers): ticket %ld", k, final ? " (timeout)" : "", ok, ints, c->ticket);
    c->state = C_BACK;
}

/* client k reads the next reply from node i */
static void reply(world *w, int k, int i)
{
    msg m = pop(&w->down[k][i]);
    client *c = &w->cl[k];
    if ((c->state != C_ASK && c->state != C_TRY) || m.seq != c->seq || c->ans[i] != R_PENDING) return;
    c->ans[i] = m.kind == M_OK ? R_OK : m.kind == M_INT ? R_INT : R_NIL;
    c->val[i] = m.v;
    if (m.kind == M_INT && c->first_int < 0) c->first_int = i;
    decide(w, k, 0);
}

/* an attempt: the ticket attempt while there is no ticket, else attempt(T) */
static void attempt(world *w, int k)
{
    client *c = &w->cl[k];
    c->seq++;
    c->first_int = -1;
    for (int i = 0; i < w->n; i++) c->ans[i] = R_PENDING;
    c->state = c->ticket ? C_TRY : C_ASK;
    tr(w, c->ticket ? "c%d attempt(%ld)" : "c%d ticket attempt", k, c->ticket);
    send_all(w, k, c->ticket ? M_TRY : M_ASK, c->ticket);
}

static void end_call(client *c) { c->state = --c->ops_left > 0 ? C_IDLE : C_DONE; }

enum { A_SERVE, A_READ, A_ACT, A_TIMEOUT, A_GIVEUP, A_CRASH, A_EXPIRE };
typedef struct act {
    int kind, k, i, weight;
} act;

/* the enabled actions and their weights */
static int enabled(const world *w, act *out)
{
    int m = 0;
    for (int k = 0; k < w->c; k++) {
        const client *c = &w->cl[k];
        int room = 1, empty = 1;
        for (int i = 0; i < w->n; i++) {
            if (w->up[k][i].len) out[m++] = (act){A_SERVE, k, i, w->slow[k][i]};
            if (w->down[k][i].len) out[m++] = (act){A_READ, k, i, w->slow[k][i]};
            if (c->state == C_CRASHED && !w->up[k][i].len && (w->entry[i][k] || w->owner[i] == k + 1))
                out[m++] = (act){A_EXPIRE, k, i, 3};
            room &= w->up[k][i].len + w->down[k][i].len <= QCAP - 4; /* (each request may add a reply) */
            empty &= !w->up[k][i].len;
        }
        /* calm: a client retries once its requests are out (the release fanout) */
        if (room && (c->state == C_IDLE || c->state == C_HOLD || (c->state == C_BACK && (!w->calm || empty))))
            out[m++] = (act){A_ACT, k, 0, W_ACT};
        if (w->calm) continue;
        if ((c->state == C_ASK || c->state == C_TRY) && w->timeouts) out[m++] = (act){A_TIMEOUT, k, 0, W_TIMEOUT};
        if (c->state == C_BACK && w->giveups) out[m++] = (act){A_GIVEUP, k, 0, W_GIVEUP};
    }
    return m;
}

static void run_act(world *w, act a)
{
    client *c = &w->cl[a.k];
    switch (a.kind) {
    case A_SERVE: serve(w, a.k, a.i); break;
    case A_READ: reply(w, a.k, a.i); break;
    case A_ACT:
        if (c->state == C_IDLE) {
            c->ticket = 0;
            c->call++;
            c->asked_at = w->step;
            c->queued_at = -1;
            c->ran = 0;
            attempt(w, a.k);
        } else if (c->state == C_BACK) {
            attempt(w, a.k);
        } else {
            tr(w, "c%d releases", a.k);
            send_all(w, a.k, M_REL, 0);
            end_call(c);
        }
        break;
    case A_TIMEOUT:
        w->timedout++;
        decide(w, a.k, 1);
        break;
    case A_GIVEUP:
        tr(w, "c%d gives up", a.k);
        w->gaveup++;
        if (c->ticket) send_all(w, a.k, M_LEAVE, 0);
        end_call(c);
        break;
    case A_CRASH:
        c->state = C_CRASHED;
        w->crashes++;
        tr(w, "c%d crashes", a.k);
        break;
    case A_EXPIRE:
        if (w->entry[a.i][a.k]) w->progress = w->step;
        w->entry[a.i][a.k] = 0;
        if (w->owner[a.i] == a.k + 1) w->owner[a.i] = 0;
        tr(w, "n%d: c%d's entry and key lapse", a.i, a.k);
        break;
    }
    w->step++;
}

static int finished(const world *w)
{
    for (int k = 0; k < w->c; k++)
        if (w->cl[k].state != C_DONE && w->cl[k].state != C_CRASHED) return 0;
    return 1;
}

/* one step; 0 when nothing is enabled */
static int step(world *w, act *acts)
{
    int m = enabled(w, acts), total = 0;
    if (!w->calm && w->crashy && w->crashes < w->c - 2 && below(RANDOM_STEPS / 2) == 0) {
        int k = below(w->c);
        if (w->cl[k].state != C_DONE && w->cl[k].state != C_CRASHED) {
            run_act(w, (act){A_CRASH, k, 0, 0});
            return 1;
        }
    }
    if (!m) return 0;
    for (int j = 0; j < m; j++) total += acts[j].weight;
    int r = below(total), j = 0;
    while (r >= acts[j].weight) r -= acts[j++].weight;
    run_act(w, acts[j]);
    return 1;
}

static void dump_nodes(world *w)
{
    for (int i = 0; i < w->n; i++) {
        char b[TRACE_W], o[16] = "-";
        if (w->owner[i]) snprintf(o, sizeof(o), "c%d", w->owner[i] - 1);
        int l = snprintf(b, sizeof(b), "n%d: owner %s, counter %ld, queue", i, o, w->counter[i]);
        long done = 0;
        for (int e = 0; e < w->c; e++) { /* in (ticket, id) order */
            int h = -1;
            for (int k = 0; k < w->c; k++)
                if (w->entry[i][k] && !(done >> k & 1) && (h < 0 || w->entry[i][k] < w->entry[i][h])) h = k;
            if (h < 0) break;
            done |= 1L << h;
            l += snprintf(b + l, sizeof(b) - (size_t)l, " c%d(%ld)", h, w->entry[i][h]);
        }
        tr(w, "%s", b);
    }
}

/* one run; returns the violation (0 none) and in *len its length: the step of the
 * violation, for a stuck queue the last step that changed a queue or won. Traced
 * (a replay), a stuck run's trace ends at that step (given in *len), then the
 * nodes' state at the end. */
static int one_run(world *w, int n, int nc, int variant, int tracing, int *len)
{
    memset(w, 0, offsetof(world, trace));
    w->n = n;
    w->c = nc;
    w->q = rl_quorum(n);
    w->variant = variant;
    w->tracing = tracing;
    w->giveups = below(2);
    w->crashy = below(2);
    w->timeouts = below(2);
    for (int k = 0; k < nc; k++) {
        w->cl[k].ops_left = OPS;
        for (int i = 0; i < n; i++) w->slow[k][i] = below(P_SLOW) ? W_FAST : W_SLOW;
    }
    if (below(2)) {
        int i = below(n);
        w->counter[i] = (below(2) ? LIMIT : 1L << 30) + below(1000);
        tr(w, "n%d's counter damaged: %ld", i, w->counter[i]);
    }
    act acts[MAXC * (3 * MAXN + 3)];
    int rsteps = 1 + below(RANDOM_STEPS);
    int until = tracing ? *len : -1;
    while (w->step < rsteps && !w->violation && !finished(w) && step(w, acts))
        if (w->step == until) w->tracing = 0;
    w->calm = 1;
    if (!w->violation && !finished(w)) tr(w, "(calm phase from here: no more crash, give-up or timeout)");
    while (w->step < rsteps + CALM_STEPS && !w->violation && !finished(w) && step(w, acts))
        if (w->step == until) w->tracing = 0;
    w->tracing = tracing;
    *len = w->step;
    if (!w->violation && !finished(w)) {
        *len = w->progress + 1;
        w->violation = 3;
        for (int k = 0; k < nc; k++)
            if (w->cl[k].state != C_DONE && w->cl[k].state != C_CRASHED)
                tr(w, "STUCK: c%d never finishes its call (%d calm steps)", k, w->step - rsteps);
        dump_nodes(w);
    }
    return w->violation;
}

int main(int argc, char **argv)
{
    long runs = argc > 1 ? atol(argv[1]) : 10000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261203u;
    if (runs < 1 || runs > 10000000) runs = 10000;
    static world w;
    static char best[NVARIANTS][TRACE_MAX * (TRACE_W + 1) + 160];
    int best_len[NVARIANTS], passed = 0, failed = 0;
    for (int v = 0; v < NVARIANTS; v++) best_len[v] = -1;
    printf("fair waiting model: %ld runs per configuration, seed %" PRIu64
           ", %d lock() calls per client, <= %d random + %d calm steps\n",
           runs, seed, OPS, RANDOM_STEPS, CALM_STEPS);
    for (int v = 0; v < NVARIANTS; v++) {
        for (int n = 3; n <= 5; n += 2)
            for (int c = 3; c <= 4; c++) {
                rng_state = seed ^ ((uint64_t)n << 32) ^ ((uint64_t)c << 40);
                if (!rng_state) rng_state = 1;
                long bad = 0, kinds[4] = {0}, wins = 0, faults[3] = {0};
                for (long r = 0; r < runs; r++) {
                    uint64_t saved = rng_state;
                    int len, x = one_run(&w, n, c, v, 0, &len);
                    wins += w.wins;
                    faults[0] += w.crashes;
                    faults[1] += w.gaveup;
                    faults[2] += w.timedout;
                    if (!x) continue;
                    bad++;
                    kinds[x]++;
                    if (best_len[v] >= 0 && len >= best_len[v]) continue;
                    /* replay it, traced */
                    uint64_t after = rng_state;
                    rng_state = saved;
                    one_run(&w, n, c, v, 1, &len);
                    rng_state = after;
                    best_len[v] = len;
                    int from = w.tlines > TRACE_MAX ? w.tlines - TRACE_MAX : 0, l = 0;
                    l += snprintf(best[v], sizeof(best[v]), "(%d nodes, %d clients, %d steps)\n", n, c, len);
                    if (from) l += snprintf(best[v] + l, sizeof(best[v]) - (size_t)l, "... (%d lines)\n", from);
                    for (int t = from; t < w.tlines; t++)
                        l += snprintf(best[v] + l, sizeof(best[v]) - (size_t)l, "%s\n", w.trace[t % TRACE_MAX]);
                }
                int ok = variant_broken[v] ? bad > 0 : bad == 0;
                if (wins == 0) ok = 0; /* no client ever won: the run proves nothing */
                ok ? passed++ : failed++;
                printf("%-15s %ld counterexamples in %ld runs, %d nodes, %d clients (two holders %ld, FIFO %ld, "
                       "stuck %ld; %ld wins, %ld crashes, %ld give-ups, %ld timeouts): %s\n",
                       variant_name[v], bad, runs, n, c, kinds[1], kinds[2], kinds[3], wins, faults[0], faults[1],
                       faults[2],
                       ok                  ? (variant_broken[v] ? "PASS (caught)" : "PASS (no violation)")
                       : wins == 0         ? "FAIL (no client ever won)"
                       : variant_broken[v] ? "FAIL (broken variant not caught: the check is too weak)"
                                           : "FAIL (the protocol violates the guarantee)");
            }
    }
    for (int v = 0; v < NVARIANTS; v++) {
        if (best_len[v] < 0) continue;
        printf("\nshortest counterexample, %s %s", variant_name[v], best[v]);
    }
    printf("\n%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
