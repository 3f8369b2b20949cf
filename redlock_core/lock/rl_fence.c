/* rl_fence.c -- fencing tokens: the two quorum phases run after a quorum SET (docs/api.md "Fencing tokens"). */
#include "rl_internal.h"

#include <stdio.h>
#include <string.h>

/* a node confirms a phase with an integer >= floor (INCR: >= 1; raise: >= M) */
static int is_at_least(const rl_reply *r, const void *floor)
{
    return r->type == RL_REPLY_INTEGER && r->integer >= *(const int64_t *)floor;
}

/* As for every other command: decided once a quorum confirmed or can no
 * longer confirm; the replies still in flight are the transport's to drain. */
static int fence_decide(void *floor, const rl_result *res, int n)
{
    return rl_quorum_decided(res, n, is_at_least, floor);
}

/* Phase 2 with nodes whose counter phase 1 found not raised yet: their
 * answer is waited for too (or their timeout), so that the first fenced lock
 * after a restart raises them for good (rs->fence_inc) */
typedef struct raise_wait {
    int64_t m;
    uint64_t unraised; /* bit i: node i answered phase 1 unraised */
} raise_wait;

static int raise_decide(void *ud, const rl_result *res, int n)
{
    raise_wait *rw = ud;
    for (int i = 0; i < n; i++)
        if ((rw->unraised >> i & 1) && res[i].state == RL_PENDING) return 0;
    return rl_quorum_decided(res, n, is_at_least, &rw->m);
}

/* Phase 2 copies M, the largest INCR answer, to every node: one hostile (or
 * damaged) node answering near 2^53 would push every honest counter there,
 * and later fences would fail (the raise refuses 2^53) or jump. So an INCR
 * answer is not believed when it is 2^53 or more, or more than
 * RL_FENCE_MAX_JUMP above every other node's answer: that node fails for
 * this call, like a node that did not answer, and M comes from the others,
 * which must still be a quorum. Safe whatever the values: any quorum of
 * answers meets the quorum that raised the last fence handed out, so its
 * largest answer is above that fence (README "Fencing tokens"). An honest
 * node is that far ahead of all the others only when each of them missed
 * more than RL_FENCE_MAX_JUMP fenced locks (or lost its data): then, with
 * too few others, the phase fails rather than guess. */
#define RL_FENCE_MAX_JUMP ((int64_t)1 << 24)
#define RL_FENCE_LIMIT ((int64_t)1 << 53)

static int incr_ok(const rl_reply *r, const void *ud)
{
    (void)ud;
    return r->type == RL_REPLY_INTEGER && r->integer >= 1 && r->integer < RL_FENCE_LIMIT;
}

/* the node whose INCR answer is more than RL_FENCE_MAX_JUMP above every other
 * answer, or -1 (none, or fewer than two answers to compare) */
static int incr_outlier(const rl_result *res, int n)
{
    int top = -1, answers = 0;
    int64_t a1 = 0, a2 = 0;
    for (int i = 0; i < n; i++) {
        if (res[i].state != RL_ANSWERED || !incr_ok(&res[i].reply, NULL)) continue;
        int64_t v = res[i].reply.integer;
        answers++;
        if (top < 0 || v > a1) {
            a2 = a1;
            a1 = v;
            top = i;
        } else if (v > a2) {
            a2 = v;
        }
    }
    return answers >= 2 && a1 - a2 > RL_FENCE_MAX_JUMP ? top : -1;
}

/* The same rule for any counter the client takes the largest of (a fair
 * queue's tickets, rl_acquire.c fair_ticket): the answers believed (an INCR
 * answer below 2^53, not the outlier) and in *top their largest (0 none) */
int rl_incr_believed(const rl_result *res, int n, int64_t *top)
{
    int out = incr_outlier(res, n), k = 0;
    *top = 0;
    for (int i = 0; i < n; i++) {
        if (i == out || res[i].state != RL_ANSWERED || !incr_ok(&res[i].reply, NULL)) continue;
        k++;
        if (res[i].reply.integer > *top) *top = res[i].reply.integer;
    }
    return k;
}

/* docs/api.md "Restarted nodes": a node that restarted without its data has a
 * counter that started again from 0, so a quorum of INCR answers counting
 * it may miss every node that holds the last fence handed out. It counts
 * for a fence only once phase 2 raised its counter to a quorum's (rs->fence_inc). */
