/* rl_acquire.c -- rl_acquire, step by step: the token, the commands, subscribing, the waiting writer and the
 * fair queue, each attempt's plan (acq_plan_attempt), the cleanup of a failed attempt, and the loop. */
#include "rl_lock_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- rl_acquire, step by step ---- */

/* What one acquisition sends: its SET (or acquire script), the release a
 * failed attempt queues, and a waiter's variant of the SET that announces a
 * win to its shard; the buffers their arguments point into. */
typedef struct acq {
    /* the call: its key, TTL and lock; between its attempts (the waiter,
     * the deadline) */
    const char *key;
    size_t keylen;
    int ttl_ms;
    rl_lock_info *info;
    rl_between next;
    rl_cmd set, rel, ann;
    /* set without the maxttl key (rl_restart.calm): a calm attempt (with the
     * restart check only) */
    rl_cmd calm;
    char ttlbuf[24];
    size_t ttllen;
    int nonced;
    char nkey[RL_MAX_KEY + 2], nonce[RL_TOKEN_LEN + 1], noshard[1];
    char shard[3]; /* our shard's name (rl_wake_shard_name) */
    /* a waiting exclusive lock() of one key: its attempts after the first
     * (wset, or want when announcing) hold new readers back (ARGV[6]: wms);
     * wrem takes it out of the waiting writers when it gives up */
    int writer, wrote;
    rl_cmd wset, wann, wrem;
    char wms[24], wkey[RL_MAX_KEY + 2];
    /* fair (docs/api.md "Fair waiting"): every attempt is fset (the writer's, and
     * ARGV[7..9]: fid, the ticket, ttlbuf as the entry's life); ticket "0"
     * until a quorum answered the first failed attempt with its counter;
     * queued: since then (the entry may be on the nodes); leave takes it out */
    int fair, queued;
    rl_cmd fset, leave;
    char fid[RL_FAIR_ID_LEN + 1], ticket[24];
} acq;

/* step 1, the token: the caller's (docs/api.md "Restore": the caller vouches for
 * it), else a random one */
int rl_lock_token(const rl_ctx *c, const rl_opts *o, rl_lock_info *info)
{
    if (o->token) {
        if (o->token_len < RL_TOKEN_MIN || o->token_len > RL_TOKEN_MAX) return -1;
        memcpy(info->token, o->token, o->token_len);
        info->token[o->token_len] = '\0';
        info->token_len = o->token_len;
        return 0;
    }
    if (rl_make_token(c->rnd, info->token) != 0) return -1;
    info->token_len = RL_TOKEN_LEN;
    return 0;
}

/* step 2, the commands: the SET and the release of a failed attempt.
 * A caller-chosen token may hold the key already: an earlier lock() with
 * it, here or in another process (docs/api.md: a second lock() is a conflict).
 * A node whose SET timed out then looks the same whether this attempt set
 * the key or the earlier lock holds it, and a token-checked cleanup there
 * would delete the earlier lock: two holders. So such an attempt is a
 * script that also writes a nonce of its own next to the key (nkey: the
 * key, NUL, 'a', which no resource can name; same TTL), and its cleanup
 * deletes the key only on a node where that nonce is found, i.e. where
 * this very attempt set it. A fresh nonce per attempt (rl_acquire draws it):
 * the cleanup of one attempt never touches what a later one set. */
