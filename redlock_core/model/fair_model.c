/* fair_model.c -- randomized explorer of fair waiting's queue (API.md "Fair waiting",
 * HACKING.md "Fair waiting").
 *
 * Not the C core: a model of the protocol. N nodes (3, 5), C clients (3, 4), one
 * resource; each client locks (fair), holds and releases OPS times. Every request and reply
 * is a message on the FIFO channel of one (client, node) pair, and channels are
 * served in any interleaving. Per node: the key's owner, the queue (client ->
 * ticket, ordered by (ticket, client)) and the counter. A client:
 *   ticket attempt  the node sets the key when its queue is empty (or we are first)
 *                   and the key is free (OK), else answers its counter, incremented;
 *                   the client holds with a quorum of OKs, else takes its ticket T
 *                   from the answers (below), releases the nodes that said OK, and
 *   attempt(T)      the node writes our entry (T), raises its counter to T, and sets
 *                   the key when we are first and it is free (the entry stays); a
 *                   quorum of OKs holds (a leave goes to every node), else the OK nodes are released and
 *                   attempt(T) is sent again, at any later moment (the wake-up or
 *                   the retry timer).
 * A client may crash (at most one per run); its entries and its key expire on each
 * node later (the TTL), after its last message there. Live entries never lapse.
 *
 * Checked after every step: at most one holder; FIFO: a client that wins while
 * another live client had its entry on a quorum of nodes at once before the winner asked
 * is a violation. At the end of a run, a calm phase (no crash) must let every live
 * client finish within a bound, else the queue is stuck.
 *
 * Variants:
 *   quorum-max       T = the highest of a quorum of answers, counters raised to T
 *                                                          -- must never violate
 *   no-raise         the same without raising the counters -- must be caught
 *   minority-ticket  T = the first answer (one node's)     -- must be caught
 *   local-ticket     each node gives an entry its own next counter value (every
 *                    node orders by its own arrivals)      -- must be caught
 *   drop-on-set      a node that sets the key for a waiter removes its entry at
 *                    once (not at the winner's leave): a win on a minority, then
 *                    released, costs the waiter its place  -- must be caught
 *
 * Randomized with a fixed seed, bounded runs and steps: reproducible. Prints the
 * counterexamples per variant and configuration, the shortest of each broken
 * variant, and "N passed, N failed" (one verdict per configuration of quorum-max,
 * one per broken variant: caught in some configuration); exits non-zero when
 * quorum-max has a violation or a broken variant has none.
 *
 * Usage: fair_model [runs-per-configuration] [seed]   (defaults 20000, 20261203) */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 5
#define MAXC 4
#define QCAP 16
#define RANDOM_STEPS 600
#define CALM_STEPS 3000
#define TRACE_MAX 60
#define TRACE_LINES 400
#define OPS 3

enum { V_QMAX, V_NORAISE, V_MINORITY, V_LOCAL, V_DROP, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"quorum-max", "no-raise", "minority-ticket", "local-ticket",
                                              "drop-on-set"};
static const int variant_broken[NVARIANTS] = {0, 1, 1, 1, 1};

enum { M_T0, M_AT, M_REL, M_LEAVE, M_OK, M_INT, M_NIL };
typedef struct msg {
    int kind;
    long v; /* M_AT: the ticket; M_INT: the counter */
} msg;
typedef struct chan {
    msg q[QCAP];
    int head, len;
} chan;

enum { C_IDLE, C_W0, C_WT, C_RETRY, C_HOLD, C_DONE, C_CRASHED };
typedef struct client {
    int state, ops_left;
    long ticket;
    int got;            /* replies of the current attempt */
    int ok[MAXN];       /* 1 OK, 2 an integer, 3 nil (-1: none yet) */
    long val[MAXN];     /* the integers */
    int first_int;      /* node of the first integer answer (minority-ticket) */
    int asked_at;       /* step of its first ticket attempt (-1: not yet) */
    int queued_at;      /* step its entry was on a quorum (-1: not yet) */
    int executed[MAXN]; /* nodes that ran an attempt(T) of ours */
    int expired[MAXN];  /* crashed: its state on node i is gone */
} client;

