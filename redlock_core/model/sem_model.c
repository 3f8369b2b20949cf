/* sem_model.c -- randomized explorer of the semaphore quorum rule (docs/api.md "Semaphores").
 *
 * The nodes and clients are a model; the slots rule's decision is the C core's. N nodes (3, 5), C clients (3, 4), a
 * semaphore of limit L (1 to 4) and, per run, a weight W (1, or 2 when L >= 2) that
 * every client asks for. Every client runs K acquisitions. Each request and each
 * reply is a message on the FIFO channel of one (client, node) pair -- a connection --
 * and channels are served in any interleaving, so a node may run a request long
 * after the client decided without it (a timeout); a client may give up waiting for
 * any node at any moment. A holder releases at any moment. Keys do not expire: the
 * rule must hold without the TTL's help (expiry is the per-slot RedLock argument,
 * unchanged).
 *
 * The guarantees checked after every step: the weights of the clients that hold a
 * permit (won, not yet released) sum to at most L; and every holder's slots are
 * held for it together by a quorum of the same nodes (what isHeld(), extend() and
 * release() count: a node counts for a key list only when it holds every key).
 *
 * Variants:
 *   slots          the rule of rl_acquire_permit: L slots, each a mutex; a node sets
 *                  the first W free slots from the client's start and answers them;
 *                  the client wins when a quorum of nodes answered the same W slots,
 *                  keeps those and releases the rest on every node (the same
 *                  connection: behind the request)              -- must never violate
 *                  (decided, won and the slots kept come from the core: rl_permit_decided
 *                  and rl_permit_slots over the answers rl_script_permit gives, a bitmap
 *                  or nil; so a bug in decide_permit, permit_count or permit_answer
 *                  fails this variant)
 *                  (the core's next try of a split attempt, from another start, is a
 *                  failed attempt and a new one with that start: the model draws
 *                  every start)
 *   per-slot       the first rule: the client wins when W slots each have a quorum
 *                  of answers, whichever nodes (within the limit, but a permit whose
 *                  slots no quorum holds together)               -- must be caught
 *   counter        a plain majority per node: a node grants while it has fewer
 *                  than L (by weight) holders; the client wins on a quorum of
 *                  grants                                       -- must be caught
 *   any-slot       slots as above, but a node counts for the client when it gave it
 *                  W slots, whichever (not the same slots on a quorum)
 *                                                               -- must be caught
 *
 * Randomized with a fixed seed and a bounded number of runs and steps: reproducible.
 * Prints the counterexamples per variant and configuration, the shortest of each
 * broken variant, and "N passed, N failed"; exits non-zero when the slots rule has a
 * violation or a broken variant has none.
 *
 * Usage: sem_model [runs-per-configuration] [seed]   (defaults 3000, 20261202) */
#include "rl_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 5
#define MAXC 4
#define MAXL 4
#define OPS 3
#define QCAP 16
#define MAXSTEPS 400
#define TRACE_MAX 60

enum { V_SLOTS, V_PERSLOT, V_COUNTER, V_ANYSLOT, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"slots", "per-slot", "counter", "any-slot"};
static const int variant_broken[NVARIANTS] = {0, 1, 1, 1};

enum { M_REQ, M_REL_EXCEPT, M_REL_ALL, M_REPLY };
typedef struct msg {
    int kind, attempt, start, keep; /* keep: slot mask not released (M_REL_EXCEPT) */
    int reply;                      /* M_REPLY: slot mask set (0: none), or 1 granted (counter) */
} msg;
typedef struct chan {
    msg q[QCAP];
    int head, len;
} chan;

enum { C_IDLE, C_WAIT, C_HOLD, C_DONE };
typedef struct client {
    int state, ops_left, attempt;
    int got[MAXN]; /* C_WAIT: -1 pending, else the node's reply */
    int kept;      /* C_HOLD: slot mask */
} client;

typedef struct world {
    int n, c, lim, w, variant;
    int slot[MAXN][MAXL]; /* owner + 1, 0 free */
    int cnt[MAXN];        /* counter: weight granted */
    int granted[MAXN][MAXC];
    chan up[MAXC][MAXN], down[MAXC][MAXN]; /* client -> node, node -> client */
    client cl[MAXC];
    int wins;
    char *trace;
    int tlines;
} world;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int rnd_below(int k) { return (int)(rnd() % (uint64_t)k); }

