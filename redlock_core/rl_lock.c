/* rl_lock.c -- the RedLock algorithm (acquire, release, extend, is_locked, is_held, force_release) over an injected
 * transport. */
#include "rl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_key_is_list(const char *key, size_t keylen) { return keylen > 0 && key[0] == '\0'; }

int rl_key_is_shared(const char *key, size_t keylen)
{
    return keylen >= 3 && key[0] == '\0' && key[1] == '\0' && key[2] == '\0';
}

int rl_list_next(const char *list, size_t len, size_t *pos, const char **k, size_t *kl)
{
    for (;;) {
        if (*pos + 2 > len) return 0;
        size_t l = (size_t)(unsigned char)list[*pos] << 8 | (unsigned char)list[*pos + 1];
        if (*pos + 2 + l > len) return 0;
        *k = list + *pos + 2;
        *kl = l;
        *pos += 2 + l;
        if (l > 0) return 1; /* (an empty entry: a read lock's mark) */
    }
}

int rl_list_add(char *buf, size_t cap, size_t *len, const char *key, size_t keylen)
{
    size_t at = *len ? *len : 1;
    if (keylen > RL_LIST_KEY_MAX || at + 2 + keylen > cap) return -1;
    buf[0] = '\0';
    buf[at] = (char)(keylen >> 8);
    buf[at + 1] = (char)(keylen & 255);
    memcpy(buf + at + 2, key, keylen);
    *len = at + 2 + keylen;
    return 0;
}

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

/* ---- restart-safe quorum (docs/api.md "Restarted nodes"; the reasoning: HACKING.md) ---- */
/* uptime_in_seconds is the difference of two whole wall-clock seconds: up to
 * 1 s off either way. A key must be older than our estimate of the uptime by
 * this much to prove the node younger than the cluster's state, so that a
 * brand-new cluster is never taken for a restarted one. */
#define RL_AGE_MARGIN_MS 1000
/* the longest TTL a lock can ask for (README "Options": 2^31 - 1 ms): a node
 * claiming a longer maxttl is not believed */
#define RL_MAXTTL_CAP_MS ((int64_t)2147483647)
/* a node up this long has forgotten nothing that any TTL could still need */
#define RL_UPTIME_CAP_MS ((int64_t)2147483647 + 2 * RL_AGE_MARGIN_MS)

/* the grace of a node that restarted without its data, from the longest TTL
 * m known; saturating (m is at most RL_MAXTTL_CAP_MS, the factor bounded) */
static int64_t grace_ms(const rl_restart *rs, int64_t maxttl, double drift_factor)
{
    if (rs->grace_ms > 0) return rs->grace_ms;
    if (maxttl <= 0) return 0; /* no client of this list ever asked for a TTL: nothing to forget */
    if (maxttl > RL_MAXTTL_CAP_MS) maxttl = RL_MAXTTL_CAP_MS;
    double d = (double)maxttl * drift_factor;
    if (!(d >= 0)) d = 0;
    if (d > (double)RL_MAXTTL_CAP_MS) d = (double)RL_MAXTTL_CAP_MS;
    return maxttl + (int64_t)d + 2;
}

static int has_maxttl(const rl_result *r) { return r->state == RL_ANSWERED && r->reply.naux == 2; }

/* how long the node of r has been up at least, by our clock (its INFO) */
static int64_t up_est_ms(const rl_result *r, uint64_t now)
{
    return now > r->id.up_since_us ? (int64_t)((now - r->id.up_since_us) / 1000u) : 0;
}

/* A maxttl answer a node may give: a TTL the API can ask for (1 ms ..
 * 2^31 - 1 ms, 0 for none) and an age of 0 or more (-1 for none); and a node
 * that does not persist (AOF off, INFO known) cannot hold a key older than
 * its own uptime (+ the margin). Anything else is a damaged or hostile
 * node's word: not evidence of anything (README "A hostile or damaged node"). */
int rl_maxttl_credible(const rl_result *r, uint64_t now)
{
    if (!has_maxttl(r)) return 0;
    long long m = r->reply.aux[0], a = r->reply.aux[1];
    if (m < 0 || m > RL_MAXTTL_CAP_MS || a < -1) return 0;
    if (r->id.known && !r->id.aof && a > up_est_ms(r, now) + RL_AGE_MARGIN_MS) return 0;
    return 1;
}

/* The longest TTL that the nodes of `from` (credible maxttl answers) prove:
 * with k of them answering, at least k - (n - q) are in the quorum of any
 * lock still held (the others are at most the n - q nodes outside it), and
 * each of those stores at least that lock's TTL, so the (k - (n - q))-th
 * largest value is at least it; a larger value from fewer nodes (one
 * damaged node's) is not believed. 0 when k <= n - q: nothing proven. */
int64_t rl_maxttl_proven(const rl_result *res, int n, uint64_t from)
{
    int64_t v[RL_MAX_NODES];
    int k = 0, f = n - rl_quorum(n);
    for (int i = 0; i < n; i++)
        if (from >> i & 1) v[k++] = res[i].reply.aux[0];
    if (k <= f) return 0;
    int rank = k - f; /* the rank-th largest */
    for (int a = 0; a < rank; a++) /* (partial selection: k <= 64) */
        for (int b = a + 1; b < k; b++)
            if (v[b] > v[a]) {
                int64_t x = v[a];
                v[a] = v[b];
                v[b] = x;
            }
    return v[rank - 1];
}

static void record(rl_restart *rs, rl_result *r, int i, int64_t novote, int64_t up, uint64_t now)
{
    r->novote_ms = novote;
    r->up_ms = up;
    r->novote_clock = 0;
    r->novote_need = 0;
    rs->novote_ms[i] = novote;
    rs->up_ms[i] = up;
    rs->judged_us[i] = now;
    rs->novote_clock[i] = 0;
    rs->novote_need[i] = 0;
}

/* how the first pass found a node (rl_vote_mask) */
enum { J_NONE, J_VOTE, J_OUT, J_WAIT, J_SUS };

/* The restart check (HACKING.md "Restarted nodes": the rules and why they
 * are safe with up to n - q nodes restarted within one grace). Two passes:
 * the first finds the nodes that vote by themselves (judged before, AOF on,
 * no INFO, up longer than any TTL, or seen for the first time with no
 * evidence that the cluster is older than them) and those out of the quorum
 * (a clock step's grace, a restart this process saw, a first sight with
 * enough evidence); the second judges the restarted ones on the answers of
 * the first pass's voters alone: a node itself restarted, suspect or in a
 * grace is no evidence of the longest TTL (its key came back with what was
 * asked after its restart). */
uint64_t rl_vote_mask(rl_restart *rs, rl_result *res, int n, uint64_t now, double drift_factor, int *wait)
{
    uint64_t mask = 0, cred = 0, voters;
    int pending = 0, waiting = 0, q = rl_quorum(n), f = n - q;
    unsigned char how[RL_MAX_NODES];
    int64_t m_all = rs->maxttl_ms;
    for (int i = 0; i < n; i++) {
        if (res[i].state == RL_PENDING) pending++;
        if (rl_maxttl_credible(&res[i], now)) {
            cred |= (uint64_t)1 << i;
            if (res[i].reply.aux[0] > m_all) m_all = res[i].reply.aux[0];
        }
    }
    for (int i = 0; i < n; i++) {
        rl_result *r = &res[i];
        const rl_ident *id = &r->id;
        how[i] = J_NONE;
        r->novote_ms = 0;
        r->novote_need = 0;
        if (r->state != RL_ANSWERED) continue;
        if (id->known && id->step_at_us && now >= id->step_at_us) {
            /* its wall clock stepped forward: keys there expired early, as
             * good as lost; out for the grace from the step (any AOF), the
             * longest TTL any credible answer gave (a longer grace is safe) */
            int64_t since = (int64_t)((now - id->step_at_us) / 1000u), g = grace_ms(rs, m_all, drift_factor);
            if (since < g) {
                record(rs, r, i, g - since, since, now);
                r->novote_clock = rs->novote_clock[i] = 1;
                how[i] = J_OUT;
                continue;
            }
        }
        if (!id->known || id->aof || rs->ok_inc[i] == id->inc) {
            /* no INFO (the node votes unchecked), its data survives a
             * restart, or this incarnation was judged already */
            if (rs->ok_inc[i] != id->inc || !id->known) record(rs, r, i, 0, 0, now);
            how[i] = J_VOTE;
            continue;
        }
        /* est: how long it has been up, up to 1 s off either way (RL_AGE_MARGIN_MS) */
        int64_t est = up_est_ms(r, now);
        int64_t up = est > RL_AGE_MARGIN_MS ? est - RL_AGE_MARGIN_MS : 0;
        if (up >= RL_UPTIME_CAP_MS) {
            rs->ok_inc[i] = id->inc;
            record(rs, r, i, 0, est, now);
            how[i] = J_VOTE;
            continue;
        }
        if (!id->restarted && rs->sus_inc[i] != id->inc) {
            /* First sight of a young node without AOF: it lost its data if
             * the cluster had state before it started, i.e. other nodes'
             * maxttl keys are older than its uptime. One node's word is not
             * enough where others answer: of the k other credible answers,
             * k - (n - q) come from any quorum that still holds a lock, and
             * each of those has a key older than the restart; so that many
             * witnesses are asked for (at least one). A brand-new cluster
             * (keys younger than every node, or none) votes at once. */
            int k = 0, wit = 0, po = 0;
            for (int j = 0; j < n; j++) {
                if (j == i) continue;
                po += res[j].state == RL_PENDING;
                if (!(cred >> j & 1)) continue;
                k++;
                wit += res[j].reply.aux[1] > est + RL_AGE_MARGIN_MS;
            }
            int need_now = k - f > 1 ? k - f : 1, need_all = k + po - f > 1 ? k + po - f : 1;
            if (wit < need_all && po > 0) {
                how[i] = J_WAIT; /* not judged before the others have answered */
                continue;
            }
            if (wit < need_now) {
                rs->ok_inc[i] = id->inc;
                record(rs, r, i, 0, est, now);
                how[i] = J_VOTE;
                continue;
            }
        }
        rs->sus_inc[i] = id->inc;
        how[i] = J_SUS;
    }
    /* the evidence of the longest TTL: credible answers of the nodes that vote by themselves */
    voters = 0;
    for (int i = 0; i < n; i++)
        if (how[i] == J_VOTE) {
            mask |= (uint64_t)1 << i;
            if (cred >> i & 1) voters |= (uint64_t)1 << i;
        }
    int nvoters = __builtin_popcountll(voters);
    /* the TTL they prove, learnt (only proven values: one node's word must
     * not stretch every later grace) */
    int64_t proven = rl_maxttl_proven(res, n, voters);
    if (proven > rs->maxttl_ms) rs->maxttl_ms = proven;
    /* with one node there is no other to prove anything: its grace is what
     * this object learnt of the TTLs (the node is its own quorum) */
    int need = n > 1 ? f + 1 : 0;
    for (int i = 0; i < n; i++) {
        rl_result *r = &res[i];
        if (how[i] == J_WAIT) waiting++;
        if (how[i] != J_SUS) continue;
        /* restarted empty: out of the quorum until up for the grace. With
         * 'auto' the longest TTL must be proven by enough voters (n - q + 1
         * of them: any quorum that may still hold a lock it forgot keeps at
         * least one node among them) */
        int64_t est = up_est_ms(r, now);
        int64_t up = est > RL_AGE_MARGIN_MS ? est - RL_AGE_MARGIN_MS : 0;
        int64_t g = grace_ms(rs, rs->maxttl_ms, drift_factor);
        if (up >= g && (rs->grace_ms > 0 || nvoters >= need)) {
            rs->ok_inc[i] = r->id.inc;
            record(rs, r, i, 0, est, now);
            mask |= (uint64_t)1 << i;
            continue;
        }
        if (up >= g && pending) {
            waiting++;
            continue;
        }
        record(rs, r, i, g > up ? g - up : 1, est, now);
        if (up >= g) r->novote_need = rs->novote_need[i] = (unsigned char)(need - nvoters);
    }
    *wait = waiting > 0 && pending > 0;
    return mask;
}

