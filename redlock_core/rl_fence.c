/* rl_fence.c -- fencing tokens: the two quorum phases run after a quorum SET (API.md "Fencing tokens"). */
#include "rl_internal.h"

#include <stdio.h>
#include <string.h>

/* Phase 2 on one node: raise the counter to ARGV[1] if it is lower; answer
 * the counter as it is afterwards (>= ARGV[1] means "confirmed"). SET keeps
 * the key without expiry: the counter must never expire. Lua numbers are
 * doubles, exact below 2^53: beyond that the node refuses (an error reply, a
 * node failure) rather than confirm a fence it cannot compare. */
const char rl_script_fence_raise[] =
    "local m = tonumber(ARGV[1]) local v = tonumber(redis.call(\"get\",KEYS[1]) or \"0\") "
    "if v == nil or m == nil then return redis.error_reply(\"fence counter is not an integer\") end "
    "if v >= 9007199254740992 or m >= 9007199254740992 then "
    "return redis.error_reply(\"fence counter out of range (2^53)\") end "
    "if v < m then redis.call(\"set\",KEYS[1],ARGV[1]) return m end return v";
const char rl_script_fence_raise_sha[] = "7cd269a3848b89013e8475f101fe6b6822d826f2";

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

/* the largest confirming integer */
static int64_t largest(const rl_result *res, int n, int64_t floor)
{
    int64_t max = 0;
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_ANSWERED && is_at_least(&res[i].reply, &floor) && res[i].reply.integer > max)
            max = res[i].reply.integer;
    return max;
}

/* One phase over all nodes; RL_ACQUIRED when a quorum confirmed. */
static int fence_phase(const rl_ctx *c, const rl_cmd *cmd, int64_t floor, rl_result *res, rl_call *call)
{
    int n = c->n, q = rl_quorum(n);
    if (c->tp->fanout(c->tp->ctx, cmd, res, n, fence_decide, &floor) != 0) return RL_ERROR;
    rl_tally t = rl_count(res, n, is_at_least, &floor);
    rl_fill_call(call, res, n, is_at_least, &floor);
    if (t.ok >= q) return RL_ACQUIRED;
    return t.failed > n - q ? RL_NO_QUORUM : RL_CONFLICT;
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

    /* (1) INCR on all nodes; M = the largest answer of the quorum. Any
     * quorum of a later acquisition meets a quorum that (2) raised to M. */
    memset(&cmd, 0, sizeof(cmd));
    cmd.argc = 2;
    cmd.argv[0] = "INCR";
    cmd.argvlen[0] = 4;
    cmd.argv[1] = fence_key;
    cmd.argvlen[1] = fence_keylen;
    if ((r = fence_phase(c, &cmd, 1, res, call)) != RL_ACQUIRED) return r;
    int64_t m = largest(res, n, 1);

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
    if ((r = fence_phase(c, &cmd, m, res, call)) != RL_ACQUIRED) return r;

    *fence = m;
    return RL_ACQUIRED;
}