static int unraised(const rl_restart *rs, const rl_result *r, int i)
{
    const rl_ident *id = &r->id;
    return rs && r->state == RL_ANSWERED && id->known && !id->aof && (id->restarted || rs->sus_inc[i] == id->inc) &&
           rs->fence_inc[i] != id->inc;
}

static int unraised_ok(const rl_restart *rs, const rl_result *res, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) k += unraised(rs, &res[i], i) && incr_ok(&res[i].reply, NULL);
    return k;
}

/* phase 1: a quorum of believable answers, or no longer possible */
static int incr_decide(void *ud, const rl_result *res, int n)
{
    const rl_restart *rs = ud;
    rl_tally t = rl_count(res, n, incr_ok, NULL);
    t.ok -= unraised_ok(rs, res, n);
    if (incr_outlier(res, n) >= 0) t.ok--;
    int q = rl_quorum(n);
    return t.ok >= q || t.ok + t.pending < q;
}

/* after phase 1: the answers not believed fail their node for this call */
static void distrust(rl_result *res, int n)
{
    for (int i = 0; i < n; i++) {
        if (res[i].state == RL_ANSWERED && res[i].reply.type == RL_REPLY_INTEGER &&
            res[i].reply.integer >= RL_FENCE_LIMIT) {
            res[i].state = RL_FAILED;
            res[i].err = RL_E_PROTO;
            snprintf(res[i].reason, sizeof(res[i].reason), "fence counter %lld out of range (2^53)",
                     res[i].reply.integer);
        }
    }
    int i = incr_outlier(res, n);
    if (i >= 0) {
        res[i].state = RL_FAILED;
        res[i].err = RL_E_PROTO;
        snprintf(res[i].reason, sizeof(res[i].reason),
                 "fence counter %lld is more than 2^24 above every other node's (not believed)", res[i].reply.integer);
    }
}

/* the largest confirming integer */
static int64_t largest(const rl_result *res, int n, int64_t floor)
{
    int64_t max = 0;
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_ANSWERED && is_at_least(&res[i].reply, &floor) && res[i].reply.integer > max)
            max = res[i].reply.integer;
    return max;
}

/* One phase over all nodes; RL_ACQUIRED when a quorum confirmed (yes). */
static int fence_phase(const rl_ctx *c, const rl_cmd *cmd, rl_decide_fn decide, rl_yes_fn yes, void *ud, rl_result *res,
                       rl_call *call)
{
    int n = c->n, q = rl_quorum(n);
    if (c->tp->fanout(c->tp->ctx, cmd, res, n, decide, ud) != 0) return RL_ERROR;
    if (decide == incr_decide) distrust(res, n);
    rl_tally t = rl_count(res, n, yes, yes == incr_ok ? NULL : ud);
    rl_fill_call(call, res, n, yes, yes == incr_ok ? NULL : ud);
    int unr = decide == incr_decide ? unraised_ok(c->rs, res, n) : 0;
    t.ok -= unr;
    if (t.ok >= q) return RL_ACQUIRED;
    /* (a counter not raised yet is no failure, but the quorum it cannot make is missing) */
    return t.failed + unr > n - q ? RL_NO_QUORUM : RL_CONFLICT;
}

