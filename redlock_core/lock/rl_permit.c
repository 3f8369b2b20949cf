/* rl_acquire_permit, rl_find_permit -- a semaphore's permits (HACKING.md "Semaphores"): weight slots of
 * limit that one quorum of the same nodes holds together, the slots' tally, the trim of what a failed try
 * set, and restore()'s search for the slots a token holds. */
#include "rl_lock_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* One permit call: its request, the slots' key prefix (sp: key, NUL, 'p'),
 * the token's tag on the connections. */
typedef struct permit_call {
    const rl_ctx *c;
    const rl_permit_req *req;
    const rl_lock_info *info;
    char sp[RL_MAX_KEY + 2];
    size_t splen;
    uint64_t tag;
} permit_call;

/* the slots' key prefix of req's key: 0, or -1 when it does not fit */
static int permit_prefix(permit_call *pc, const rl_permit_req *req)
{
    if (req->keylen + 2 > RL_MAX_KEY) return -1;
    memcpy(pc->sp, req->key, req->keylen);
    pc->sp[req->keylen] = '\0';
    pc->sp[req->keylen + 1] = 'p';
    pc->splen = req->keylen + 2;
    return 0;
}

/* the cleanup (rl_script_permit_trim, queued behind the attempt) on the nodes not in skip */
static int permit_trim(const permit_call *pc, const uint64_t *keep, uint64_t skip)
{
    rl_cmd cmd;
    rl_result rr[RL_MAX_NODES];
    char kept[RL_MAX_PERMITS * 6];
    size_t klen = permit_ranges(keep, pc->req->limit, kept, sizeof(kept));
    rl_eval_cmd(&cmd, rl_script_permit_trim, rl_script_permit_trim_sha, pc->sp, pc->splen, NULL);
    rl_arg(&cmd, pc->info->token, pc->info->token_len);
    rl_arg(&cmd, kept, klen);
    cmd.op = RL_OP_RELEASE;
    cmd.tag = pc->tag; /* behind the permit's script on each connection, kept for a reconnect */
    cmd.nowait = 1;
    cmd.skip = skip;
    return pc->c->tp->fanout(pc->c->tp->ctx, &cmd, rr, pc->c->n, NULL, NULL);
}

/* A try that a quorum did not win is made again at once, as the same
 * attempt (no retry used, no pause), from a slot that can still win
 * (permit_next_start), at most this many times: a permit free on a quorum
 * is not refused because the start drawn is held on a node that the others
 * need (2 of 5 nodes down: the start of a holder that the nodes up do not
 * all know). Each try is one round trip and its trim. */
#define PERMIT_REDOS 3

