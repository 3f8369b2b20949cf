/* rl_release.c -- what a holder asks of the nodes after acquire: release, extend (with the repair of a node
 * restarted empty), and the questions is_locked, is_held, force_release. */
#include "rl_lock_int.h"

#include <string.h>

int rl_release(const rl_ctx *c, const char *key, size_t keylen, const char *token, rl_call *call)
{
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n, q = rl_quorum(n);
    rl_cmd rel;
    if (n < 1 || n > RL_MAX_NODES) return RL_ERROR;
    rl_release_cmd(&rel, key, keylen, token);
    if (c->tp->fanout(c->tp->ctx, &rel, res, n, rl_decide_ok_one, NULL) != 0) return RL_ERROR;
    tally t = rl_count_of(res, n, rl_is_one);
    rl_fill_call(call, res, n, rl_is_one, NULL);
    if (rl_same_server(res, n)) return RL_SAME_SERVER;
    if (t.ok >= q) return RL_RELEASED;
    return t.failed > n - q ? RL_NO_QUORUM : RL_LOST;
}

/* After an extend that did not succeed, the lock may hold for less than it
 * did: every node that ran the PEXPIRE (also one whose answer we did not
 * wait for) now expires the key ttl after the extend began. So the validity
 * left is what both the old and the new TTL still give. */
static void cap_validity(rl_lock_info *info, uint64_t t0, uint64_t t1, int ttl_ms, double drift_factor)
{
    int64_t new_ms = rl_validity_ms(ttl_ms, 0, drift_factor); /* ttl - drift, counted from t0 */
    uint64_t until = new_ms > 0 ? t0 + (uint64_t)new_ms * 1000u : 0;
    if (until < info->valid_until_us) info->valid_until_us = until;
    info->validity_ms = info->valid_until_us > t1 ? (int64_t)((info->valid_until_us - t1) / 1000u) : 0;
}

static void no_validity(rl_lock_info *info)
{
    info->valid_until_us = 0;
    info->validity_ms = 0;
}

/* docs/api.md "Restarted nodes": a node that restarted without its data after
 * the lock was last confirmed (acquired or extended) answers the extend with
 * -1, no key: it gets our key back, SET NX (never over another owner's key),
 * and its OK then counts for this extend like the nodes that extended it: it
 * holds our token, and no other lock counted this node since its restart
 * (it was out of the quorum). A key missing on a node that did not restart
 * (expired, force-released) is left missing. One more round trip, only then. */
/* a node that may have lost our key in a restart since the lock was last confirmed */
static int restarted_since(const rl_result *r, uint64_t since_us)
{
    /* (its start is known to 1 s either way: a node that started up to
     * 2 s before may be repaired too, harmless: it is our lock, SET NX) */
    /* and only a restart this process saw (another run_id than it knew): a
     * young node met for the first time proves nothing, and a repair there
     * would bring back a lock released meanwhile (extend() after release()
     * answered true on fresh test nodes: Laravel's refresh() test) */
    return r->id.known && !r->id.aof && r->id.restarted && r->id.up_since_us + 1000000u > since_us;
}

/* a restarted node's "no key" (-1): repaired in this extend, it may count */
static int repairable(const rl_result *r, uint64_t since_us)
{
    return r->state == RL_ANSWERED && r->reply.type == RL_REPLY_INTEGER && r->reply.integer == -1 &&
           restarted_since(r, since_us);
}

/* extend with the restart check: not decided before a node that restarted
 * since (its identity came ahead of its answer) has answered, and a
 * restarted node's -1 is one the repair may turn into an extension: a
 * failure is decided only when the extended, the repairable and the pending
 * together are short of a quorum (deciding on the -1 as a "no" ended the
 * call before a slow node's 1 that, with the repair, made the quorum: extend
 * false with the key back on 3 of 5 nodes, seen on Valkey 8.1 nodes) */
/* the repair may run: the lock is still valid (a restarted node's grace,
 * at least our TTL from its restart, still keeps it out of every other
 * lock's quorum). An extend() of an expired lock repairs nothing: another
 * client may hold the resource by now (restart_model scripted-late) */
static int may_repair(const rl_ctx *c, const rl_lock_info *info)
{
    return c->clock->now_us(c->clock->ctx) < info->valid_until_us;
}

/* one extend: what decide_extend and the repair read */
typedef struct ext_ud {
    const char *key;
    size_t keylen;
    const char *token;
    const char *ttl; /* the TTL in decimal */
    size_t ttllen;
    const rl_lock_info *info;
    int repair; /* may_repair() when the extend began */
} ext_ud;

static int decide_extend(void *ud, const rl_result *res, int n)
{
    const ext_ud *x = ud;
    const rl_lock_info *info = x->info;
    int ok = 0, maybe = 0;
    for (int i = 0; i < n; i++) {
        if (res[i].state == RL_PENDING) {
            if (x->repair && restarted_since(&res[i], info->start_us)) return 0;
            maybe++;
        } else if (res[i].state == RL_ANSWERED && rl_is_one(&res[i].reply, NULL)) {
            ok++;
        } else if (x->repair && repairable(&res[i], info->start_us)) {
            maybe++;
        }
    }
    int q = rl_quorum(n);
    return ok >= q || ok + maybe < q;
}