typedef struct world {
    int n, c, q, variant, step, crashes;
    int owner[MAXN]; /* client + 1, 0 free */
    long counter[MAXN];
    long ticket[MAXN][MAXC]; /* the queue: 0 no entry */
    chan up[MAXC][MAXN], down[MAXC][MAXN];
    client cl[MAXC];
    int violation; /* 0 none, 1 two holders, 2 FIFO, 3 stuck */
    char trace[TRACE_LINES][80];
    int tlines;
} world;

static uint64_t rng;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int below(int k) { return (int)(rnd() % (uint64_t)k); }

static void tr(world *w, const char *fmt, ...)
{
    if (w->tlines >= TRACE_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->trace[w->tlines++], sizeof(w->trace[0]), fmt, ap);
    va_end(ap);
}

static void push(chan *ch, int kind, long v)
{
    if (ch->len >= QCAP) abort(); /* (never: a client has at most a few messages in flight) */
    ch->q[(ch->head + ch->len++) % QCAP] = (msg){kind, v};
}
static msg pop(chan *ch)
{
    msg m = ch->q[ch->head];
    ch->head = (ch->head + 1) % QCAP;
    ch->len--;
    return m;
}

/* the queue's first on node i: (ticket, client) smallest; -1 empty */
static int head(const world *w, int i)
{
    int h = -1;
    for (int k = 0; k < w->c; k++)
        if (w->ticket[i][k] && (h < 0 || w->ticket[i][k] < w->ticket[i][h])) h = k;
    return h;
}

static void send_all(world *w, int k, int kind, long v)
{
    client *c = &w->cl[k];
    c->got = 0;
    for (int i = 0; i < w->n; i++) {
        c->ok[i] = -1;
        push(&w->up[k][i], kind, v);
    }
}

/* node i runs client k's request */
static void serve(world *w, int k, int i)
{
    msg m = pop(&w->up[k][i]);
    client *c = &w->cl[k];
    int h, free = w->owner[i] == 0;
    switch (m.kind) {
    case M_T0:
        h = head(w, i);
        if ((h < 0 || h == k) && free) {
            w->owner[i] = k + 1;
            w->ticket[i][k] = 0;
            push(&w->down[k][i], M_OK, 0);
        } else {
            push(&w->down[k][i], M_INT, ++w->counter[i]);
        }
        tr(w, "n%d runs c%d ticket attempt: %s", i, k, (h < 0 || h == k) && free ? "OK" : "counter");
        break;
    case M_AT:
        if (w->variant == V_LOCAL) {
            if (!w->ticket[i][k]) w->ticket[i][k] = ++w->counter[i];
        } else {
            w->ticket[i][k] = m.v;
            if (w->variant != V_NORAISE && w->counter[i] < m.v) w->counter[i] = m.v;
        }
        if (c->queued_at < 0) {
            int e = 0;
            for (int j = 0; j < w->n; j++) e += w->ticket[j][k] != 0;
            if (e >= w->q) c->queued_at = w->step;
        }
        h = head(w, i);
        if (h == k && free) {
            /* the entry stays until the client won (its leave): a win on a
             * minority must not cost it its place (V_DROP: it does) */
            w->owner[i] = k + 1;
            if (w->variant == V_DROP) w->ticket[i][k] = 0;
            push(&w->down[k][i], M_OK, 0);
        } else {
            push(&w->down[k][i], M_NIL, 0);
        }
        tr(w, "n%d runs c%d attempt(%ld) (entry %ld): %s", i, k, m.v, w->ticket[i][k], h == k && free ? "OK" : "nil");
        break;
    case M_REL:
        if (w->owner[i] == k + 1) w->owner[i] = 0;
        tr(w, "n%d runs c%d release", i, k);
        break;
    case M_LEAVE:
        w->ticket[i][k] = 0;
        tr(w, "n%d runs c%d leave", i, k);
        break;
    }
}