/* (inlined where yes is a constant: every fan-out's decide runs it after each
 * node's outcome) */
static inline __attribute__((always_inline)) rl_tally tally_of(const rl_result *res, int n, rl_yes_fn yes,
                                                               const void *ud)
{
    rl_tally t = {0};
    for (int i = 0; i < n; i++) {
        if (res[i].state == RL_PENDING) {
            t.pending++;
        } else if (res[i].state == RL_FAILED) {
            t.failed++;
        } else {
            t.answered++;
            if (yes(&res[i].reply, ud))
                t.ok++;
            else
                t.no++;
        }
    }
    return t;
}

rl_tally rl_count(const rl_result *res, int n, rl_yes_fn yes, const void *ud) { return tally_of(res, n, yes, ud); }

typedef rl_tally tally;
typedef rl_yes_fn yes_fn;
static inline __attribute__((always_inline)) tally count(const rl_result *res, int n, yes_fn yes)
{
    return tally_of(res, n, yes, NULL);
}

static int is_ok_status(const rl_reply *r, const void *ud)
{
    (void)ud;
    return r->type == RL_REPLY_STATUS && r->len == 2 && memcmp(r->str, "OK", 2) == 0;
}
static int is_one(const rl_reply *r, const void *ud)
{
    (void)ud;
    return r->type == RL_REPLY_INTEGER && r->integer == 1;
}
/* any answer at all (DEL: how many keys it deleted does not matter) */
static int is_answer(const rl_reply *r, const void *ud)
{
    (void)r;
    (void)ud;
    return 1;
}

/* GET's answer is our token (binary safe; rl_reply.str holds a whole token) */
typedef struct token_ref {
    const char *token;
    size_t len;
} token_ref;
static int is_token(const rl_reply *r, const void *ud)
{
    const token_ref *t = ud;
    return r->type == RL_REPLY_STRING && r->len == t->len && t->len < sizeof(r->str) &&
           memcmp(r->str, t->token, t->len) == 0;
}

/* The quorum is reached, or can no longer be: either way the outcome is known
 * and we return without waiting for the slowest node. */
static inline __attribute__((always_inline)) int quorum_decided(const rl_result *res, int n, rl_yes_fn yes,
                                                                const void *ud)
{
    rl_tally t = tally_of(res, n, yes, ud);
    int q = rl_quorum(n);
    return t.ok >= q || t.ok + t.pending < q;
}
int rl_quorum_decided(const rl_result *res, int n, rl_yes_fn yes, const void *ud)
{
    return quorum_decided(res, n, yes, ud);
}

static int decide_ok_set(void *ud, const rl_result *res, int n)
{
    (void)ud;
    return quorum_decided(res, n, is_ok_status, NULL);
}
static int decide_ok_one(void *ud, const rl_result *res, int n)
{
    (void)ud;
    return quorum_decided(res, n, is_one, NULL);
}

/* An acquisition's SET answers with the restart check (c->rs): only the OKs
 * of voting nodes count; while a node's vote cannot be judged yet, the call
 * waits for the others' answers (their maxttl and its age) */
typedef struct votes {
    const rl_ctx *c;
    double drift_factor;
    int wait;
    uint64_t mask;
    int calm;     /* a calm attempt: no maxttl answers to judge by (calm_mask) */
    uint64_t out; /* ... nodes it could not count: not calm as it answered */
    int unjudged; /* OKs out of the mask that a judgment still awaited may count */
} votes;

/* A calm attempt's votes: only a node that answered as the incarnation it
 * was calm as, with no clock step since, counts; any other (a restart met
 * on a reused connection, a step) is out of this attempt (out), not
 * judged: without the others' maxttl answers a judgment could take a node
 * restarted empty for a new cluster's. The attempt is then made again,
 * checked (rl_acquire). Counting fewer votes never makes a second holder. */
/* node i is calm as the incarnation that answered r, and saw no clock step */
static int calm_as(const rl_calm *k, const rl_result *r)
{
    return k->on && k->inc == r->id.inc && k->known == r->id.known && !(r->id.known && r->id.step_at_us);
}

static uint64_t calm_mask(const rl_restart *rs, rl_result *res, int n, uint64_t *out)
{
    uint64_t mask = 0;
    *out = 0;
    for (int i = 0; i < n; i++) {
        rl_result *r = &res[i];
        if (r->state != RL_ANSWERED) continue;
        r->novote_ms = 0;
        if (calm_as(&rs->calm[i], r))
            mask |= (uint64_t)1 << i;
        else
            *out |= (uint64_t)1 << i;
    }
    return mask;
}

/* every node calm for this TTL: the attempt may skip the maxttl key */
static int all_calm(const rl_restart *rs, int n, int ttl_ms)
{
    for (int i = 0; i < n; i++)
        if (!rs->calm[i].on || rs->calm[i].ttl < ttl_ms) return 0;
    return 1;
}

/* after a checked attempt (the maxttl key raised to ttl_ms where the script
 * ran): a node that voted, out of no grace, with no clock step and with its
 * maxttl answer, is calm; one that answered otherwise or failed is not; one
 * not awaited keeps what it was */
static void calm_learn(rl_restart *rs, const rl_result *res, int n, uint64_t mask, int ttl_ms)
{
    for (int i = 0; i < n; i++) {
        const rl_result *r = &res[i];
        rl_calm *k = &rs->calm[i];
        if (r->state == RL_PENDING) continue;
        if (r->state == RL_ANSWERED && (mask >> i & 1) && has_maxttl(r) && r->novote_ms == 0 &&
            !(r->id.known && r->id.step_at_us)) {
            /* (what it held as another incarnation says nothing of this one) */
            int64_t before = calm_as(k, r) ? k->ttl : 0;
            int64_t t = r->reply.aux[0] > ttl_ms ? r->reply.aux[0] : ttl_ms;
            *k = (rl_calm){.on = 1, .known = r->id.known, .inc = r->id.inc, .ttl = t > before ? t : before};
        } else {
            k->on = 0;
        }
    }
}

static tally count_votes(votes *v, rl_result *res, int n)
{
    tally t = count(res, n, is_ok_status);
    if (!v || !v->c->rs) return t;
    if (v->calm) {
        v->mask = calm_mask(v->c->rs, res, n, &v->out);
        v->wait = 0;
    } else {
        uint64_t now = v->c->clock->now_us(v->c->clock->ctx);
        v->mask = rl_vote_mask(v->c->rs, res, n, now, v->drift_factor, &v->wait);
    }
    v->unjudged = 0;
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_ANSWERED && !(v->mask >> i & 1) && is_ok_status(&res[i].reply, NULL)) {
            t.ok--;
            t.no++; /* (tally.no: counted apart by the caller, see novote) */
            v->unjudged += res[i].novote_ms == 0 && !(v->out >> i & 1); /* may still vote once judged */
        }
    return t;
}