/* the repair's SET NX is decided once every node it went to has answered
 * (or failed): the others are skipped, and the default rule (a quorum of
 * answers) could end the call before the one answer that matters */
static int decide_repaired(void *ud, const rl_result *res, int n)
{
    uint64_t fix = *(const uint64_t *)ud;
    for (int i = 0; i < n; i++)
        if ((fix >> i & 1) && res[i].state == RL_PENDING) return 0;
    return 1;
}

static void repair(const rl_ctx *c, const ext_ud *x, rl_result *res)
{
    const char *key = x->key, *token = x->token, *ttl = x->ttl;
    size_t keylen = x->keylen, ttllen = x->ttllen;
    const rl_lock_info *info = x->info;
    int n = c->n;
    uint64_t fix = 0;
    for (int i = 0; i < n; i++) {
        if (repairable(&res[i], info->start_us)) fix |= (uint64_t)1 << i;
    }
    if (!fix) return;
    rl_cmd set;
    if (rl_key_is_list(key, keylen)) {
        /* every key back, or none (the list's acquire script, as SET NX) */
        rl_script_cmd(&set, rl_script_acquire, rl_script_acquire_sha, key, keylen, token);
        rl_arg(&set, ttl, ttllen);
        rl_arg(&set, "", 0);
    } else {
        memset(&set, 0, sizeof(set));
        rl_arg(&set, "SET", 3);
        rl_arg(&set, key, keylen);
        rl_arg(&set, token, strlen(token));
        rl_arg(&set, "NX", 2);
        rl_arg(&set, "PX", 2);
        rl_arg(&set, ttl, ttllen);
    }
    set.op = RL_OP_SET;
    set.tag = rl_lock_tag(key, keylen, token, strlen(token));
    set.skip = ~fix;
    rl_result rr[RL_MAX_NODES];
    if (c->tp->fanout(c->tp->ctx, &set, rr, n, decide_repaired, &fix) != 0) return;
    for (int i = 0; i < n; i++)
        if ((fix >> i & 1) && rr[i].state == RL_ANSWERED && rl_is_ok_status(&rr[i].reply, NULL))
            res[i].reply.integer = 1;
}

int rl_extend(const rl_ctx *c, const char *key, size_t keylen, const char *token, int ttl_ms, double drift_factor,
              rl_lock_info *info, rl_call *call)
{
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n, q = rl_quorum(n);
    char ttlbuf[24];
    rl_cmd ext;
    if (n < 1 || n > RL_MAX_NODES || ttl_ms < 1) return RL_ERROR;
    size_t ttllen = rl_fmt_int(ttlbuf, sizeof(ttlbuf), ttl_ms);
    rl_script_cmd(&ext, rl_script_extend, rl_script_extend_sha, key, keylen, token);
    rl_arg(&ext, ttlbuf, ttllen);
    if (c->rs) rl_arg(&ext, c->rs->maxttl_key, c->rs->maxttl_keylen); /* raise and learn the longest TTL */

    uint64_t t0 = c->clock->now_us(c->clock->ctx);
    ext_ud xu = {.key = key,
                 .keylen = keylen,
                 .token = token,
                 .ttl = ttlbuf,
                 .ttllen = ttllen,
                 .info = info,
                 .repair = c->rs && may_repair(c, info)};
    if (c->tp->fanout(c->tp->ctx, &ext, res, n, c->rs ? decide_extend : rl_decide_ok_one, c->rs ? &xu : NULL) != 0) {
        /* some nodes may have got the PEXPIRE */
        cap_validity(info, t0, c->clock->now_us(c->clock->ctx), ttl_ms, drift_factor);
        return RL_ERROR;
    }
    if (c->rs) {
        if (xu.repair && may_repair(c, info)) repair(c, &xu, res);
        /* learn the longest TTL that enough credible answers prove */
        uint64_t now = c->clock->now_us(c->clock->ctx), cred = 0;
        for (int i = 0; i < n; i++)
            if (rl_maxttl_credible(&res[i], now)) cred |= (uint64_t)1 << i;
        int64_t proven = rl_maxttl_proven(res, n, cred);
        if (proven > c->rs->maxttl_ms) c->rs->maxttl_ms = proven;
    }
    uint64_t t1 = c->clock->now_us(c->clock->ctx);
    tally t = rl_count_of(res, n, rl_is_one);
    rl_fill_call(call, res, n, rl_is_one, NULL);
    if (rl_same_server(res, n)) {
        /* the quorum the lock was counted on had one server twice */
        no_validity(info);
        return RL_SAME_SERVER;
    }
    if (t.ok >= q) {
        if (rl_take_validity(info, ttl_ms, (rl_span){t0, t1}, drift_factor, t.ok)) return RL_EXTENDED;
        no_validity(info); /* the new TTL is already used up by the round trip */
        return RL_LOST;
    }
    if (t.no > n - q) {
        /* answered "not our token" on so many nodes that no quorum holds it */
        no_validity(info);
        return RL_LOST;
    }
    cap_validity(info, t0, t1, ttl_ms, drift_factor);
    return t.failed > n - q ? RL_NO_QUORUM : RL_LOST;
}