static void win(world *w, int k)
{
    client *c = &w->cl[k];
    c->state = C_HOLD;
    for (int i = 0; i < w->n; i++)
        if (c->ok[i] != 1 || w->variant != V_DROP) push(&w->up[k][i], M_LEAVE, 0);
    int holders = 0;
    for (int j = 0; j < w->c; j++) holders += w->cl[j].state == C_HOLD;
    if (holders > 1 && !w->violation) w->violation = 1;
    for (int j = 0; j < w->c; j++) {
        const client *a = &w->cl[j];
        int live_waiting = a->state != C_CRASHED && a->state != C_HOLD && a->state != C_DONE;
        if (j != k && live_waiting && a->queued_at >= 0 && a->queued_at < c->asked_at && !w->violation) {
            w->violation = 2;
            tr(w, "FIFO: c%d wins, c%d was queued (step %d) before c%d asked (step %d)", k, j, a->queued_at, k,
               c->asked_at);
        }
    }
    tr(w, "c%d holds", k);
}

/* client k reads one reply from node i, and acts when every node answered */
static void reply(world *w, int k, int i)
{
    msg m = pop(&w->down[k][i]);
    client *c = &w->cl[k];
    if (c->state == C_CRASHED) return;
    c->ok[i] = m.kind == M_OK ? 1 : m.kind == M_INT ? 2 : 3;
    c->val[i] = m.v;
    if (m.kind == M_INT && c->first_int < 0) c->first_int = i;
    if (++c->got < w->n) return;
    int ok = 0, ints = 0;
    long top = 0;
    for (int j = 0; j < w->n; j++) {
        ok += c->ok[j] == 1;
        if (c->ok[j] == 2) {
            ints++;
            if (c->val[j] > top) top = c->val[j];
        }
    }
    if (ok >= w->q) {
        win(w, k);
        return;
    }
    for (int j = 0; j < w->n; j++)
        if (c->ok[j] == 1) push(&w->up[k][j], M_REL, 0);
    if (c->state == C_W0) {
        if (ints >= w->q) {
            c->ticket = w->variant == V_MINORITY ? c->val[c->first_int] : top;
            tr(w, "c%d takes ticket %ld", k, c->ticket);
            c->state = C_WT;
            send_all(w, k, M_AT, c->ticket);
        } else {
            c->state = C_IDLE; /* no quorum of counters: ask again */
        }
    } else {
        c->state = C_RETRY;
    }
}

/* the enabled actions: 0..: serve up[k][i], read down[k][i], client k acts, crash k, expire */
typedef struct act {
    int kind, k, i;
} act;
enum { A_SERVE, A_READ, A_ACT, A_CRASH, A_EXPIRE };

static int enabled(const world *w, act *out, int calm)
{
    int m = 0;
    for (int k = 0; k < w->c; k++) {
        const client *c = &w->cl[k];
        for (int i = 0; i < w->n; i++) {
            if (w->up[k][i].len) out[m++] = (act){A_SERVE, k, i};
            if (w->down[k][i].len) out[m++] = (act){A_READ, k, i};
            if (c->state == C_CRASHED && !c->expired[i] && !w->up[k][i].len) out[m++] = (act){A_EXPIRE, k, i};
        }
        if (c->state == C_IDLE || c->state == C_RETRY || c->state == C_HOLD) out[m++] = (act){A_ACT, k, 0};
        if (!calm && w->crashes == 0 && c->state != C_DONE && c->state != C_CRASHED) out[m++] = (act){A_CRASH, k, 0};
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
            if (c->asked_at < 0) c->asked_at = w->step;
            c->first_int = -1;
            c->state = C_W0;
            tr(w, "c%d asks (ticket attempt)", a.k);
            send_all(w, a.k, M_T0, 0);
        } else if (c->state == C_RETRY) {
            c->state = C_WT;
            tr(w, "c%d tries again (attempt(%ld))", a.k, c->ticket);
            send_all(w, a.k, M_AT, c->ticket);
        } else {
            tr(w, "c%d releases", a.k);
            for (int i = 0; i < w->n; i++) push(&w->up[a.k][i], M_REL, 0);
            if (--c->ops_left > 0) {
                /* a new lock() call: a new waiter */
                c->state = C_IDLE;
                c->asked_at = c->queued_at = -1;
                memset(c->executed, 0, sizeof(c->executed));
            } else {
                c->state = C_DONE;
            }
        }
        break;
    case A_CRASH:
        c->state = C_CRASHED;
        w->crashes++;
        tr(w, "c%d crashes", a.k);
        break;
    case A_EXPIRE:
        c->expired[a.i] = 1;
        w->ticket[a.i][a.k] = 0;
        if (w->owner[a.i] == a.k + 1) w->owner[a.i] = 0;
        tr(w, "n%d: c%d's entry and key expire", a.i, a.k);
        break;
    }
    w->step++;
}