static int decide_votes(void *ud, const rl_result *res, int n)
{
    votes *v = ud;
    tally t = count_votes(v, (rl_result *)res, n);
    int q = rl_quorum(n);
    /* no quorum possible, even if every OK still to be judged votes: decided,
     * whatever a judgment still waits for */
    if (t.ok + t.pending + v->unjudged < q) return 1;
    if (v->wait) return 0;
    return t.ok >= q || t.ok + t.pending < q;
}

/* nodes that set the key but do not count (restarted, docs/api.md "Restarted nodes") */
static int novote(const rl_result *res, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += res[i].state == RL_ANSWERED && res[i].novote_ms > 0 && is_ok_status(&res[i].reply, NULL);
    return k;
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
    return question_decided(res, n, is_one, NULL);
}
static int decide_held(void *ud, const rl_result *res, int n) { return question_decided(res, n, is_token, ud); }

/* force_release: decided once a quorum answered, or can no longer */
static int decide_answered(void *ud, const rl_result *res, int n)
{
    (void)ud;
    return rl_quorum_decided(res, n, is_answer, NULL);
}

/* docs/api.md "Nodes": two nodes found to be one server void the call */
static int same_server(const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_FAILED && res[i].err == RL_E_SAME_SERVER) return 1;
    return 0;
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

static void fill_call(rl_call *call, const rl_result *res, int n, yes_fn yes) { rl_fill_call(call, res, n, yes, NULL); }

static void arg(rl_cmd *cmd, const char *s, size_t len)
{
    cmd->argv[cmd->argc] = s;
    cmd->argvlen[cmd->argc++] = len;
}

/* EVALSHA sha 1 key: a script's command, its arguments to follow */
static void evalsha1(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen)
{
    memset(cmd, 0, sizeof(*cmd));
    arg(cmd, "EVALSHA", 7);
    arg(cmd, sha, RL_TOKEN_LEN);
    arg(cmd, "1", 1);
    arg(cmd, key, keylen);
    cmd->script = script;
}

/* EVALSHA sha numkeys key [nkey] token: the token-checked scripts of the spec
 * (nkey: the attempt's key of a caller-chosen token, see rl_acquire) */
/* the list variant of a script (a key list, RL_KEY_LIST) */
static void list_script(const char **script, const char **sha, const char *key, size_t keylen)
{
    if (rl_key_is_shared(key, keylen)) {
        if (*script == rl_script_acquire) {
            *script = rl_script_acquire_shared;
            *sha = rl_script_acquire_shared_sha;
        } else if (*script == rl_script_release) {
            *script = rl_script_release_shared;
            *sha = rl_script_release_shared_sha;
        } else if (*script == rl_script_extend) {
            *script = rl_script_extend_shared;
            *sha = rl_script_extend_shared_sha;
        }
        return;
    }
    if (*script == rl_script_acquire) {
        *script = rl_script_acquire_all;
        *sha = rl_script_acquire_all_sha;
    } else if (*script == rl_script_release) {
        *script = rl_script_release_all;
        *sha = rl_script_release_all_sha;
    } else if (*script == rl_script_extend) {
        *script = rl_script_extend_all;
        *sha = rl_script_extend_all_sha;
    }
}

/* nkey (the attempt's key of a caller-chosen token): its key, NUL, 'a';
 * for a key list its first key's (the list's script writes it only when it
 * set that key, so only the holder of it does) */
static void eval_cmd(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen, const char *nkey,
                     const char *token, size_t token_len)
{
    memset(cmd, 0, sizeof(*cmd));
    size_t nkeylen = keylen + 2;
    if (rl_key_is_list(key, keylen)) {
        list_script(&script, &sha, key, keylen);
        size_t pos = 1, kl = 0;
        const char *k;
        if (nkey && rl_list_next(key, keylen, &pos, &k, &kl)) nkeylen = kl + 2; /* (its first key, then NUL 'a') */
    }
    arg(cmd, "EVALSHA", 7);
    arg(cmd, sha, RL_TOKEN_LEN);
    arg(cmd, nkey ? "2" : "1", 1);
    arg(cmd, key, keylen);
    if (nkey) arg(cmd, nkey, nkeylen);
    arg(cmd, token, token_len);
    cmd->script = script;
}

/* EVALSHA sha 1 key token [extra] */
static void script_cmd(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen,
                       const char *token, const char *extra, size_t extralen)
{
    eval_cmd(cmd, script, sha, key, keylen, NULL, token, strlen(token));
    if (extra) arg(cmd, extra, extralen);
}

static void release_tag(rl_cmd *cmd, const char *key, size_t keylen, const char *token)
{
    /* a connection keeps it in order behind the SET it undoes */
    cmd->op = RL_OP_RELEASE;
    cmd->tag = rl_lock_tag(key, keylen, token, strlen(token));
}

/* ARGV[2] of a release: its id for the waiters (rl_script_release), from the
 * CSPRNG, so that it says nothing of the token and differs at each release
 * (without random bytes, zeros: a waiter may then take it for an earlier
 * release and wait for its timer) */
static void release_id_zero(rl_cmd *cmd)
{
    memset(cmd->id, '0', RL_RELEASE_ID_LEN);
    cmd->id[RL_RELEASE_ID_LEN] = '\0';
}

static void release_id_draw(rl_cmd *cmd)
{
    if (rl_random_hex(&rl_random_system, cmd->id, RL_RELEASE_ID_LEN / 2) != 0) release_id_zero(cmd);
}

/* the id's place among the arguments; drawn later (release_id_draw) by a
 * command that may never be sent (an attempt's cleanup) */
static void release_id_slot(rl_cmd *cmd)
{
    release_id_zero(cmd);
    arg(cmd, cmd->id, RL_RELEASE_ID_LEN);
}

static void release_id(rl_cmd *cmd)
{
    release_id_draw(cmd);
    arg(cmd, cmd->id, RL_RELEASE_ID_LEN);
}

static void release_cmd(rl_cmd *cmd, const char *key, size_t keylen, const char *token)
{
    script_cmd(cmd, rl_script_release, rl_script_release_sha, key, keylen, token, NULL, 0);
    release_id(cmd);
    release_tag(cmd, key, keylen, token);
}

/* The spec's validity check after a round trip from t0 to t1: the lock counts
 * only while validity > 0, and then holds until t1 + validity. */
static int take_validity(rl_lock_info *info, int ttl_ms, uint64_t t0, uint64_t t1, double drift, int ok)
{
    int64_t validity = rl_validity_ms(ttl_ms, t1 - t0, drift);
    if (validity <= 0) return 0;
    info->start_us = t0;
    info->validity_ms = validity;
    info->valid_until_us = t1 + (uint64_t)validity * 1000u;
    info->ok = ok;
    return 1;
}

/* v in decimal and a NUL; what snprintf would give, without its cost on
 * every attempt */