static int acq_commands(acq *a, const rl_ctx *c, const rl_opts *o)
{
    const rl_restart *rs = c->rs;
    const char *key = a->key;
    size_t keylen = a->keylen;
    const rl_lock_info *info = a->info;
    size_t ttllen = a->ttllen = rl_fmt_int(a->ttlbuf, sizeof(a->ttlbuf), a->ttl_ms);
    a->nonced = o->token != NULL;
    a->noshard[0] = '\0';
    int list = rl_key_is_list(key, keylen);
    if (a->nonced) {
        const char *first = key;
        size_t k1 = keylen, pos = 1;
        if (list && !rl_list_next(key, keylen, &pos, &first, &k1)) return -1;
        if (k1 > RL_MAX_KEY) return -1;
        memcpy(a->nkey, first, k1);
        a->nkey[k1] = '\0';
        a->nkey[k1 + 1] = 'a';
        rl_eval_cmd(&a->set, rl_script_acquire, rl_script_acquire_sha, key, keylen, a->nkey);
        rl_arg(&a->set, info->token, info->token_len);
        rl_arg(&a->set, a->ttlbuf, ttllen);
        rl_arg(&a->set, a->noshard, 0);
        rl_arg(&a->set, a->nonce, RL_TOKEN_LEN);
        if (rs) rl_arg(&a->set, rs->maxttl_key, rs->maxttl_keylen);
        rl_eval_cmd(&a->rel, rl_script_release, rl_script_release_sha, key, keylen, a->nkey);
        rl_arg(&a->rel, info->token, info->token_len);
        rl_release_id_slot(&a->rel);
        rl_arg(&a->rel, a->nonce, RL_TOKEN_LEN);
    } else {
        /* the script, not a bare SET NX: it also keeps out of a fair queue;
         * with rs it raises the maxttl key and answers it (no extra round
         * trip) */
        rl_script_cmd(&a->set, rl_script_acquire, rl_script_acquire_sha, key, keylen, info->token);
        rl_arg(&a->set, a->ttlbuf, ttllen);
        rl_arg(&a->set, a->noshard, 0);
        if (rs) {
            rl_arg(&a->set, a->noshard, 0);
            rl_arg(&a->set, rs->maxttl_key, rs->maxttl_keylen);
        }
        rl_script_cmd(&a->rel, rl_script_release, rl_script_release_sha, key, keylen, info->token);
        rl_release_id_slot(&a->rel);
    }
    a->set.op = RL_OP_SET;
    a->set.tag = rl_lock_tag(key, keylen, info->token, info->token_len);
    /* the cleanup keeps in order behind the SET it undoes; its id is drawn
     * only when it is sent (rl_acquire) */
    a->rel.op = RL_OP_RELEASE;
    a->rel.tag = a->set.tag;
    a->set.clock_check = rs != NULL;
    if (rs) {
        /* ARGV[5] (and ARGV[4] "" without a nonce) left out: the script
         * neither reads nor raises the maxttl key and answers the SET's answer
         * alone, as with restart_grace 0 */
        a->calm = a->set;
        a->calm.argc -= a->nonced ? 1 : 2;
    }
    /* after a failed attempt the release is only queued: each connection
     * keeps it behind our SET, so a hung node costs the next attempt nothing */
    a->rel.nowait = 1;
    return 0;
}

/* step 3, subscribing (docs/api.md "Waiting"): before the first attempt; its
 * SUBSCRIBE is not awaited (an uncontended lock costs no extra round trip),
 * so when that attempt fails, the subscription is confirmed and one more
 * attempt made at once (rl_next_attempt): a release cannot slip in unseen between
 * an attempt and the wait. The waiter, or NULL when this call does not wait
 * for releases. */
static const rl_waiter *acq_subscribe(acq *a, const rl_ctx *c, const rl_opts *o)
{
    const char *key = a->key;
    size_t keylen = a->keylen;
    const rl_waiter *w = a->next.deadline && o->wake_on_release ? c->waiter : NULL;
    if (!w) return NULL;
    /* (no random drawn without a waiter) */
    int shard = (int)rl_random_below(c, (uint64_t)RL_WAKE_SHARDS * RL_WAKE_SUBS);
    rl_wake_shard_name(shard, a->shard);
    if (w->subscribe(w->ctx, key, keylen, shard, a->fair ? a->fid : NULL) != 0) return NULL;
    if (a->nonced) {
        a->ann = a->set;
        a->ann.argv[7] = a->shard; /* ARGV[3] */
        a->ann.argvlen[7] = 2;
    } else if (c->rs || rl_key_is_list(key, keylen)) {
        a->ann = a->set;
        a->ann.argv[6] = a->shard; /* ARGV[3] */
        a->ann.argvlen[6] = 2;
    } else {
        rl_script_cmd(&a->ann, rl_script_acquire, rl_script_acquire_sha, key, keylen, a->info->token);
        rl_arg(&a->ann, a->ttlbuf, a->ttllen);
        rl_arg(&a->ann, a->shard, 2);
        a->ann.op = RL_OP_SET;
        a->ann.tag = a->set.tag;
    }
    return w;
}