static void tr(world *w, const char *fmt, ...)
{
    if (!w->trace || w->tlines >= TRACE_MAX) return;
    size_t l = strlen(w->trace);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->trace + l, 160, fmt, ap);
    va_end(ap);
    strcat(w->trace, "\n");
    w->tlines++;
}

static int push(chan *ch, msg m)
{
    if (ch->len >= QCAP) return -1;
    ch->q[(ch->head + ch->len) % QCAP] = m;
    ch->len++;
    return 0;
}
static msg pop(chan *ch)
{
    msg m = ch->q[ch->head];
    ch->head = (ch->head + 1) % QCAP;
    ch->len--;
    return m;
}

static int quorum(int n) { return rl_quorum(n); }

/* a node runs one message of client ci */
static void node_run(world *w, int i, int ci, msg m)
{
    if (m.kind == M_REQ) {
        msg r = {.kind = M_REPLY, .attempt = m.attempt};
        if (w->variant == V_COUNTER) {
            if (w->cnt[i] + w->w <= w->lim && !w->granted[i][ci]) {
                w->cnt[i] += w->w;
                w->granted[i][ci] = 1;
                r.reply = 1;
            }
        } else {
            int got = 0, k = 0;
            for (int j = 0; j < w->lim && k < w->w; j++) {
                int s = (m.start + j) % w->lim;
                if (!w->slot[i][s]) {
                    got |= 1 << s;
                    k++;
                }
            }
            if (k == w->w) {
                for (int s = 0; s < w->lim; s++)
                    if (got >> s & 1) w->slot[i][s] = ci + 1;
                r.reply = got;
            }
        }
        tr(w, "node %d runs c%d's request #%d (start %d): answers %d", i, ci, m.attempt, m.start, r.reply);
        push(&w->down[ci][i], r);
        return;
    }
    /* releases: token-checked, ours only */
    int keep = m.kind == M_REL_EXCEPT ? m.keep : 0;
    if (w->variant == V_COUNTER) {
        if (!keep && w->granted[i][ci]) {
            w->granted[i][ci] = 0;
            w->cnt[i] -= w->w;
        }
    } else {
        for (int s = 0; s < w->lim; s++)
            if (w->slot[i][s] == ci + 1 && !(keep >> s & 1)) w->slot[i][s] = 0;
    }
    tr(w, "node %d runs c%d's release (keep %d)", i, ci, keep);
}

static void send_all(world *w, int ci, msg m)
{
    for (int i = 0; i < w->n; i++) push(&w->up[ci][i], m);
}

/* the replies of client c's attempt as the core receives them from rl_script_permit
 * (no restart check: no ARGV[6], a plain answer): the slots set as a bitmap, bit s of
 * byte s / 8 in (L + 7) / 8 bytes, or nil when it set none; pending, or failed once
 * the client gave up (final) */
static void permit_replies(const world *w, const client *c, int final, rl_result *res)
{
    memset(res, 0, sizeof(rl_result) * (size_t)w->n);
    for (int i = 0; i < w->n; i++) {
        res[i].sent = 1;
        if (c->got[i] < 0) {
            res[i].state = final ? RL_FAILED : RL_PENDING;
            continue;
        }
        res[i].state = RL_ANSWERED;
        if (!c->got[i]) {
            res[i].reply.type = RL_REPLY_NIL;
            continue;
        }
        res[i].reply.type = RL_REPLY_STRING;
        res[i].reply.len = (size_t)(w->lim + 7) / 8;
        for (size_t k = 0; k < res[i].reply.len; k++) res[i].reply.str[k] = (char)(c->got[i] >> (k * 8) & 0xff);
    }
}

/* the slots rule, decided by the core (decide_permit, permit_count): 0 while
 * undecided; else *win when the largest set of nodes that answered the same slots
 * is a quorum, and *kept the slots the core decodes from one of them (what
 * rl_acquire_permit keeps) */
static int core_decides(const world *w, const client *c, int final, int *win, int *kept)
{
    static const rl_ctx ctx = {.rs = NULL}; /* the tally reads only rs: no restart check */
    rl_result res[MAXN];
    int best, node;
    uint64_t bits[RL_MAX_PERMITS / 64];
    permit_replies(w, c, final, res);
    rl_permit_req req = {.limit = w->lim, .weight = w->w};
    if (!rl_permit_decided(&ctx, 0.01, &req, res, w->n, &best, &node)) return 0;
    *win = best >= quorum(w->n) && node >= 0 && rl_permit_slots(&ctx, &req, res, w->n, node, bits);
    *kept = *win ? (int)(bits[0] & ((1u << MAXL) - 1)) : 0;
    return 1;
}