static int one_run(world *w, int n, int nc, int variant)
{
    memset(w, 0, sizeof(*w));
    w->n = n;
    w->c = nc;
    w->q = n / 2 + 1;
    w->variant = variant;
    for (int k = 0; k < nc; k++) {
        w->cl[k].asked_at = w->cl[k].queued_at = -1;
        w->cl[k].ops_left = OPS;
    }
    act acts[MAXC * (3 * MAXN + 2)];
    for (int s = 0; s < RANDOM_STEPS && !w->violation; s++) {
        int m = enabled(w, acts, 0);
        if (!m) break;
        run_act(w, acts[below(m)]);
    }
    for (int s = 0; s < CALM_STEPS && !w->violation; s++) {
        int m = enabled(w, acts, 1);
        if (!m) break;
        run_act(w, acts[below(m)]);
    }
    if (!w->violation) {
        for (int k = 0; k < nc; k++)
            if (w->cl[k].state != C_DONE && w->cl[k].state != C_CRASHED) {
                w->violation = 3;
                tr(w, "stuck: c%d never got the lock", k);
                break;
            }
    }
    return w->violation;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 20000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261203u;
    if (runs < 1) runs = 1;
    if (!rng) rng = 1;
    static world w, best;
    static const int cfg[][2] = {{3, 3}, {5, 3}, {5, 4}};
    int passed = 0, failed = 0;
    for (int v = 0; v < NVARIANTS; v++) {
        int best_len = 0, total = 0;
        for (size_t g = 0; g < sizeof(cfg) / sizeof(cfg[0]); g++) {
            int viol = 0, kinds[4] = {0};
            for (int r = 0; r < runs; r++) {
                int x = one_run(&w, cfg[g][0], cfg[g][1], v);
                if (!x) continue;
                viol++;
                kinds[x]++;
                if (!best_len || w.tlines < best_len) {
                    best_len = w.tlines;
                    best = w;
                }
            }
            total += viol;
            printf("%-16s %d counterexamples in %d runs, %d nodes, %d clients (two holders %d, FIFO %d, stuck %d)%s\n",
                   variant_name[v], viol, runs, cfg[g][0], cfg[g][1], kinds[1], kinds[2], kinds[3],
                   variant_broken[v] ? "" : viol == 0 ? ": PASS" : ": FAIL (violation)");
            if (!variant_broken[v]) {
                if (viol == 0)
                    passed++;
                else
                    failed++;
            }
        }
        if (variant_broken[v]) {
            /* a broken variant: one verdict, caught in some configuration */
            printf("%-16s %s\n", variant_name[v],
                   total > 0 ? "PASS (caught)" : "FAIL (broken variant not caught: the check is too weak)");
            if (total > 0)
                passed++;
            else
                failed++;
        }
        if (best_len) {
            printf("  shortest counterexample of %s (%d nodes, %d clients, %d lines):\n", variant_name[v], best.n, best.c,
                   best.tlines);
            int from = best.tlines > TRACE_MAX ? best.tlines - TRACE_MAX : 0;
            if (from) printf("    ... (%d earlier lines)\n", from);
            for (int i = from; i < best.tlines; i++) printf("    %s\n", best.trace[i]);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