/* is_locked and is_held must also tell "no" from "could not ask a quorum":
 * decided once a quorum says yes, once too many failed for a quorum to
 * answer, or once a quorum answered and a yes quorum can no longer be */
static int question_decided(const rl_result *res, int n, yes_fn yes, const void *ud)
{
    tally t = rl_count(res, n, yes, ud);
    int q = rl_quorum(n);
    if (t.ok >= q) return 1;
    if (t.failed > n - q) return 1;
    return t.ok + t.pending < q && t.answered >= q;
}
static int decide_exists(void *ud, const rl_result *res, int n)
{
    (void)ud;
    return question_decided(res, n, rl_is_one, NULL);
}
static int decide_held(void *ud, const rl_result *res, int n) { return question_decided(res, n, rl_is_token, ud); }

/* force_release: decided once a quorum answered, or can no longer */
static int decide_answered(void *ud, const rl_result *res, int n)
{
    (void)ud;
    return rl_quorum_decided(res, n, rl_is_answer, NULL);
}

/* One question to every node about a key: its command's verb ("EXISTS key",
 * "GET key", "DEL key"), when it is decided, which answers say yes */
typedef struct question {
    const char *verb;
    rl_decide_fn decide;
    yes_fn yes;
} question;

/* *t counts the answers qn->yes accepts (ud: what it compares with).
 * Returns 0, RL_ERROR or RL_SAME_SERVER. */
static int ask_nodes(const rl_ctx *c, const question *qn, const char *key, size_t keylen, const void *ud, rl_call *call,
                     tally *t)
{
    const char *verb = qn->verb;
    yes_fn yes = qn->yes;
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n;
    rl_cmd cmd;
    if (n < 1 || n > RL_MAX_NODES) return RL_ERROR;
    memset(&cmd, 0, sizeof(cmd));
    if (rl_key_is_list(key, keylen)) {
        /* isHeld() of a key list: our token where every key holds it */
        if (!ud || yes != rl_is_token) return RL_ERROR;
        const rl_token_ref *tok = ud;
        int sh = rl_key_is_shared(key, keylen);
        rl_arg(&cmd, "EVALSHA", 7);
        rl_arg(&cmd, sh ? rl_script_held_shared_sha : rl_script_held_all_sha, RL_TOKEN_LEN);
        rl_arg(&cmd, "1", 1);
        rl_arg(&cmd, key, keylen);
        rl_arg(&cmd, tok->token, tok->len);
        cmd.script = sh ? rl_script_held_shared : rl_script_held_all;
    } else {
        rl_arg(&cmd, verb, strlen(verb));
        rl_arg(&cmd, key, keylen);
    }
    if (c->tp->fanout(c->tp->ctx, &cmd, res, n, qn->decide, (void *)ud) != 0) return RL_ERROR;
    *t = rl_count(res, n, yes, ud);
    rl_fill_call(call, res, n, yes, ud);
    return rl_same_server(res, n) ? RL_SAME_SERVER : 0;
}

/* a yes/no question: a quorum of yes, or too few answers to say no */
static int yes_no(tally t, int q) { return t.ok >= q ? RL_YES : t.answered < q ? RL_NO_QUORUM : RL_NO; }

int rl_is_locked(const rl_ctx *c, const char *key, size_t keylen, rl_call *call)
{
    tally t;
    static const question exists = {"EXISTS", decide_exists, rl_is_one};
    int r = ask_nodes(c, &exists, key, keylen, NULL, call, &t);
    return r ? r : yes_no(t, rl_quorum(c->n));
}

int rl_is_held(const rl_ctx *c, const char *key, size_t keylen, const char *token, size_t token_len, rl_call *call)
{
    tally t;
    static const question get = {"GET", decide_held, rl_is_token};
    rl_token_ref ref = {token, token_len};
    if (!token || token_len < 1 || token_len > RL_TOKEN_MAX) return RL_ERROR;
    int r = ask_nodes(c, &get, key, keylen, &ref, call, &t);
    return r ? r : yes_no(t, rl_quorum(c->n));
}

int rl_force_release(const rl_ctx *c, const char *key, size_t keylen, rl_call *call)
{
    tally t;
    /* sent to every node at once: those not awaited still delete the key */
    static const question del = {"DEL", decide_answered, rl_is_answer};
    int r = ask_nodes(c, &del, key, keylen, NULL, call, &t);
    return r ? r : t.ok >= rl_quorum(c->n) ? RL_RELEASED : RL_NO_QUORUM;
}