/* step 3b (docs/api.md "Read locks": no writer starvation), a waiting exclusive
 * lock() of one key: its later attempts are the acquire script with ARGV[6],
 * the time its entry among the waiting writers lasts unless renewed: two
 * retry pauses and a round trip's margin (a writer that dies leaves by
 * itself), and wrem removes it when the wait gives up. */
static void writer_cmd(rl_cmd *dst, const rl_cmd *src, acq *a)
{
    if (!src->script) {
        /* the plain SET: as the script (no maxttl key: ARGV[4], ARGV[5] "") */
        rl_script_cmd(dst, rl_script_acquire, rl_script_acquire_sha, a->key, a->keylen, a->info->token);
        rl_arg(dst, a->ttlbuf, a->ttllen);
        rl_arg(dst, a->noshard, 0);
        dst->op = src->op;
        dst->tag = src->tag;
        dst->clock_check = src->clock_check;
    } else {
        *dst = *src;
    }
    int nk = dst->argv[2][0] - '0';
    while (dst->argc - 3 - nk < 5) rl_arg(dst, a->noshard, 0);
    rl_arg(dst, a->wms, strlen(a->wms));
}

static void acq_writer(acq *a, const rl_opts *o)
{
    const char *key = a->key;
    size_t keylen = a->keylen;
    const rl_lock_info *info = a->info;
    a->writer = a->wrote = 0;
    if (!a->next.deadline || rl_key_is_list(key, keylen) || keylen > RL_MAX_KEY) return;
    a->writer = 1;
    long long ms = 2 * ((long long)o->retry_delay_ms + o->retry_jitter_ms) + 1000;
    rl_fmt_int(a->wms, sizeof(a->wms), ms);
    writer_cmd(&a->wset, &a->set, a);
    if (a->next.w) writer_cmd(&a->wann, &a->ann, a);
    memcpy(a->wkey, key, keylen);
    a->wkey[keylen] = '\0';
    a->wkey[keylen + 1] = 'w';
    memset(&a->wrem, 0, sizeof(a->wrem));
    rl_arg(&a->wrem, "ZREM", 4);
    rl_arg(&a->wrem, a->wkey, keylen + 2);
    rl_arg(&a->wrem, info->token, info->token_len);
    rl_release_tag(&a->wrem, key, keylen, info->token);
    a->wrem.nowait = 1;
}

/* step 4, the cleanup of a failed attempt. The spec: unlock all instances,
 * including those that did not answer (their SET may still land). Not those
 * that answered nil: our SET did not land there (the release would find
 * nothing of this attempt: skipping it spares each contended attempt up to
 * n - 1 scripts). A nil is that proof only when the SET went out once: one
 * sent again on a new connection (the old one broke after the server may
 * have run it) answers nil because the first one set the key. Sets rel's
 * skip mask; 1 when some node gets the release. */
static int acq_cleanup_mask(rl_cmd *rel, const rl_result *res, int n)
{
    int any = 0;
    rel->skip = 0;
    for (int i = 0; i < n; i++) {
        /* (a fair attempt held back answers its queue's counter: nothing set either) */
        int refused = res[i].state == RL_ANSWERED && !res[i].resent &&
                      (res[i].reply.type == RL_REPLY_NIL || res[i].reply.type == RL_REPLY_INTEGER);
        any |= res[i].sent && !refused;
        if (refused) rel->skip |= (uint64_t)1 << i;
    }
    return any;
}