static size_t fmt_int(char *buf, size_t cap, long long v)
{
    char tmp[24];
    size_t l = 0;
    if (v < 0) tmp[l++] = '-';
    l += rl_put_uint(tmp + l, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
    if (l + 1 > cap) return (size_t)snprintf(buf, cap, "%lld", v);
    memcpy(buf, tmp, l);
    buf[l] = '\0';
    return l;
}

static uint64_t retry_pause_us(const rl_ctx *c, const rl_opts *o)
{
    uint64_t us = (uint64_t)o->retry_delay_ms * 1000u;
    if (o->retry_jitter_ms > 0) {
        uint32_t r = 0;
        if (c->rnd->fill(c->rnd->ctx, &r, sizeof(r)) == 0)
            us += (uint64_t)r % ((uint64_t)o->retry_jitter_ms * 1000u + 1);
    }
    return us;
}

/* Thundering herd (docs/api.md "Waiting"). A release reaches every waiter at
 * once: woken together, their SETs could split the nodes' votes so that
 * nobody gets a quorum, and on a small machine the wake-ups alone delay
 * the handoff. So waiters space themselves out, over a time proportional to
 * their number (a release tells it: the channel's subscribers), and each
 * tries only if the latest news is a release, not another waiter's
 * "acquired":
 * - few waiters (below RL_HERD): sleep in poll() until a message comes; on
 *   a release hold back a random time within (waiters - 1) slots (one slot:
 *   one attempt's round trip), then try unless someone announced first (two
 *   waiters go at once: of two SETs one always gets a majority);
 * - many: nobody sleeps in poll(). Each sleeps a random time within
 *   2 x waiters slots and then reads, without waiting, what its
 *   subscriptions brought meanwhile: about one waiter per slot looks, so a
 *   release is seen about one slot later, by one or two of them, while the
 *   others are never woken by it. The hold-back is a sleep, not a poll, so
 *   the messages of the other nodes wake nobody.
 * The retry timer (retry_delay + jitter) stays the fallback for an expiry,
 * a lost message or a node down. */
#define RL_SLOT_MIN_US 100u
#define RL_SLOT_MAX_US 1000u
#define RL_HERD 16

static uint64_t random_below(const rl_ctx *c, uint64_t span)
{
    uint32_t r = 0;
    if (span == 0 || c->rnd->fill(c->rnd->ctx, &r, sizeof(r)) != 0) return 0;
    return (uint64_t)r % span;
}

static uint64_t slot_of(uint64_t slot_us)
{
    return slot_us < RL_SLOT_MIN_US ? RL_SLOT_MIN_US : slot_us > RL_SLOT_MAX_US ? RL_SLOT_MAX_US : slot_us;
}

/* Between two attempts of a subscribed wait, never past until_us. Returns
 * when the next attempt should go: 1 when a release sent it (a wake-up,
 * rl_lock_info.wakeups), 0 the timer. *waiters: the last count a release
 * gave; *by_cleanup: 1 when that release was a failed attempt's cleanup. */
static int wait_for_release(const rl_ctx *c, const rl_waiter *w, uint64_t until_us, uint64_t slot_us, int *waiters,
                            int *by_cleanup)
{
    rl_wake ev;
    *by_cleanup = 0;
    uint64_t slot = slot_of(slot_us);
    for (;;) {
        uint64_t now = c->clock->now_us(c->clock->ctx);
        if (now >= until_us) return 0; /* the timer */
        if (*waiters >= RL_HERD) {
            uint64_t nap = 1 + random_below(c, slot * (uint64_t)*waiters);
            if (nap > until_us - now) nap = until_us - now;
            c->clock->sleep_us(c->clock->ctx, nap);
            if (w->latest(w->ctx, &ev) != RL_WAKE_RELEASED) continue; /* nothing new, or taken again */
            *waiters = ev.waiters;
            *by_cleanup = ev.cleanup;
            return 1;
        }
        if (w->wait(w->ctx, until_us, &ev) == RL_WAKE_TIMER) return 0;
        if (ev.kind != RL_WAKE_RELEASED) continue; /* another waiter's SET: keep waiting */
        *waiters = ev.waiters;
        *by_cleanup = ev.cleanup;
        /* two can go together: one of them gets a majority whatever the order */
        uint64_t hold = ev.waiters > 2 ? random_below(c, slot * (uint64_t)(ev.waiters - 1)) : 0;
        now = c->clock->now_us(c->clock->ctx);
        if (now + hold > until_us) hold = until_us > now ? until_us - now : 0;
        if (hold == 0) return 1;
        c->clock->sleep_us(c->clock->ctx, hold);
        /* the latest news decides: taken by another waiter, or free */
        int k = w->latest(w->ctx, &ev);
        if (k == RL_WAKE_RELEASED) *by_cleanup = ev.cleanup;
        if (k != RL_WAKE_ACQUIRED) return 1;
    }
}

/* ---- rl_acquire, step by step ---- */

/* What one acquisition sends: its SET (or acquire script), the release a
 * failed attempt queues, and a waiter's variant of the SET that announces a
 * win to its shard; the buffers their arguments point into. */
typedef struct acq {
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
static int acq_token(const rl_ctx *c, const rl_opts *o, rl_lock_info *info)
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
static int acq_commands(acq *a, const rl_ctx *c, const char *key, size_t keylen, int ttl_ms, const rl_opts *o,
                        const rl_lock_info *info)
{
    const rl_restart *rs = c->rs;
    size_t ttllen = a->ttllen = fmt_int(a->ttlbuf, sizeof(a->ttlbuf), ttl_ms);
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
        eval_cmd(&a->set, rl_script_acquire, rl_script_acquire_sha, key, keylen, a->nkey, info->token, info->token_len);
        arg(&a->set, a->ttlbuf, ttllen);
        arg(&a->set, a->noshard, 0);
        arg(&a->set, a->nonce, RL_TOKEN_LEN);
        if (rs) arg(&a->set, rs->maxttl_key, rs->maxttl_keylen);
        eval_cmd(&a->rel, rl_script_release, rl_script_release_sha, key, keylen, a->nkey, info->token, info->token_len);
        release_id_slot(&a->rel);
        arg(&a->rel, a->nonce, RL_TOKEN_LEN);
    } else {
        /* the script, not a bare SET NX: it also keeps out of a fair queue;
         * with rs it raises the maxttl key and answers it (no extra round
         * trip) */
        script_cmd(&a->set, rl_script_acquire, rl_script_acquire_sha, key, keylen, info->token, a->ttlbuf, ttllen);
        arg(&a->set, a->noshard, 0);
        if (rs) {
            arg(&a->set, a->noshard, 0);
            arg(&a->set, rs->maxttl_key, rs->maxttl_keylen);
        }
        script_cmd(&a->rel, rl_script_release, rl_script_release_sha, key, keylen, info->token, NULL, 0);
        release_id_slot(&a->rel);
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
 * attempt made at once (acq_next): a release cannot slip in unseen between
 * an attempt and the wait. The waiter, or NULL when this call does not wait
 * for releases. */
static const rl_waiter *acq_subscribe(acq *a, const rl_ctx *c, const rl_opts *o, const char *key, size_t keylen,
                                      const rl_lock_info *info, uint64_t deadline)
{
    const rl_waiter *w = deadline && o->wake_on_release ? c->waiter : NULL;
    if (!w) return NULL;
    /* (no random drawn without a waiter) */
    int shard = (int)random_below(c, (uint64_t)RL_WAKE_SHARDS * RL_WAKE_SUBS);
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
        script_cmd(&a->ann, rl_script_acquire, rl_script_acquire_sha, key, keylen, info->token, a->ttlbuf, a->ttllen);
        arg(&a->ann, a->shard, 2);
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
static void writer_cmd(rl_cmd *dst, const rl_cmd *src, acq *a, const char *key, size_t keylen, const rl_lock_info *info)
{
    if (!src->script) {
        /* the plain SET: as the script (no maxttl key: ARGV[4], ARGV[5] "") */
        script_cmd(dst, rl_script_acquire, rl_script_acquire_sha, key, keylen, info->token, a->ttlbuf, a->ttllen);
        arg(dst, a->noshard, 0);
        dst->op = src->op;
        dst->tag = src->tag;
        dst->clock_check = src->clock_check;
    } else {
        *dst = *src;
    }
    int nk = dst->argv[2][0] - '0';
    while (dst->argc - 3 - nk < 5) arg(dst, a->noshard, 0);
    arg(dst, a->wms, strlen(a->wms));
}

static void acq_writer(acq *a, const rl_opts *o, const char *key, size_t keylen, const rl_lock_info *info,
                       const rl_waiter *w, uint64_t deadline)
{
    a->writer = a->wrote = 0;
    if (!deadline || rl_key_is_list(key, keylen) || keylen > RL_MAX_KEY) return;
    a->writer = 1;
    long long ms = 2 * ((long long)o->retry_delay_ms + o->retry_jitter_ms) + 1000;
    fmt_int(a->wms, sizeof(a->wms), ms);
    writer_cmd(&a->wset, &a->set, a, key, keylen, info);
    if (w) writer_cmd(&a->wann, &a->ann, a, key, keylen, info);
    memcpy(a->wkey, key, keylen);
    a->wkey[keylen] = '\0';
    a->wkey[keylen + 1] = 'w';
    memset(&a->wrem, 0, sizeof(a->wrem));
    arg(&a->wrem, "ZREM", 4);
    arg(&a->wrem, a->wkey, keylen + 2);
    arg(&a->wrem, info->token, info->token_len);
    release_tag(&a->wrem, key, keylen, info->token);
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
 * still counted from t0, before the SET. 1 when the lock is ours. */
static int acq_won(const rl_ctx *c, const rl_opts *o, rl_lock_info *info, int ttl_ms, uint64_t t0, uint64_t t1,
                   tally *t, rl_call *call)
{
    int fr = o->fence_key ? rl_fence_phases(c, o->fence_key, o->fence_keylen, &info->fence, call) : RL_ACQUIRED;
    if (fr == RL_NO_QUORUM) t->failed = c->n;
    if (fr == RL_ACQUIRED && o->fence_key) t1 = c->clock->now_us(c->clock->ctx);
    return fr == RL_ACQUIRED && take_validity(info, ttl_ms, t0, t1, o->drift_factor, t->ok);
}

/* step 6, between attempts (retry and wake policy): 0 to try again, 1 to stop.
 * With wait: until the deadline, never sleeping past it, woken by a release;
 * else retry_count more attempts, never sleeping after the last. */
static int acq_next(const rl_ctx *c, const rl_opts *o, const rl_waiter *w, int attempt, uint64_t deadline,
                    int *confirmed, uint64_t slot_us, int *waiters, rl_lock_info *info, uint64_t max_pause_us,
                    int *by_cleanup)
{
    *by_cleanup = 0;
    uint64_t now = c->clock->now_us(c->clock->ctx);
    uint64_t pause = retry_pause_us(c, o);
    if (max_pause_us && pause > max_pause_us) pause = max_pause_us;
    if (deadline) {
        if (now >= deadline) return 1;
        if (now + pause > deadline) pause = deadline - now;
    } else if (attempt >= o->retry_count) {
        return 1;
    }
    if (w && !*confirmed) {
        w->ready(w->ctx, deadline);
        *confirmed = 1;
        return 0;
    }
    if (w)
        info->wakeups += wait_for_release(c, w, now + pause, slot_us, waiters, by_cleanup);
    else if (pause)
        c->clock->sleep_us(c->clock->ctx, pause);
    return 0;
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
static int acq_fair(acq *a, const rl_ctx *c, const rl_opts *o, const char *key, size_t keylen, uint64_t deadline)
{
    a->fair = a->queued = 0;
    if (!o->fair || !deadline || rl_key_is_list(key, keylen) || keylen > RL_MAX_KEY) return 0;
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
    arg(&a->fset, a->fid, RL_FAIR_ID_LEN);
    arg(&a->fset, a->ticket, 1);
    arg(&a->fset, a->ttlbuf, a->ttllen);
    if (!a->nonced) arg(&a->rel, a->noshard, 0);
    arg(&a->rel, a->fid, RL_FAIR_ID_LEN);
}

/* the end of a queued wait: out of the queue on every node, won or given
 * up (a node that set the key for us keeps our entry until then, so that
 * a win on a minority, released again, does not cost us our place); made
 * here, not up front: an uncontended fair lock() draws no id for it */
static void acq_fair_leave(acq *a, const rl_ctx *c, const char *key, size_t keylen, const rl_lock_info *info)
{
    rl_result rr[RL_MAX_NODES];
    evalsha1(&a->leave, rl_script_fair_leave, rl_script_fair_leave_sha, key, keylen);
    arg(&a->leave, a->fid, RL_FAIR_ID_LEN);
    release_id(&a->leave);
    release_tag(&a->leave, key, keylen, info->token);
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
        else if (res[i].state == RL_ANSWERED && is_ok_status(&res[i].reply, NULL))
            ok++;
    }
    return ok >= f->q || rl_incr_believed(res, n, &top) >= f->q || pending == 0;
}

/* the ticket from a first fair attempt's answers: 1 when a quorum gave one */
static int fair_ticket(acq *a, const rl_result *res, int n, int q)
{
    int64_t top;
    if (rl_incr_believed(res, n, &top) < q || top < 1) return 0;
    a->fset.argvlen[a->fset.argc - 2] = fmt_int(a->ticket, sizeof(a->ticket), (long long)top);
    a->queued = 1;
    return 1;
}

int rl_acquire(const rl_ctx *c, const char *key, size_t keylen, int ttl_ms, const rl_opts *o, rl_lock_info *info,
               rl_call *call)
{
    /* the attempt's own answers (fill_call copies them into call->res): the
     * fence phases (acq_won) write theirs into call->res, and a failed
     * attempt's fair_ticket and same_server read these */
    rl_result res[RL_MAX_NODES];
    int n = c->n, q = rl_quorum(n);
    const rl_restart *rs = c->rs;
    acq a;

    if (n < 1 || n > RL_MAX_NODES || ttl_ms < 1) return RL_ERROR;
    memset(info, 0, sizeof(*info));
    if (acq_token(c, o, info) != 0 || acq_commands(&a, c, key, keylen, ttl_ms, o, info) != 0) return RL_ERROR;
    uint64_t first = c->clock->now_us(c->clock->ctx);
    uint64_t deadline = o->wait_ms > 0 ? first + (uint64_t)o->wait_ms * 1000u : 0;
    if (acq_fair(&a, c, o, key, keylen, deadline) != 0) return RL_ERROR;
    const rl_waiter *w = acq_subscribe(&a, c, o, key, keylen, info, deadline);
    acq_writer(&a, o, key, keylen, info, w, deadline);
    acq_fair_cmd(&a);
    /* a fair waiter renews its entry (it lapses ttl_ms after an attempt) */
    uint64_t max_pause = a.fair ? (uint64_t)ttl_ms * 500u : 0;
    int confirmed = 0, waiters = 1, outcome = RL_CONFLICT, redo = 0, by_cleanup = 0;
    for (int attempt = 0;; attempt++) {
        info->attempts = attempt + 1;
        if (a.nonced && rl_make_token(c->rnd, a.nonce) != 0) {
            outcome = RL_ERROR;
            break;
        }
        uint64_t t0 = c->clock->now_us(c->clock->ctx);
        /* a waiter's later attempts tell the other waiters of its shard when
         * they win, if there are some that hold back (three or more) */
        const rl_cmd *try_cmd = w && attempt > 0 && waiters > 2 ? &a.ann : &a.set;
        if (a.writer && attempt > 0) {
            try_cmd = try_cmd == &a.ann ? &a.wann : &a.wset;
            a.wrote = 1;
        }
        votes v = {.c = c, .drift_factor = o->drift_factor};
        /* (not for a fair attempt: fset, below, always carries the key) */
        if (rs && !a.fair && try_cmd == &a.set && !redo && all_calm(rs, n, ttl_ms)) {
            try_cmd = &a.calm;
            v.calm = 1;
        }
        rl_decide_fn decide = rs ? decide_votes : decide_ok_set;
        void *dud = rs ? &v : NULL;
        fair_decide fd = {.inner = decide, .ud = dud, .q = q};
        if (a.fair) {
            try_cmd = &a.fset;
            a.wrote = 1;
            if (!a.queued) {
                decide = decide_fair;
                dud = &fd;
            }
        }
        if (c->tp->fanout(c->tp->ctx, try_cmd, res, n, decide, dud) != 0) {
            outcome = RL_ERROR;
            break;
        }
        uint64_t t1 = c->clock->now_us(c->clock->ctx);
        fill_call(call, res, n, is_ok_status);
        tally t = count_votes(rs ? &v : NULL, res, n);
        if (rs && !v.calm) calm_learn(c->rs, res, n, v.mask, ttl_ms);
        /* a node that failed a calm attempt, or answered one as another
         * incarnation, is calm no more: the next attempt checks it */
        for (int i = 0; rs && v.calm && i < n; i++)
            if ((v.out >> i & 1) || res[i].state == RL_FAILED) c->rs->calm[i].on = 0;
        int nv = rs ? novote(res, n) : 0;
        if (call) call->ok = t.ok;
        int any = acq_cleanup_mask(&a.rel, res, n);
        if (t.ok >= q && !same_server(res, n) && acq_won(c, o, info, ttl_ms, t0, t1, &t, call)) {
            outcome = RL_ACQUIRED;
            break;
        }
        /* a node out of the quorum after a restart is no failure, but the
         * quorum it cannot make is missing as if it were down */
        outcome = t.failed + nv > n - q ? RL_NO_QUORUM : RL_CONFLICT;
        if (same_server(res, n)) outcome = RL_SAME_SERVER;
        if (any) {
            rl_result rr[RL_MAX_NODES];
            release_id_draw(&a.rel);
            /* marked (rl.h RL_ID_CLEANUP): a cleanup wakes one waiter, the
             * cleanup of an attempt a cleanup woke nobody */
            a.rel.id[0] = by_cleanup ? RL_ID_QUIET : RL_ID_CLEANUP;
            if (c->tp->fanout(c->tp->ctx, &a.rel, rr, n, NULL, NULL) != 0) {
                outcome = RL_ERROR;
                break;
            }
        }
        if (outcome == RL_SAME_SERVER) break; /* a configuration error: retrying cannot help */
        if (v.out && !redo) {
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
        if (acq_next(c, o, w, attempt, deadline, &confirmed, t1 - t0, &waiters, info, max_pause, &by_cleanup)) break;
    }
    if (w) w->unsubscribe(w->ctx);
    rl_result rr[RL_MAX_NODES];
    if (a.wrote && outcome != RL_ACQUIRED) (void)c->tp->fanout(c->tp->ctx, &a.wrem, rr, n, NULL, NULL);
    if (a.queued) acq_fair_leave(&a, c, key, keylen, info);
    if (outcome == RL_ACQUIRED && a.nonced && rl_key_is_shared(key, keylen)) {
        /* a demotion this attempt made is final: other readers may join */
        rl_cmd conf;
        evalsha1(&conf, rl_script_shared_confirm, rl_script_shared_confirm_sha, key, keylen);
        arg(&conf, a.nonce, RL_TOKEN_LEN);
        release_tag(&conf, key, keylen, info->token);
        conf.nowait = 1;
        (void)c->tp->fanout(c->tp->ctx, &conf, rr, n, NULL, NULL);
    }
    return outcome;
}

/* ---- rl_acquire_permit: one of a semaphore's permits (see rl_script_permit) ---- */

#define PERMIT_WORDS (RL_MAX_PERMITS / 64)
/* the slots' bitmap is whole in rl_reply.str: no slot list goes through a
 * buffer it may not fit (a list of 129 bytes or more was read as "no slot") */
typedef char permit_bitmap_fits[RL_MAX_PERMITS / 8 <= RL_TOKEN_MAX ? 1 : -1];

/* What a node's permit answer says (rl_script_permit, rl_script_permit_find). */
enum {
    PA_BAD = -1, /* cannot be decoded: a failed node (never trusted, never a slot) */
    PA_NONE,     /* nil: it set nothing (fewer than w free; find: no slot of ours) */
    PA_SLOTS,    /* the bitmap of the slots: (limit + 7) / 8 bytes, no bit past the limit */
    PA_LIMIT     /* another limit (1..RL_MAX_PERMITS) is stored while a slot of it is held */
};

static int popcount8(unsigned v)
{
    int k = 0;
    for (; v; v &= v - 1) k++;
    return k;
}

/* the answer r into bits (PERMIT_WORDS words) and *count; *olim for PA_LIMIT */
static int permit_answer(const rl_reply *r, int limit, uint64_t *bits, int *count, int *olim)
{
    memset(bits, 0, sizeof(uint64_t) * PERMIT_WORDS);
    *count = 0;
    if (r->type == RL_REPLY_NIL) return PA_NONE;
    if (r->type == RL_REPLY_INTEGER) {
        if (r->integer < 1 || r->integer > RL_MAX_PERMITS || r->integer == limit) return PA_BAD;
        *olim = (int)r->integer;
        return PA_LIMIT;
    }
    size_t nb = (size_t)(limit + 7) / 8;
    if (r->type != RL_REPLY_STRING || r->len != nb) return PA_BAD;
    for (size_t k = 0; k < nb; k++) {
        unsigned v = (unsigned char)r->str[k];
        bits[k / 8] |= (uint64_t)v << (k % 8 * 8);
        *count += popcount8(v);
    }
    if (limit % 8 && (unsigned char)r->str[nb - 1] >> (limit % 8)) return PA_BAD; /* a slot past the limit */
    return *count ? PA_SLOTS : PA_BAD;
}

static int bit_at(const uint64_t *bits, int s) { return (int)(bits[s / 64] >> (s % 64) & 1); }

/* a failed node, as the tallies counted it: its reason for the exceptions */
static void permit_bad(rl_result *r)
{
    r->state = RL_FAILED;
    r->err = RL_E_PROTO;
    snprintf(r->reason, sizeof(r->reason), "unexpected permit answer");
}

typedef struct permit_tally {
    const rl_ctx *c;
    double drift_factor;
    int limit, weight, wait;
    uint64_t mask;    /* voting nodes (all without the restart check) */
    uint64_t decoded; /* nodes whose answer is in kind[], bits[], olim[] */
    signed char kind[RL_MAX_NODES];
    int olim[RL_MAX_NODES];
    uint64_t bits[RL_MAX_NODES][PERMIT_WORDS];
    /* the largest set of voting nodes that answered the same w slots, and
     * one of them (-1 none): a permit is the slots one quorum holds together */
    int best, best_node;
    int answered, failed, pending, novote, limits;
    int mute; /* answered, not voting */
} permit_tally;

static void permit_count(permit_tally *t, const rl_result *res, int n)
{
    t->answered = t->failed = t->pending = t->novote = t->limits = t->mute = 0;
    t->best = 0;
    t->best_node = -1;
    t->mask = ~(uint64_t)0;
    t->wait = 0;
    if (t->c->rs) {
        uint64_t now = t->c->clock->now_us(t->c->clock->ctx);
        t->mask = rl_vote_mask(t->c->rs, (rl_result *)res, n, now, t->drift_factor, &t->wait);
    }
    for (int i = 0; i < n; i++) {
        if (res[i].state == RL_PENDING) {
            t->pending++;
            continue;
        }
        if (res[i].state == RL_ANSWERED && !(t->decoded >> i & 1)) {
            int k;
            t->kind[i] = (signed char)permit_answer(&res[i].reply, t->limit, t->bits[i], &k, &t->olim[i]);
            if (t->kind[i] == PA_SLOTS && k != t->weight) t->kind[i] = PA_BAD; /* the script sets w */
            t->decoded |= (uint64_t)1 << i;
        }
        if (res[i].state == RL_FAILED || t->kind[i] == PA_BAD) {
            t->failed++;
            continue;
        }
        t->answered++;
        if (!(t->mask >> i & 1)) {
            t->novote += t->kind[i] == PA_SLOTS;
            t->mute++;
            continue;
        }
        t->limits += t->kind[i] == PA_LIMIT;
        if (t->kind[i] != PA_SLOTS) continue;
        int same = 0;
        for (int j = 0; j < n; j++)
            same += res[j].state == RL_ANSWERED && (t->mask >> j & 1) && t->kind[j] == PA_SLOTS &&
                    memcmp(t->bits[j], t->bits[i], sizeof(t->bits[i])) == 0;
        if (same > t->best) {
            t->best = same;
            t->best_node = i;
        }
    }
}

/* decided once a quorum set the same slots, or once none still can */
static int decide_permit(void *ud, const rl_result *res, int n)
{
    permit_tally *t = ud;
    permit_count(t, res, n);
    if (t->wait) return 0;
    int q = rl_quorum(n);
    return t->best >= q || t->best + t->pending < q;
}

/* node j voted and answered another limit, lim */
static int names_limit(const permit_tally *t, const rl_result *res, int j, int lim)
{
    return res[j].state == RL_ANSWERED && (t->mask >> j & 1) && t->kind[j] == PA_LIMIT && t->olim[j] == lim;
}

/* the limit that the nodes answering another one name most often */
static int permit_other_limit(const permit_tally *t, const rl_result *res, int n)
{
    int top = 0, most = 0;
    for (int i = 0; i < n; i++) {
        if (!names_limit(t, res, i, t->olim[i])) continue;
        int k = 0;
        for (int j = 0; j < n; j++) k += names_limit(t, res, j, t->olim[i]);
        if (k > most) {
            most = k;
            top = t->olim[i];
        }
    }
    return top;
}

/* After an attempt that no quorum won: the start of the next try of the same
 * attempt, a slot that can still win (-1 none). A node that answered the
 * slots it took from start st has every slot it passed over held by
 * another; one that set none, or answered another limit, has none for us.
 * A slot is out when those nodes, with the failed ones and those that do
 * not vote, leave fewer than a quorum. Starts tried are in tried. */
static int permit_next_start(const permit_tally *t, const rl_result *res, int n, int st, uint64_t *tried)
{
    short held[RL_MAX_PERMITS];
    int lim = t->limit, q = rl_quorum(n), out = t->failed + t->mute;
    memset(held, 0, sizeof(short) * (size_t)lim);
    for (int i = 0; i < n; i++) {
        if (res[i].state != RL_ANSWERED || !(t->decoded >> i & 1) || t->kind[i] == PA_BAD) continue;
        if (!(t->mask >> i & 1)) continue;
        if (t->kind[i] != PA_SLOTS) {
            for (int s = 0; s < lim; s++) held[s]++;
            continue;
        }
        for (int k = 0, seen = 0; k < lim && seen < t->weight; k++) {
            int s = (st + k) % lim;
            if (bit_at(t->bits[i], s))
                seen++;
            else
                held[s]++;
        }
    }
    for (int k = 1; k < lim; k++) {
        int s = (st + k) % lim;
        if (!bit_at(tried, s) && held[s] + out <= n - q) return s;
    }
    return -1;
}

/* the key list of the slots sp . i kept (their bits in keep, count of them); NULL
 * when out of memory */
static char *slot_list(const char *sp, size_t splen, const uint64_t *keep, int limit, int count, size_t *len)
{
    size_t cap = 1 + (size_t)count * (splen + 2 + 5);
    char *buf = malloc(cap), key[RL_MAX_KEY + 16];
    if (!buf) return NULL;
    *len = 0;
    memcpy(key, sp, splen);
    for (int s = 0; s < limit; s++) {
        if (!(keep[s / 64] >> (s % 64) & 1)) continue;
        size_t kl = splen + (size_t)snprintf(key + splen, sizeof(key) - splen, "%d", s);
        if (rl_list_add(buf, cap, len, key, kl) != 0) {
            free(buf);
            return NULL;
        }
    }
    return buf;
}

/* the slots in bits as ranges ("3-5,9") into buf; its length */
static size_t permit_ranges(const uint64_t *bits, int limit, char *buf, size_t cap)
{
    size_t len = 0;
    for (int s = 0; s < limit; s++) {
        if (!(bits[s / 64] >> (s % 64) & 1)) continue;
        int e = s;
        while (e + 1 < limit && (bits[(e + 1) / 64] >> ((e + 1) % 64) & 1)) e++;
        int w = e > s ? snprintf(buf + len, cap - len, "%s%d-%d", len ? "," : "", s, e)
                      : snprintf(buf + len, cap - len, "%s%d", len ? "," : "", s);
        if (w < 0 || (size_t)w >= cap - len) return len;
        len += (size_t)w;
        s = e;
    }
    return len;
}

/* the cleanup (rl_script_permit_trim, queued behind the attempt) on the nodes not in skip */
static int permit_trim(const rl_ctx *c, const char *sp, size_t splen, const uint64_t *keep, int limit,
                       const rl_lock_info *info, uint64_t tag, uint64_t skip)
{
    rl_cmd cmd;
    rl_result rr[RL_MAX_NODES];
    char kept[RL_MAX_PERMITS * 6];
    size_t klen = permit_ranges(keep, limit, kept, sizeof(kept));
    eval_cmd(&cmd, rl_script_permit_trim, rl_script_permit_trim_sha, sp, splen, NULL, info->token, info->token_len);
    arg(&cmd, kept, klen);
    cmd.op = RL_OP_RELEASE;
    cmd.tag = tag; /* behind the permit's script on each connection, kept for a reconnect */
    cmd.nowait = 1;
    cmd.skip = skip;
    return c->tp->fanout(c->tp->ctx, &cmd, rr, c->n, NULL, NULL);
}

/* A try that a quorum did not win is made again at once, as the same
 * attempt (no retry used, no pause), from a slot that can still win
 * (permit_next_start), at most this many times: a permit free on a quorum
 * is not refused because the start drawn is held on a node that the others
 * need (2 of 5 nodes down: the start of a holder that the nodes up do not
 * all know). Each try is one round trip and its trim. */
#define PERMIT_REDOS 3

int rl_acquire_permit(const rl_ctx *c, const char *key, size_t keylen, int limit, int weight, int ttl_ms,
                      const rl_opts *o, rl_lock_info *info, char **slots, size_t *slotslen, int *other_limit,
                      rl_call *call)
{
    /* the attempt's own answers: the fence phases (acq_won) write theirs
     * into call->res, and the trim below reads these */
    rl_result res[RL_MAX_NODES];
    int n = c->n, q = rl_quorum(n);
    const rl_restart *rs = c->rs;
    *slots = NULL;
    *slotslen = 0;
    *other_limit = 0;
    if (n < 1 || n > RL_MAX_NODES || ttl_ms < 1 || limit < 1 || limit > RL_MAX_PERMITS || weight < 1 ||
        weight > limit || keylen + 2 > RL_MAX_KEY || o->token)
        return RL_ERROR;
    memset(info, 0, sizeof(*info));
    if (acq_token(c, o, info) != 0) return RL_ERROR;
    char sp[RL_MAX_KEY + 2], ttlbuf[24], limbuf[8], wbuf[8], stbuf[8];
    memcpy(sp, key, keylen);
    sp[keylen] = '\0';
    sp[keylen + 1] = 'p';
    size_t splen = keylen + 2;
    size_t ttllen = fmt_int(ttlbuf, sizeof(ttlbuf), ttl_ms), limlen = fmt_int(limbuf, sizeof(limbuf), limit),
           wlen = fmt_int(wbuf, sizeof(wbuf), weight);
    uint64_t tag = rl_lock_tag(sp, splen, info->token, info->token_len);
    uint64_t first = c->clock->now_us(c->clock->ctx);
    uint64_t deadline = o->wait_ms > 0 ? first + (uint64_t)o->wait_ms * 1000u : 0;
    /* waiters listen on the slots' channel (their release script publishes there) */
    const rl_waiter *w = deadline && o->wake_on_release ? c->waiter : NULL;
    if (w && w->subscribe(w->ctx, sp, splen, (int)random_below(c, (uint64_t)RL_WAKE_SHARDS * RL_WAKE_SUBS), NULL) != 0)
        w = NULL;
    int confirmed = 0, waiters = 1, outcome = RL_CONFLICT, redos = 0, start = -1;
    uint64_t tried[PERMIT_WORDS];
    permit_tally tally_, *t = &tally_;
    for (int attempt = 0;; attempt++) {
        info->attempts = attempt + 1;
        if (start < 0) {
            start = (int)random_below(c, (uint64_t)limit);
            redos = 0;
            memset(tried, 0, sizeof(tried));
        }
        tried[start / 64] |= (uint64_t)1 << (start % 64);
        size_t stlen = fmt_int(stbuf, sizeof(stbuf), start);
        rl_cmd cmd;
        eval_cmd(&cmd, rl_script_permit, rl_script_permit_sha, sp, splen, NULL, info->token, info->token_len);
        arg(&cmd, ttlbuf, ttllen);
        arg(&cmd, limbuf, limlen);
        arg(&cmd, wbuf, wlen);
        arg(&cmd, stbuf, stlen);
        if (rs) arg(&cmd, rs->maxttl_key, rs->maxttl_keylen);
        cmd.op = RL_OP_SET;
        cmd.tag = tag;
        cmd.clock_check = rs != NULL;
        *t = (permit_tally){.c = c, .drift_factor = o->drift_factor, .limit = limit, .weight = weight};
        uint64_t t0 = c->clock->now_us(c->clock->ctx);
        if (c->tp->fanout(c->tp->ctx, &cmd, res, n, decide_permit, t) != 0) {
            outcome = RL_ERROR;
            break;
        }
        uint64_t t1 = c->clock->now_us(c->clock->ctx);
        permit_count(t, res, n);
        for (int i = 0; i < n; i++)
            if (res[i].state == RL_ANSWERED && t->kind[i] == PA_BAD) permit_bad(&res[i]);
        fill_call(call, res, n, is_answer);
        /* the w slots kept: those that a quorum of the same nodes set */
        uint64_t keep[PERMIT_WORDS] = {0};
        int quorum = t->best >= q;
        if (quorum) memcpy(keep, t->bits[t->best_node], sizeof(keep));
        if (call) call->ok = t->best;
        tally ft = {.ok = quorum ? t->best : 0, .failed = t->failed};
        int won = quorum && !same_server(res, n) && acq_won(c, o, info, ttl_ms, t0, t1, &ft, call);
        if (won) {
            *slots = slot_list(sp, splen, keep, limit, weight, slotslen);
            if (!*slots) won = 0; /* out of memory for the list: nothing is handed out */
        }
        /* the cleanup goes to every node that may hold a slot of this attempt
         * we do not keep: those that answered other slots, whose answer could
         * not be decoded, or that have not answered (a failed attempt keeps
         * none) */
        uint64_t none[PERMIT_WORDS] = {0}, skip = 0;
        const uint64_t *final_keep = won ? keep : none;
        for (int i = 0; i < n; i++) {
            int extra = !res[i].sent ? 0 : res[i].state != RL_ANSWERED || res[i].resent;
            if (res[i].state == RL_ANSWERED && t->kind[i] == PA_SLOTS)
                for (int k = 0; k < PERMIT_WORDS; k++) extra |= (t->bits[i][k] & ~final_keep[k]) != 0;
            if (!extra) skip |= (uint64_t)1 << i;
        }
        if (~skip & (((uint64_t)1 << (n - 1) << 1) - 1)) {
            if (permit_trim(c, sp, splen, final_keep, limit, info, tag, skip) != 0) {
                if (won) { /* (nothing is handed out: the kept slots go too) */
                    permit_trim(c, sp, splen, none, limit, info, tag, 0);
                    free(*slots);
                    *slots = NULL;
                }
                outcome = RL_ERROR;
                break;
            }
        }
        if (won) {
            outcome = RL_ACQUIRED;
            break;
        }
        outcome = t->failed + t->novote > n - q ? RL_NO_QUORUM : RL_CONFLICT;
        if (same_server(res, n)) outcome = RL_SAME_SERVER;
        /* another limit only when enough nodes say so to decide: one node's
         * answer (a stale or forged r "\0pL") vetoes nothing */
        if (t->limits > n - q) {
            *other_limit = permit_other_limit(t, res, n);
            outcome = RL_LIMIT;
        }
        if (outcome == RL_SAME_SERVER || outcome == RL_LIMIT) break;
        if (!quorum && redos < PERMIT_REDOS && (start = permit_next_start(t, res, n, start, tried)) >= 0) {
            redos++;
            attempt--; /* the same attempt, from a slot that can still win */
            continue;
        }
        start = -1;
        int by_cleanup; /* (a permit's trim is not marked: rl.h RL_ID_CLEANUP) */
        if (acq_next(c, o, w, attempt, deadline, &confirmed, t1 - t0, &waiters, info, 0, &by_cleanup)) break;
    }
    if (w) w->unsubscribe(w->ctx);
    return outcome;
}

int rl_release(const rl_ctx *c, const char *key, size_t keylen, const char *token, rl_call *call)
{
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n, q = rl_quorum(n);
    rl_cmd rel;
    if (n < 1 || n > RL_MAX_NODES) return RL_ERROR;
    release_cmd(&rel, key, keylen, token);
    if (c->tp->fanout(c->tp->ctx, &rel, res, n, decide_ok_one, NULL) != 0) return RL_ERROR;
    tally t = count(res, n, is_one);
    fill_call(call, res, n, is_one);
    if (same_server(res, n)) return RL_SAME_SERVER;
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

typedef struct ext_ud {
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
        } else if (res[i].state == RL_ANSWERED && is_one(&res[i].reply, NULL)) {
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

static void repair(const rl_ctx *c, const char *key, size_t keylen, const char *token, const char *ttl, size_t ttllen,
                   const rl_lock_info *info, rl_result *res)
{
    int n = c->n;
    uint64_t fix = 0;
    for (int i = 0; i < n; i++) {
        if (repairable(&res[i], info->start_us)) fix |= (uint64_t)1 << i;
    }
    if (!fix) return;
    rl_cmd set;
    if (rl_key_is_list(key, keylen)) {
        /* every key back, or none (the list's acquire script, as SET NX) */
        eval_cmd(&set, rl_script_acquire, rl_script_acquire_sha, key, keylen, NULL, token, strlen(token));
        arg(&set, ttl, ttllen);
        arg(&set, "", 0);
    } else {
        memset(&set, 0, sizeof(set));
        arg(&set, "SET", 3);
        arg(&set, key, keylen);
        arg(&set, token, strlen(token));
        arg(&set, "NX", 2);
        arg(&set, "PX", 2);
        arg(&set, ttl, ttllen);
    }
    set.op = RL_OP_SET;
    set.tag = rl_lock_tag(key, keylen, token, strlen(token));
    set.skip = ~fix;
    rl_result rr[RL_MAX_NODES];
    if (c->tp->fanout(c->tp->ctx, &set, rr, n, decide_repaired, &fix) != 0) return;
    for (int i = 0; i < n; i++)
        if ((fix >> i & 1) && rr[i].state == RL_ANSWERED && is_ok_status(&rr[i].reply, NULL)) res[i].reply.integer = 1;
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
    size_t ttllen = fmt_int(ttlbuf, sizeof(ttlbuf), ttl_ms);
    script_cmd(&ext, rl_script_extend, rl_script_extend_sha, key, keylen, token, ttlbuf, ttllen);
    if (c->rs) arg(&ext, c->rs->maxttl_key, c->rs->maxttl_keylen); /* raise and learn the longest TTL */

    uint64_t t0 = c->clock->now_us(c->clock->ctx);
    ext_ud xu = {.info = info, .repair = c->rs && may_repair(c, info)};
    if (c->tp->fanout(c->tp->ctx, &ext, res, n, c->rs ? decide_extend : decide_ok_one, c->rs ? &xu : NULL) != 0) {
        /* some nodes may have got the PEXPIRE */
        cap_validity(info, t0, c->clock->now_us(c->clock->ctx), ttl_ms, drift_factor);
        return RL_ERROR;
    }
    if (c->rs) {
        if (xu.repair && may_repair(c, info)) repair(c, key, keylen, token, ttlbuf, ttllen, info, res);
        /* learn the longest TTL that enough credible answers prove */
        uint64_t now = c->clock->now_us(c->clock->ctx), cred = 0;
        for (int i = 0; i < n; i++)
            if (rl_maxttl_credible(&res[i], now)) cred |= (uint64_t)1 << i;
        int64_t proven = rl_maxttl_proven(res, n, cred);
        if (proven > c->rs->maxttl_ms) c->rs->maxttl_ms = proven;
    }
    uint64_t t1 = c->clock->now_us(c->clock->ctx);
    tally t = count(res, n, is_one);
    fill_call(call, res, n, is_one);
    if (same_server(res, n)) {
        /* the quorum the lock was counted on had one server twice */
        no_validity(info);
        return RL_SAME_SERVER;
    }
    if (t.ok >= q) {
        if (take_validity(info, ttl_ms, t0, t1, drift_factor, t.ok)) return RL_EXTENDED;
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

/* One question to every node about a key ("EXISTS key", "GET key", "DEL key"):
 * *t counts the answers yes() accepts. Returns 0, RL_ERROR or RL_SAME_SERVER. */
static int ask_nodes(const rl_ctx *c, const char *verb, const char *key, size_t keylen, rl_decide_fn decide, yes_fn yes,
                     const void *ud, rl_call *call, tally *t)
{
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n;
    rl_cmd cmd;
    if (n < 1 || n > RL_MAX_NODES) return RL_ERROR;
    memset(&cmd, 0, sizeof(cmd));
    if (rl_key_is_list(key, keylen)) {
        /* isHeld() of a key list: our token where every key holds it */
        if (!ud || yes != is_token) return RL_ERROR;
        const token_ref *tok = ud;
        int sh = rl_key_is_shared(key, keylen);
        arg(&cmd, "EVALSHA", 7);
        arg(&cmd, sh ? rl_script_held_shared_sha : rl_script_held_all_sha, RL_TOKEN_LEN);
        arg(&cmd, "1", 1);
        arg(&cmd, key, keylen);
        arg(&cmd, tok->token, tok->len);
        cmd.script = sh ? rl_script_held_shared : rl_script_held_all;
    } else {
        arg(&cmd, verb, strlen(verb));
        arg(&cmd, key, keylen);
    }
    if (c->tp->fanout(c->tp->ctx, &cmd, res, n, decide, (void *)ud) != 0) return RL_ERROR;
    *t = rl_count(res, n, yes, ud);
    rl_fill_call(call, res, n, yes, ud);
    return same_server(res, n) ? RL_SAME_SERVER : 0;
}

/* a yes/no question: a quorum of yes, or too few answers to say no */
static int yes_no(tally t, int q) { return t.ok >= q ? RL_YES : t.answered < q ? RL_NO_QUORUM : RL_NO; }

int rl_is_locked(const rl_ctx *c, const char *key, size_t keylen, rl_call *call)
{
    tally t;
    int r = ask_nodes(c, "EXISTS", key, keylen, decide_exists, is_one, NULL, call, &t);
    return r ? r : yes_no(t, rl_quorum(c->n));
}

int rl_is_held(const rl_ctx *c, const char *key, size_t keylen, const char *token, size_t token_len, rl_call *call)
{
    tally t;
    token_ref ref = {token, token_len};
    if (!token || token_len < 1 || token_len > RL_TOKEN_MAX) return RL_ERROR;
    int r = ask_nodes(c, "GET", key, keylen, decide_held, is_token, &ref, call, &t);
    return r ? r : yes_no(t, rl_quorum(c->n));
}

int rl_force_release(const rl_ctx *c, const char *key, size_t keylen, rl_call *call)
{
    tally t;
    /* sent to every node at once: those not awaited still delete the key */
    int r = ask_nodes(c, "DEL", key, keylen, decide_answered, is_answer, NULL, call, &t);
    return r ? r : t.ok >= rl_quorum(c->n) ? RL_RELEASED : RL_NO_QUORUM;
}

/* a node that holds some of the slots asked for */
static int names_slots(const rl_reply *r, const void *ud)
{
    (void)ud;
    return r->type == RL_REPLY_STRING;
}

/* restore() of a permit (docs/api.md "Restore"): which slots hold our token on a
 * quorum of the same nodes (HACKING.md "Semaphores": a permit is the slots
 * one quorum holds together). Every node is asked (not decided at the
 * quorum: a rare call, and a slot held on a quorum is then certain to be
 * seen). An answer that cannot be decoded is a failed node. RL_ACQUIRED:
 * *slots (malloc'd) the key list of those slots, *found their number;
 * RL_LOST none; RL_NO_QUORUM fewer than a quorum answered. */
int rl_find_permit(const rl_ctx *c, const char *key, size_t keylen, int limit, const char *token, size_t token_len,
                   char **slots, size_t *slotslen, int *found, rl_call *call)
{
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n, q = rl_quorum(n);
    *slots = NULL;
    *slotslen = 0;
    *found = 0;
    if (n < 1 || n > RL_MAX_NODES || limit < 1 || limit > RL_MAX_PERMITS || keylen + 2 > RL_MAX_KEY) return RL_ERROR;
    char sp[RL_MAX_KEY + 2], limbuf[8];
    memcpy(sp, key, keylen);
    sp[keylen] = '\0';
    sp[keylen + 1] = 'p';
    size_t splen = keylen + 2;
    rl_cmd cmd;
    evalsha1(&cmd, rl_script_permit_find, rl_script_permit_find_sha, sp, splen);
    arg(&cmd, token, token_len);
    arg(&cmd, limbuf, fmt_int(limbuf, sizeof(limbuf), limit));
    if (c->tp->fanout(c->tp->ctx, &cmd, res, n, NULL, NULL) != 0) return RL_ERROR;
    /* per node the slots of ours it holds; all: those held on a quorum */
    uint64_t bits[RL_MAX_NODES][PERMIT_WORDS], all[PERMIT_WORDS], keep[PERMIT_WORDS] = {0};
    short count[RL_MAX_PERMITS];
    memset(count, 0, sizeof(count));
    int answered = 0, best = 0;
    for (int i = 0; i < n; i++) {
        int k, olim, kind = PA_BAD;
        if (res[i].state == RL_ANSWERED) kind = permit_answer(&res[i].reply, limit, bits[i], &k, &olim);
        if (kind != PA_SLOTS) memset(bits[i], 0, sizeof(bits[i]));
        if (res[i].state != RL_ANSWERED) continue;
        if (kind != PA_NONE && kind != PA_SLOTS) {
            permit_bad(&res[i]);
            continue;
        }
        answered++;
        for (int s = 0; s < limit; s++) count[s] += (short)bit_at(bits[i], s);
    }
    fill_call(call, res, n, names_slots);
    if (same_server(res, n)) return RL_SAME_SERVER;
    if (answered < q) return RL_NO_QUORUM;
    memset(all, 0, sizeof(all));
    for (int s = 0; s < limit; s++)
        if (count[s] >= q) all[s / 64] |= (uint64_t)1 << (s % 64);
    /* the most slots of all that a quorum holds together: what one node
     * holds of all, when a quorum holds all of that too */
    for (int i = 0; i < n; i++) {
        uint64_t cand[PERMIT_WORDS];
        int size = 0, holders = 0;
        for (int k = 0; k < PERMIT_WORDS; k++) cand[k] = bits[i][k] & all[k];
        for (int s = 0; s < limit; s++) size += bit_at(cand, s);
        if (size <= best) continue;
        for (int j = 0; j < n; j++) {
            int has = 1;
            for (int k = 0; k < PERMIT_WORDS && has; k++) has = (bits[j][k] & cand[k]) == cand[k];
            holders += has;
        }
        if (holders < q) continue;
        best = size;
        memcpy(keep, cand, sizeof(keep));
    }
    *found = best;
    if (!best) return RL_LOST;
    *slots = slot_list(sp, splen, keep, limit, best, slotslen);
    return *slots ? RL_ACQUIRED : RL_ERROR;
}

/* ---- the decisions above, exported for the model checks (redlock_core/model):
 * each calls the static function rl_acquire / rl_acquire_permit use ---- */

/* an attempt's SET answers without the restart check (decide_ok_set) */
int rl_decide_set(const rl_result *res, int n) { return decide_ok_set(NULL, res, n); }

/* the nodes a failed attempt's cleanup skips (acq_cleanup_mask): bit i */
uint64_t rl_cleanup_skip(const rl_result *res, int n)
{
    rl_cmd rel;
    memset(&rel, 0, sizeof(rel));
    (void)acq_cleanup_mask(&rel, res, n);
    return rel.skip;
}

/* a fair lock()'s first attempt (decide_fair over decide_ok_set), and the
 * ticket fair_ticket takes from its answers (0: none) */
int rl_fair_decided(const rl_result *res, int n)
{
    fair_decide fd = {.inner = decide_ok_set, .ud = NULL, .q = rl_quorum(n)};
    return decide_fair(&fd, res, n);
}
long long rl_fair_ticket(const rl_result *res, int n)
{
    acq a;
    memset(&a, 0, sizeof(a));
    a.fset.argc = 2;
    return fair_ticket(&a, res, n, rl_quorum(n)) ? atoll(a.ticket) : 0;
}

/* a permit attempt's answers (decide_permit, permit_count): 1 when decided;
 * *best the largest set of voting nodes that answered the same slots, and
 * one of them (*best_node, -1 none) */
int rl_permit_decided(const rl_ctx *c, double drift_factor, int limit, int weight, const rl_result *res, int n,
                      int *best, int *best_node)
{
    permit_tally t = {.c = c, .drift_factor = drift_factor, .limit = limit, .weight = weight};
    int d = decide_permit(&t, res, n);
    *best = t.best;
    *best_node = t.best_node;
    return d;
}

/* node i's permit answer as permit_count decodes it (permit_answer, then the
 * script's w slots): 1 when it is w slots, in bits (PERMIT_WORDS words: what
 * rl_acquire_permit keeps when i is best_node), else 0 */
int rl_permit_slots(const rl_ctx *c, int limit, int weight, const rl_result *res, int n, int i, uint64_t *bits)
{
    permit_tally t = {.c = c, .limit = limit, .weight = weight};
    permit_count(&t, res, n);
    if (!(t.decoded >> i & 1) || t.kind[i] != PA_SLOTS) return 0;
    memcpy(bits, t.bits[i], sizeof(t.bits[i]));
    return 1;
}