int rl_fence_phases(const rl_ctx *c, const char *fence_key, size_t fence_keylen, int64_t *fence, rl_call *call)
{
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n;
    rl_cmd cmd;
    char mbuf[24];
    int r;

    *fence = 0;
    if (n < 1 || n > RL_MAX_NODES || !fence_key || fence_keylen == 0) return RL_ERROR;
    /* the SET's answers (call->res, when given) already tell which nodes are
     * not raised yet, and which vote: phase 2 waits for those, also when
     * phase 1 was decided without them */
    uint64_t unr = 0, voting = 0;
    for (int i = 0; call && c->rs && i < n; i++) {
        if (unraised(c->rs, &res[i], i)) unr |= (uint64_t)1 << i;
        if (res[i].state == RL_ANSWERED && res[i].id.known && c->rs->ok_inc[i] == res[i].id.inc)
            voting |= (uint64_t)1 << i;
    }

    /* (1) INCR on all nodes; M = the largest answer of the quorum. Any
     * quorum of a later acquisition meets a quorum that (2) raised to M. */
    memset(&cmd, 0, sizeof(cmd));
    cmd.argc = 2;
    cmd.argv[0] = "INCR";
    cmd.argvlen[0] = 4;
    cmd.argv[1] = fence_key;
    cmd.argvlen[1] = fence_keylen;
    if ((r = fence_phase(c, &cmd, incr_decide, incr_ok, c->rs, res, call)) != RL_ACQUIRED) return r;
    int64_t m = largest(res, n, 1); /* (an unraised node's answer is lower: it only ever raises M) */

    /* (2) raise every counter to M: without it a later quorum that misses
     * the node which answered M could hand out M again */
    memset(&cmd, 0, sizeof(cmd));
    cmd.argc = 5;
    cmd.argv[0] = "EVALSHA";
    cmd.argvlen[0] = 7;
    cmd.argv[1] = rl_script_fence_raise_sha;
    cmd.argvlen[1] = strlen(rl_script_fence_raise_sha);
    cmd.argv[2] = "1";
    cmd.argvlen[2] = 1;
    cmd.argv[3] = fence_key;
    cmd.argvlen[3] = fence_keylen;
    cmd.argv[4] = mbuf;
    cmd.argvlen[4] = (size_t)snprintf(mbuf, sizeof(mbuf), "%lld", (long long)m);
    cmd.script = rl_script_fence_raise;
    raise_wait rw = {.m = m, .unraised = unr};
    /* voting: nodes that voted when this phase 1 ran (past their grace) */
    for (int i = 0; i < n; i++) {
        if (unraised(c->rs, &res[i], i)) rw.unraised |= (uint64_t)1 << i;
        if (c->rs && res[i].state == RL_ANSWERED && c->rs->ok_inc[i] == res[i].id.inc) voting |= (uint64_t)1 << i;
        /* and a node that neither the SET nor phase 1 waited for, whose last
         * incarnation seen votes after a restart but was never raised: its
         * answer is waited for too (else a fenced lock with that node slower
         * than a quorum left it unraised, and a later quorum with it short:
         * tests/restart/fence_after_restart, a CI run) */
        if (c->rs && c->rs->ok_inc[i] && c->rs->fence_inc[i] != c->rs->ok_inc[i] &&
            (c->rs->ok_inc[i] >= 2 || c->rs->sus_inc[i] == c->rs->ok_inc[i]))
            rw.unraised |= (uint64_t)1 << i;
    }
    if ((r = fence_phase(c, &cmd, rw.unraised ? raise_decide : fence_decide, is_at_least, &rw.m, res, call)) !=
        RL_ACQUIRED)
        return r;
    /* Counters raised to M count for the next fences, if M came from a phase
     * 1 that began once the node votes again (up for the grace): by then every
     * lock() whose phase 2 reached the node before its restart has returned
     * (a lock returns within its TTL), so M is above its fence. A raise with
     * an M from before (a lock() running across the restart) is not enough:
     * the model check (redlock_core/model, variant restart-any-raise) finds
     * the counterexample. (ok_inc is judged on SET answers only, so an
     * incarnation that votes by phase 2's answer voted before phase 1.) */
    if (c->rs)
        for (int i = 0; i < n; i++)
            if (res[i].state == RL_ANSWERED && is_at_least(&res[i].reply, &m) && res[i].id.known &&
                ((voting >> i & 1) || c->rs->ok_inc[i] == res[i].id.inc) && c->rs->fence_inc[i] != res[i].id.inc)
                c->rs->fence_inc[i] = res[i].id.inc;

    *fence = m;
    return RL_ACQUIRED;
}

/* ---- the phases' decisions, exported for the model checks (redlock_core/model) ---- */
int rl_fence_incr_decided(const rl_restart *rs, const rl_result *res, int n)
{
    return incr_decide((void *)rs, res, n);
}
int rl_fence_raise_decided(int64_t m, const rl_result *res, int n) { return fence_decide(&m, res, n); }
/* after phase 1: the answers not believed fail (distrust), M = the largest */
int64_t rl_fence_m(rl_result *res, int n)
{
    distrust(res, n);
    return largest(res, n, 1);
}