/* step 5, a quorum of SETs: fencing's two more quorum phases (a failure
 * releases like any failed attempt: t->failed then n) and the validity,
 * still counted from s.t0, before the SET. 1 when the lock is ours. */
int rl_won(const rl_ctx *c, const rl_opts *o, int ttl_ms, rl_span s, tally *t, rl_lock_info *info, rl_call *call)
{
    int fr = o->fence_key ? rl_fence_phases(c, o->fence_key, o->fence_keylen, &info->fence, call) : RL_ACQUIRED;
    if (fr == RL_NO_QUORUM) t->failed = c->n;
    if (fr == RL_ACQUIRED && o->fence_key) s.t1 = c->clock->now_us(c->clock->ctx);
    return fr == RL_ACQUIRED && rl_take_validity(info, ttl_ms, s, o->drift_factor, t->ok);
}

/* step 3c, fair waiting (docs/api.md "Fair waiting"; why it cannot deadlock:
 * HACKING.md "Fair waiting"). A waiting exclusive lock() of one key with
 * fair: every attempt is the acquire script with the queue's arguments.
 * The first one that cannot take the key answers, on each node, that
 * node's queue counter, incremented; the highest of a quorum of them is
 * our ticket, which every later attempt writes into the queue (ZSET key
 * "\0q", ticket -> id, ties in id order) and raises the counter to. A
 * ticket taken after another waiter's entry reached a quorum meets that
 * quorum on one node at least, so it is higher: one order on all nodes.
 * Only the queue's first takes the key; a dead waiter's entry lapses
 * ttl_ms after its last attempt, which comes at least every ttl_ms / 2. */
static int acq_fair(acq *a, const rl_ctx *c, const rl_opts *o)
{
    a->fair = a->queued = 0;
    if (!o->fair || !a->next.deadline || rl_key_is_list(a->key, a->keylen) || a->keylen > RL_MAX_KEY) return 0;
    if (rl_random_hex(c->rnd, a->fid, RL_FAIR_ID_LEN / 2) != 0) return -1;
    a->ticket[0] = '0';
    a->ticket[1] = '\0';
    a->fair = 1;
    return 0;
}

/* after acq_writer: the fair attempt, and its cleanup's ARGV[4], our queue
 * id (ARGV[3] "" without a nonce): a release by the queue's first tells
 * nobody (fair_wake in lock/lua/fragments.lua) */
static void acq_fair_cmd(acq *a)
{
    if (!a->fair) return;
    a->fset = a->wset;
    rl_arg(&a->fset, a->fid, RL_FAIR_ID_LEN);
    rl_arg(&a->fset, a->ticket, 1);
    rl_arg(&a->fset, a->ttlbuf, a->ttllen);
    if (!a->nonced) rl_arg(&a->rel, a->noshard, 0);
    rl_arg(&a->rel, a->fid, RL_FAIR_ID_LEN);
}

/* the end of a queued wait: out of the queue on every node, won or given
 * up (a node that set the key for us keeps our entry until then, so that
 * a win on a minority, released again, does not cost us our place); made
 * here, not up front: an uncontended fair lock() draws no id for it */
static void acq_fair_leave(acq *a, const rl_ctx *c)
{
    rl_result rr[RL_MAX_NODES];
    rl_evalsha1(&a->leave, rl_script_fair_leave, rl_script_fair_leave_sha, a->key, a->keylen);
    rl_arg(&a->leave, a->fid, RL_FAIR_ID_LEN);
    rl_release_id(&a->leave);
    rl_release_tag(&a->leave, a->key, a->keylen, a->info->token);
    a->leave.nowait = 1;
    (void)c->tp->fanout(c->tp->ctx, &a->leave, rr, c->n, NULL, NULL);
}

