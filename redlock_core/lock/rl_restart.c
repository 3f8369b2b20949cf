/* rl_restart.c -- the restart vote (docs/api.md "Restarted nodes"; the rules and why they are safe: HACKING.md
 * "Restarted nodes"): which nodes' answers count toward a quorum (rl_vote_mask), the longest TTL they prove
 * (maxttl), a restarted node's grace, and the calm attempts that skip the check while nothing restarted. */
#include "rl_lock_int.h"

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

int rl_calm_all(const rl_restart *rs, int n, int ttl_ms)
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

tally rl_votes_count(rl_votes *v, rl_result *res, int n)
{
    tally t = rl_count_of(res, n, rl_is_ok_status);
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
        if (res[i].state == RL_ANSWERED && !(v->mask >> i & 1) && rl_is_ok_status(&res[i].reply, NULL)) {
            t.ok--;
            t.no++; /* (tally.no: counted apart by the caller, see novote) */
            v->unjudged += res[i].novote_ms == 0 && !(v->out >> i & 1); /* may still vote once judged */
        }
    return t;
}

int rl_decide_votes(void *ud, const rl_result *res, int n)
{
    rl_votes *v = ud;
    tally t = rl_votes_count(v, (rl_result *)res, n);
    int q = rl_quorum(n);
    /* no quorum possible, even if every OK still to be judged votes: decided,
     * whatever a judgment still waits for */
    if (t.ok + t.pending + v->unjudged < q) return 1;
    if (v->wait) return 0;
    return t.ok >= q || t.ok + t.pending < q;
}

int rl_novote(const rl_result *res, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += res[i].state == RL_ANSWERED && res[i].novote_ms > 0 && rl_is_ok_status(&res[i].reply, NULL);
    return k;
}

void rl_calm_after(rl_restart *rs, const rl_votes *v, const rl_result *res, int n, int ttl_ms)
{
    if (!v->calm) {
        calm_learn(rs, res, n, v->mask, ttl_ms);
        return;
    }
    /* a node that failed a calm attempt, or answered one as another
     * incarnation, is calm no more: the next attempt checks it */
    for (int i = 0; i < n; i++)
        if ((v->out >> i & 1) || res[i].state == RL_FAILED) rs->calm[i].on = 0;
}