int rl_acquire_permit(const rl_ctx *c, const rl_permit_req *req, const rl_opts *o, rl_lock_info *info,
                      rl_permit_got *got, rl_call *call)
{
    /* the attempt's own answers: the fence phases (rl_won) write theirs
     * into call->res, and the trim below reads these */
    rl_result res[RL_MAX_NODES];
    int n = c->n, q = rl_quorum(n);
    const rl_restart *rs = c->rs;
    int limit = req->limit, weight = req->weight, ttl_ms = req->ttl_ms;
    permit_call pc = {.c = c, .req = req, .info = info};
    memset(got, 0, sizeof(*got));
    if (n < 1 || n > RL_MAX_NODES || ttl_ms < 1 || limit < 1 || limit > RL_MAX_PERMITS || weight < 1 ||
        weight > limit || permit_prefix(&pc, req) != 0 || o->token)
        return RL_ERROR;
    memset(info, 0, sizeof(*info));
    if (rl_lock_token(c, o, info) != 0) return RL_ERROR;
    const char *sp = pc.sp;
    size_t splen = pc.splen;
    char ttlbuf[24], limbuf[8], wbuf[8], stbuf[8];
    size_t ttllen = rl_fmt_int(ttlbuf, sizeof(ttlbuf), ttl_ms), limlen = rl_fmt_int(limbuf, sizeof(limbuf), limit),
           wlen = rl_fmt_int(wbuf, sizeof(wbuf), weight);
    uint64_t tag = pc.tag = rl_lock_tag(sp, splen, info->token, info->token_len);
    uint64_t first = c->clock->now_us(c->clock->ctx);
    rl_between next = {.deadline = o->wait_ms > 0 ? first + (uint64_t)o->wait_ms * 1000u : 0, .waiters = 1};
    /* waiters listen on the slots' channel (their release script publishes there) */
    const rl_waiter *w = next.deadline && o->wake_on_release ? c->waiter : NULL;
    if (w &&
        w->subscribe(w->ctx, sp, splen, (int)rl_random_below(c, (uint64_t)RL_WAKE_SHARDS * RL_WAKE_SUBS), NULL) != 0)
        w = NULL;
    next.w = w;
    int outcome = RL_CONFLICT, redos = 0, start = -1;
    uint64_t tried[PERMIT_WORDS];
    permit_tally tally_, *t = &tally_;
    for (int attempt = 0;; attempt++) {
        info->attempts = attempt + 1;
        if (start < 0) {
            start = (int)rl_random_below(c, (uint64_t)limit);
            redos = 0;
            memset(tried, 0, sizeof(tried));
        }
        tried[start / 64] |= (uint64_t)1 << (start % 64);
        size_t stlen = rl_fmt_int(stbuf, sizeof(stbuf), start);
        rl_cmd cmd;
        rl_eval_cmd(&cmd, rl_script_permit, rl_script_permit_sha, sp, splen, NULL);
        rl_arg(&cmd, info->token, info->token_len);
        rl_arg(&cmd, ttlbuf, ttllen);
        rl_arg(&cmd, limbuf, limlen);
        rl_arg(&cmd, wbuf, wlen);
        rl_arg(&cmd, stbuf, stlen);
        if (rs) rl_arg(&cmd, rs->maxttl_key, rs->maxttl_keylen);
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
        rl_fill_call(call, res, n, rl_is_answer, NULL);
        /* the w slots kept: those that a quorum of the same nodes set */
        uint64_t keep[PERMIT_WORDS] = {0};
        int quorum = t->best >= q;
        if (quorum) memcpy(keep, t->bits[t->best_node], sizeof(keep));
        if (call) call->ok = t->best;
        tally ft = {.ok = quorum ? t->best : 0, .failed = t->failed};
        int won = quorum && !rl_same_server(res, n) && rl_won(c, o, ttl_ms, (rl_span){t0, t1}, &ft, info, call);
        if (won) {
            got->slots = slot_list(sp, splen, keep, limit, weight, &got->slotslen);
            if (!got->slots) won = 0; /* out of memory for the list: nothing is handed out */
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
            if (permit_trim(&pc, final_keep, skip) != 0) {
                if (won) { /* (nothing is handed out: the kept slots go too) */
                    permit_trim(&pc, none, 0);
                    free(got->slots);
                    got->slots = NULL;
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
        if (rl_same_server(res, n)) outcome = RL_SAME_SERVER;
        /* another limit only when enough nodes say so to decide: one node's
         * answer (a stale or forged r "\0pL") vetoes nothing */
        if (t->limits > n - q) {
            got->other_limit = permit_other_limit(t, res, n);
            outcome = RL_LIMIT;
        }
        if (outcome == RL_SAME_SERVER || outcome == RL_LIMIT) break;
        if (!quorum && redos < PERMIT_REDOS && (start = permit_next_start(t, res, n, start, tried)) >= 0) {
            redos++;
            attempt--; /* the same attempt, from a slot that can still win */
            continue;
        }
        start = -1;
        /* (a permit's trim is not marked: rl.h RL_ID_CLEANUP) */
        if (rl_next_attempt(c, o, &next, attempt, t1 - t0, info)) break;
    }
    if (w) w->unsubscribe(w->ctx);
    return outcome;
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
int rl_find_permit(const rl_ctx *c, const rl_permit_req *req, const char *token, size_t token_len, rl_permit_got *got,
                   rl_call *call)
{
    rl_result res_local[RL_MAX_NODES];
    rl_result *res = call ? call->res : res_local;
    int n = c->n, q = rl_quorum(n), limit = req->limit;
    permit_call pc = {.c = c, .req = req};
    memset(got, 0, sizeof(*got));
    if (n < 1 || n > RL_MAX_NODES || limit < 1 || limit > RL_MAX_PERMITS || permit_prefix(&pc, req) != 0)
        return RL_ERROR;
    char limbuf[8];
    rl_cmd cmd;
    rl_evalsha1(&cmd, rl_script_permit_find, rl_script_permit_find_sha, pc.sp, pc.splen);
    rl_arg(&cmd, token, token_len);
    rl_arg(&cmd, limbuf, rl_fmt_int(limbuf, sizeof(limbuf), limit));
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
    rl_fill_call(call, res, n, names_slots, NULL);
    if (rl_same_server(res, n)) return RL_SAME_SERVER;
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
    got->found = best;
    if (!best) return RL_LOST;
    got->slots = slot_list(pc.sp, pc.splen, keep, limit, best, &got->slotslen);
    return got->slots ? RL_ACQUIRED : RL_ERROR;
}

/* ---- the decisions above, exported for the model checks (redlock_core/model) ---- */

/* a permit attempt's answers (decide_permit, permit_count): 1 when decided;
 * *best the largest set of voting nodes that answered the same slots, and
 * one of them (*best_node, -1 none) */
int rl_permit_decided(const rl_ctx *c, double drift_factor, const rl_permit_req *req, const rl_result *res, int n,
                      int *best, int *best_node)
{
    permit_tally t = {.c = c, .drift_factor = drift_factor, .limit = req->limit, .weight = req->weight};
    int d = decide_permit(&t, res, n);
    *best = t.best;
    *best_node = t.best_node;
    return d;
}

/* node i's permit answer as permit_count decodes it (permit_answer, then the
 * script's w slots): 1 when it is w slots, in bits (PERMIT_WORDS words: what
 * rl_acquire_permit keeps when i is best_node), else 0 */
int rl_permit_slots(const rl_ctx *c, const rl_permit_req *req, const rl_result *res, int n, int i, uint64_t *bits)
{
    permit_tally t = {.c = c, .limit = req->limit, .weight = req->weight};
    permit_count(&t, res, n);
    if (!(t.decoded >> i & 1) || t.kind[i] != PA_SLOTS) return 0;
    memcpy(bits, t.bits[i], sizeof(t.bits[i]));
    return 1;
}