/* A fair attempt that has no ticket yet waits for a quorum of answers
 * (not only for the outcome: with an even n, n - q + 1 refusals decide
 * it), so that its ticket is a quorum's highest counter. Counters are
 * believed as the fence's (rl_incr_believed): one node's counter far above
 * the others' (9e18: damaged, hostile) would become every waiter's ticket
 * and, raised to it, every node's counter, beyond what the scripts' numbers
 * (doubles) hold exactly (2^53). Not believed, it counts for nothing: the
 * ticket is the highest of a quorum of the others, which meets every
 * earlier waiter's quorum all the same. */
typedef struct fair_decide {
    rl_decide_fn inner;
    void *ud;
    int q;
} fair_decide;

static int decide_fair(void *ud, const rl_result *res, int n)
{
    const fair_decide *f = ud;
    if (!f->inner(f->ud, res, n)) return 0;
    int ok = 0, pending = 0;
    int64_t top;
    for (int i = 0; i < n; i++) {
        if (res[i].state == RL_PENDING)
            pending++;
        else if (res[i].state == RL_ANSWERED && rl_is_ok_status(&res[i].reply, NULL))
            ok++;
    }
    return ok >= f->q || rl_incr_believed(res, n, &top) >= f->q || pending == 0;
}

/* the ticket from a first fair attempt's answers: 1 when a quorum gave one */
static int fair_ticket(acq *a, const rl_result *res, int n, int q)
{
    int64_t top;
    if (rl_incr_believed(res, n, &top) < q || top < 1) return 0;
    a->fset.argvlen[a->fset.argc - 2] = rl_fmt_int(a->ticket, sizeof(a->ticket), (long long)top);
    a->queued = 1;
    return 1;
}

/* ---- each attempt's plan ---- */

/* What one attempt sends and how its fan-out is decided: the one place
 * where the five conditions that change them meet (acq_plan_attempt). */
typedef struct acq_plan {
    const rl_cmd *cmd;
    rl_decide_fn decide;
    void *ud;
    int queues;     /* it enters the waiting writers (or the fair queue): wrem, leave take it out */
    rl_votes v;     /* decide's state with the restart check */
    fair_decide fd; /* ... of a fair attempt that has no ticket yet */
} acq_plan;

/* The plan of attempt `attempt` (redo: made again at once, checked, after a
 * calm one met a node it could not count), from five conditions:
 * (1) announce: a waiter's later attempts tell the other waiters of its
 *     shard when they win, if some of them hold back (three or more);
 * (2) writer: a waiting exclusive lock()'s later attempts hold new readers
 *     back (step 3b);
 * (3) restart check (c->rs): only the OKs of voting nodes count;
 * (4) calm: with every node calm for this TTL, the plain SET skips the
 *     maxttl key (not a redo, not a fair attempt: fset always carries it);
 * (5) fair: every attempt is the queue's, and one without a ticket yet
 *     waits for a quorum of counters (decide_fair).
 * p->ud points into p: p must stay where it is for the attempt. */
static void acq_plan_attempt(acq_plan *p, const acq *a, const rl_ctx *c, const rl_opts *o, int attempt, int redo)
{
    const rl_restart *rs = c->rs;
    int announce = a->next.w && attempt > 0 && a->next.waiters > 2;
    p->cmd = announce ? &a->ann : &a->set;
    p->queues = 0;
    if (a->writer && attempt > 0) {
        p->cmd = announce ? &a->wann : &a->wset;
        p->queues = 1;
    }
    p->v = (rl_votes){.c = c, .drift_factor = o->drift_factor};
    if (rs && !a->fair && p->cmd == &a->set && !redo && rl_calm_all(rs, c->n, a->ttl_ms)) {
        p->cmd = &a->calm;
        p->v.calm = 1;
    }
    p->decide = rs ? rl_decide_votes : rl_decide_ok_set;
    p->ud = rs ? &p->v : NULL;
    if (a->fair) {
        p->cmd = &a->fset;
        p->queues = 1;
        if (!a->queued) {
            p->fd = (fair_decide){.inner = p->decide, .ud = p->ud, .q = rl_quorum(c->n)};
            p->decide = decide_fair;
            p->ud = &p->fd;
        }
    }
}