/* the client's decision on its answers so far; final: pending ones count as failed */
static void decide(world *w, int ci, int final)
{
    client *c = &w->cl[ci];
    int q = quorum(w->n), pending = 0, win = 0, kept = 0;
    for (int i = 0; i < w->n; i++) pending += c->got[i] < 0;
    if (final) pending = 0;
    if (w->variant == V_COUNTER) {
        int yes = 0;
        for (int i = 0; i < w->n; i++) yes += c->got[i] == 1;
        if (yes >= q)
            win = 1;
        else if (yes + pending >= q)
            return;
    } else if (w->variant == V_ANYSLOT) {
        int yes = 0;
        for (int i = 0; i < w->n; i++) yes += c->got[i] > 0;
        if (yes >= q) {
            win = 1;
            for (int i = 0; i < w->n; i++)
                if (c->got[i] > 0) kept |= c->got[i]; /* keeps whatever it was given */
        } else if (yes + pending >= q) {
            return;
        }
    } else if (w->variant == V_PERSLOT) {
        int ok = 0, maybe = 0;
        for (int s = 0; s < w->lim; s++) {
            int k = 0;
            for (int i = 0; i < w->n; i++) k += c->got[i] > 0 && (c->got[i] >> s & 1);
            if (k >= q && ok < w->w) {
                ok++;
                kept |= 1 << s;
            }
            maybe += k + pending >= q;
        }
        if (ok >= w->w)
            win = 1;
        else if (maybe >= w->w)
            return;
    } else if (!core_decides(w, c, final, &win, &kept)) {
        return;
    }
    if (win) {
        c->state = C_HOLD;
        c->kept = kept;
        w->wins++;
        tr(w, "c%d wins #%d (slots %d)", ci, c->attempt, kept);
        /* the rest of what the nodes set goes (the counter variant has no rest) */
        if (w->variant != V_COUNTER) send_all(w, ci, (msg){.kind = M_REL_EXCEPT, .keep = kept});
    } else {
        c->state = c->ops_left > 0 ? C_IDLE : C_DONE;
        tr(w, "c%d fails #%d%s", ci, c->attempt, final ? " (timeout)" : "");
        send_all(w, ci, (msg){.kind = M_REL_ALL});
    }
}

/* a holder whose slots no quorum of the same nodes holds for it: -1 none */
static int apart(const world *w)
{
    if (w->variant == V_COUNTER) return -1;
    for (int ci = 0; ci < w->c; ci++) {
        if (w->cl[ci].state != C_HOLD) continue;
        int together = 0;
        for (int i = 0; i < w->n; i++) {
            int all = 1;
            for (int s = 0; s < w->lim; s++)
                if (w->cl[ci].kept >> s & 1 && w->slot[i][s] != ci + 1) all = 0;
            together += all;
        }
        if (together < quorum(w->n)) return ci;
    }
    return -1;
}

static int holders(const world *w)
{
    int h = 0;
    for (int ci = 0; ci < w->c; ci++) h += w->cl[ci].state == C_HOLD ? w->w : 0;
    return h;
}

/* one run: 1 when the guarantee was violated */
static int run(world *w)
{
    for (int step = 0; step < MAXSTEPS; step++) {
        int ci = rnd_below(w->c), i = rnd_below(w->n);
        client *c = &w->cl[ci];
        int what = rnd_below(10);
        if (what < 5) {
            /* serve a channel: a node runs a request or release, or a reply reaches its client */
            if (rnd_below(2) && w->up[ci][i].len) {
                node_run(w, i, ci, pop(&w->up[ci][i]));
            } else if (w->down[ci][i].len) {
                msg r = pop(&w->down[ci][i]);
                if (c->state == C_WAIT && r.attempt == c->attempt && c->got[i] < 0) {
                    c->got[i] = r.reply;
                    decide(w, ci, 0);
                }
            }
        } else if (what < 7) {
            if (c->state == C_IDLE && c->ops_left > 0) {
                c->ops_left--;
                c->attempt++;
                c->state = C_WAIT;
                for (int k = 0; k < w->n; k++) c->got[k] = -1;
                int start = rnd_below(w->lim);
                tr(w, "c%d asks #%d (start %d)", ci, c->attempt, start);
                send_all(w, ci, (msg){.kind = M_REQ, .attempt = c->attempt, .start = start});
            }
        } else if (what < 8) {
            if (c->state == C_WAIT) decide(w, ci, 1); /* gives up on the rest */
        } else {
            if (c->state == C_HOLD) {
                tr(w, "c%d releases", ci);
                c->state = c->ops_left > 0 ? C_IDLE : C_DONE;
                send_all(w, ci, (msg){.kind = M_REL_ALL});
            }
        }
        if (holders(w) > w->lim) {
            tr(w, "VIOLATION: %d permits held, limit %d", holders(w), w->lim);
            return 1;
        }
        if (apart(w) >= 0) {
            tr(w, "VIOLATION: c%d holds slots that no quorum of the same nodes holds", apart(w));
            return 1;
        }
    }
    return 0;
}

