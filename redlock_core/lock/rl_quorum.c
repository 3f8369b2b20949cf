/* rl_quorum.c -- counting the nodes' answers to one fan-out, the decisions at the quorum, and the spec's
 * validity rule. The hot counting (rl_tally_of, rl_decided_of) is inline in rl_lock_int.h. */
#include "rl_lock_int.h"

#include <string.h>

int64_t rl_validity_ms(int ttl_ms, uint64_t elapsed_us, double drift_factor)
{
    /* spec: validity = ttl - elapsed - (ttl * drift_factor + 2 ms), the 2 ms
     * standing for the clock's own granularity; elapsed is rounded up so a
     * lock never claims time it may not have */
    int64_t elapsed_ms = (int64_t)((elapsed_us + 999) / 1000);
    int64_t drift_ms = (int64_t)((double)ttl_ms * drift_factor) + 2;
    return (int64_t)ttl_ms - elapsed_ms - drift_ms;
}

int64_t rl_remaining_ms(const rl_lock_info *info, uint64_t now_us)
{
    if (now_us >= info->valid_until_us) return 0;
    return (int64_t)((info->valid_until_us - now_us) / 1000);
}

int rl_take_validity(rl_lock_info *info, int ttl_ms, rl_span s, double drift, int ok)
{
    int64_t validity = rl_validity_ms(ttl_ms, s.t1 - s.t0, drift);
    if (validity <= 0) return 0;
    info->start_us = s.t0;
    info->validity_ms = validity;
    info->valid_until_us = s.t1 + (uint64_t)validity * 1000u;
    info->ok = ok;
    return 1;
}

rl_tally rl_count(const rl_result *res, int n, rl_yes_fn yes, const void *ud) { return rl_tally_of(res, n, yes, ud); }

/* any answer at all (DEL: how many keys it deleted does not matter) */
int rl_is_answer(const rl_reply *r, const void *ud)
{
    (void)r;
    (void)ud;
    return 1;
}

int rl_is_token(const rl_reply *r, const void *ud)
{
    const rl_token_ref *t = ud;
    return r->type == RL_REPLY_STRING && r->len == t->len && t->len < sizeof(r->str) &&
           memcmp(r->str, t->token, t->len) == 0;
}

int rl_quorum_decided(const rl_result *res, int n, rl_yes_fn yes, const void *ud)
{
    return rl_decided_of(res, n, yes, ud);
}

int rl_decide_ok_set(void *ud, const rl_result *res, int n)
{
    (void)ud;
    return rl_decided_of(res, n, rl_is_ok_status, NULL);
}
int rl_decide_ok_one(void *ud, const rl_result *res, int n)
{
    (void)ud;
    return rl_decided_of(res, n, rl_is_one, NULL);
}

void rl_fill_call(rl_call *call, const rl_result *res, int n, rl_yes_fn yes, const void *ud)
{
    if (!call) return;
    rl_tally t = rl_count(res, n, yes, ud);
    if (call->res != res) memcpy(call->res, res, sizeof(*res) * (size_t)n);
    call->answered = t.answered;
    call->ok = t.ok;
    call->failed = t.failed;
}