/* the cleanup of a failed attempt, to the nodes acq_cleanup_mask left in */
static int acq_cleanup(acq *a, const rl_ctx *c)
{
    rl_result rr[RL_MAX_NODES];
    rl_release_id_draw(&a->rel);
    /* marked (rl.h RL_ID_CLEANUP): a cleanup wakes one waiter, the
     * cleanup of an attempt a cleanup woke nobody */
    a->rel.id[0] = a->next.by_cleanup ? RL_ID_QUIET : RL_ID_CLEANUP;
    return c->tp->fanout(c->tp->ctx, &a->rel, rr, c->n, NULL, NULL);
}

/* the end of the call: out of the waiting writers and the fair queue; a
 * read lock's demotion confirmed */
static void acq_end(acq *a, const rl_ctx *c, int outcome)
{
    rl_result rr[RL_MAX_NODES];
    int n = c->n;
    if (a->next.w) a->next.w->unsubscribe(a->next.w->ctx);
    if (a->wrote && outcome != RL_ACQUIRED) (void)c->tp->fanout(c->tp->ctx, &a->wrem, rr, n, NULL, NULL);
    if (a->queued) acq_fair_leave(a, c);
    if (outcome == RL_ACQUIRED && a->nonced && rl_key_is_shared(a->key, a->keylen)) {
        /* a demotion this attempt made is final: other readers may join */
        rl_cmd conf;
        rl_evalsha1(&conf, rl_script_shared_confirm, rl_script_shared_confirm_sha, a->key, a->keylen);
        rl_arg(&conf, a->nonce, RL_TOKEN_LEN);
        rl_release_tag(&conf, a->key, a->keylen, a->info->token);
        conf.nowait = 1;
        (void)c->tp->fanout(c->tp->ctx, &conf, rr, n, NULL, NULL);
    }
}