static void world_init(world *w, int n, int c, int lim, int weight, int variant, char *trace)
{
    memset(w, 0, sizeof(*w));
    w->n = n;
    w->c = c;
    w->lim = lim;
    w->w = weight;
    w->variant = variant;
    for (int ci = 0; ci < c; ci++) w->cl[ci].ops_left = OPS;
    w->trace = trace;
    if (trace) trace[0] = '\0';
}

int main(int argc, char **argv)
{
    long runs = argc > 1 ? atol(argv[1]) : 3000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261202u;
    if (runs < 1 || runs > 10000000) runs = 3000;
    static char trace[TRACE_MAX * 160 + 1];
    static char best[NVARIANTS][TRACE_MAX * 160 + 64];
    int best_lines[NVARIANTS];
    long viol[NVARIANTS];
    for (int v = 0; v < NVARIANTS; v++) best_lines[v] = TRACE_MAX + 1;
    memset(viol, 0, sizeof(viol));
    int passed = 0, failed = 0;
    printf("semaphore model: %ld runs per configuration, seed %" PRIu64 ", %d acquisitions per client, <= %d steps\n",
           runs, seed, OPS, MAXSTEPS);
    printf("%-10s %5s %7s %5s %6s %10s %12s %10s\n", "variant", "nodes", "clients", "limit", "weight", "runs",
           "violations", "wins");
    for (int v = 0; v < NVARIANTS; v++) {
        for (int n = 3; n <= 5; n += 2)
            for (int c = 3; c <= 4; c++)
                for (int lim = 1; lim <= MAXL; lim++)
                    for (int wt = 1; wt <= (lim >= 2 ? 2 : 1); wt++) {
                        rng_state = seed ^ ((uint64_t)n << 32) ^ ((uint64_t)c << 40) ^ ((uint64_t)lim << 48) ^
                                    ((uint64_t)wt << 56);
                        if (!rng_state) rng_state = 1;
                        long bad = 0, wins = 0;
                        for (long k = 0; k < runs; k++) {
                            world w;
                            uint64_t saved = rng_state;
                            world_init(&w, n, c, lim, wt, v, NULL);
                            int violated = run(&w);
                            wins += w.wins;
                            if (violated) {
                                bad++;
                                uint64_t after = rng_state;
                                rng_state = saved;
                                world_init(&w, n, c, lim, wt, v, trace);
                                run(&w);
                                rng_state = after;
                                if (w.tlines < best_lines[v]) {
                                    best_lines[v] = w.tlines;
                                    snprintf(best[v], sizeof(best[v]),
                                             "(%d nodes, %d clients, limit %d, weight %d)\n%s", n, c, lim, wt, trace);
                                }
                            }
                        }
                        viol[v] += bad;
                        printf("%-10s %5d %7d %5d %6d %10ld %12ld %10ld\n", variant_name[v], n, c, lim, wt, runs, bad,
                               wins);
                        if (wins == 0) {
                            printf("  (no client ever won: the run proves nothing)\n");
                            failed++;
                        }
                    }
    }
    printf("\n");
    for (int v = 0; v < NVARIANTS; v++) {
        const char *verdict;
        if (variant_broken[v] == 0) {
            verdict = viol[v] == 0 ? "PASS (no violation)" : "FAIL (the rule violates the guarantee)";
            viol[v] == 0 ? passed++ : failed++;
        } else {
            verdict = viol[v] > 0 ? "PASS (caught)" : "FAIL (broken variant not caught: the check is too weak)";
            viol[v] > 0 ? passed++ : failed++;
        }
        printf("%-10s %ld counterexamples: %s\n", variant_name[v], viol[v], verdict);
    }
    for (int v = 0; v < NVARIANTS; v++) {
        if (best_lines[v] > TRACE_MAX) continue;
        printf("\nshortest counterexample, %s %s", variant_name[v], best[v]);
    }
    printf("\n%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