int rl_acquire(const rl_ctx *c, const char *key, size_t keylen, int ttl_ms, const rl_opts *o, rl_lock_info *info,
               rl_call *call)
{
    /* the attempt's own answers (rl_fill_call copies them into call->res):
     * the fence phases (rl_won) write theirs into call->res, and a failed
     * attempt's fair_ticket and rl_same_server read these */
    rl_result res[RL_MAX_NODES];
    int n = c->n, q = rl_quorum(n);
    const rl_restart *rs = c->rs;
    acq a;

    if (n < 1 || n > RL_MAX_NODES || ttl_ms < 1) return RL_ERROR;
    memset(info, 0, sizeof(*info));
    a.key = key;
    a.keylen = keylen;
    a.ttl_ms = ttl_ms;
    a.info = info;
    if (rl_lock_token(c, o, info) != 0 || acq_commands(&a, c, o) != 0) return RL_ERROR;
    uint64_t first = c->clock->now_us(c->clock->ctx);
    /* a fair waiter renews its entry (it lapses ttl_ms after an attempt) */
    a.next = (rl_between){.deadline = o->wait_ms > 0 ? first + (uint64_t)o->wait_ms * 1000u : 0, .waiters = 1};
    if (acq_fair(&a, c, o) != 0) return RL_ERROR;
    a.next.max_pause_us = a.fair ? (uint64_t)ttl_ms * 500u : 0;
    a.next.w = acq_subscribe(&a, c, o);
    acq_writer(&a, o);
    acq_fair_cmd(&a);
    int outcome = RL_CONFLICT, redo = 0;
    for (int attempt = 0;; attempt++) {
        info->attempts = attempt + 1;
        if (a.nonced && rl_make_token(c->rnd, a.nonce) != 0) {
            outcome = RL_ERROR;
            break;
        }
        uint64_t t0 = c->clock->now_us(c->clock->ctx);
        acq_plan p;
        acq_plan_attempt(&p, &a, c, o, attempt, redo);
        a.wrote |= p.queues;
        if (c->tp->fanout(c->tp->ctx, p.cmd, res, n, p.decide, p.ud) != 0) {
            outcome = RL_ERROR;
            break;
        }
        rl_span s = {t0, c->clock->now_us(c->clock->ctx)};
        rl_fill_call(call, res, n, rl_is_ok_status, NULL);
        tally t = rs ? rl_votes_count(&p.v, res, n) : rl_count_of(res, n, rl_is_ok_status);
        if (rs) rl_calm_after(c->rs, &p.v, res, n, ttl_ms);
        int nv = rs ? rl_novote(res, n) : 0;
        if (call) call->ok = t.ok;
        int any = acq_cleanup_mask(&a.rel, res, n);
        if (t.ok >= q && !rl_same_server(res, n) && rl_won(c, o, ttl_ms, s, &t, info, call)) {
            outcome = RL_ACQUIRED;
            break;
        }
        /* a node out of the quorum after a restart is no failure, but the
         * quorum it cannot make is missing as if it were down */
        outcome = t.failed + nv > n - q ? RL_NO_QUORUM : RL_CONFLICT;
        if (rl_same_server(res, n)) outcome = RL_SAME_SERVER;
        if (any && acq_cleanup(&a, c) != 0) {
            outcome = RL_ERROR;
            break;
        }
        if (outcome == RL_SAME_SERVER) break; /* a configuration error: retrying cannot help */
        if (p.v.out && !redo) {
            /* a calm attempt met a node it could not count: made again at
             * once, checked, as the same attempt (no pause, no retry used),
             * without the nodes that failed it (a hung node is not waited
             * for twice in one attempt: one call, one timeout) */
            redo = 1;
            attempt--;
            a.set.skip = 0;
            for (int i = 0; i < n; i++)
                if (res[i].state == RL_FAILED) a.set.skip |= (uint64_t)1 << i;
            continue;
        }
        a.set.skip = 0;
        if (a.fair && !a.queued) fair_ticket(&a, res, n, q);
        if (rl_next_attempt(c, o, &a.next, attempt, s.t1 - s.t0, info)) break;
    }
    acq_end(&a, c, outcome);
    return outcome;
}

/* ---- the decisions above, exported for the model checks (redlock_core/model):
 * each calls the function rl_acquire uses ---- */

/* an attempt's SET answers without the restart check (rl_decide_ok_set) */
int rl_decide_set(const rl_result *res, int n) { return rl_decide_ok_set(NULL, res, n); }

/* the nodes a failed attempt's cleanup skips (acq_cleanup_mask): bit i */
uint64_t rl_cleanup_skip(const rl_result *res, int n)
{
    rl_cmd rel;
    memset(&rel, 0, sizeof(rel));
    (void)acq_cleanup_mask(&rel, res, n);
    return rel.skip;
}

/* a fair lock()'s first attempt (decide_fair over rl_decide_ok_set), and the
 * ticket fair_ticket takes from its answers (0: none) */
int rl_fair_decided(const rl_result *res, int n)
{
    fair_decide fd = {.inner = rl_decide_ok_set, .ud = NULL, .q = rl_quorum(n)};
    return decide_fair(&fd, res, n);
}
long long rl_fair_ticket(const rl_result *res, int n)
{
    acq a;
    memset(&a, 0, sizeof(a));
    a.fset.argc = 2;
    return fair_ticket(&a, res, n, rl_quorum(n)) ? atoll(a.ticket) : 0;
}
