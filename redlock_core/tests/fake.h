/* fake.h -- fake clock, random source and transport for the RedLock algorithm tests.
 *
 * The fake transport answers every fan-out from per-command tables, one node
 * at a time in a chosen order, advancing the fake clock by step_us per
 * delivered result, calling decide() after each one and stopping as soon as
 * it says so (the nodes not reached are left RL_PENDING, as a real fan-out
 * leaves the slow ones). Every command and sleep is logged. */
#ifndef RL_FAKE_H
#define RL_FAKE_H

#include "rl.h"

#include <stdio.h>
#include <string.h>

/* ---- clock ---- */
#define FAKE_MAX_SLEEPS 256

typedef struct fake_clock {
    uint64_t now;
    int nsleeps;
    uint64_t sleep_us[FAKE_MAX_SLEEPS];
    uint64_t sleep_at[FAKE_MAX_SLEEPS]; /* clock when the sleep began */
    char *log;                          /* event log shared with the transport, may be NULL */
    size_t loglen, logcap;
} fake_clock;

static inline void fake_log(fake_clock *c, char ev)
{
    if (c->log && c->loglen + 1 < c->logcap) {
        c->log[c->loglen++] = ev;
        c->log[c->loglen] = '\0';
    }
}

static inline uint64_t fake_now_us(void *ctx) { return ((fake_clock *)ctx)->now; }

static inline void fake_sleep_us(void *ctx, uint64_t us)
{
    fake_clock *c = ctx;
    if (c->nsleeps < FAKE_MAX_SLEEPS) {
        c->sleep_us[c->nsleeps] = us;
        c->sleep_at[c->nsleeps] = c->now;
    }
    c->nsleeps++;
    c->now += us;
    fake_log(c, 'z');
}

/* ---- random: bytes from a fixed sequence (cyclic), or a counter when empty ---- */
typedef struct fake_random {
    unsigned char bytes[256];
    size_t len, pos;
    unsigned counter;
    int calls;
    size_t total;
    int fail; /* non-zero: fill() reports failure */
} fake_random;

static inline int fake_fill(void *ctx, void *buf, size_t len)
{
    fake_random *r = ctx;
    unsigned char *p = buf;
    r->calls++;
    if (r->fail) return -1;
    for (size_t i = 0; i < len; i++) {
        if (r->len) {
            p[i] = r->bytes[r->pos % r->len];
            r->pos++;
        } else {
            p[i] = (unsigned char)(r->counter++ * 37u + 11u);
        }
    }
    r->total += len;
    return 0;
}

/* ---- transport ---- */
enum { FO_OK = 0, FO_NIL, FO_INT, FO_ERR, FO_FAIL, FO_STR };

typedef struct fake_out {
    int kind;
    long long v;   /* FO_INT */
    int err;       /* FO_FAIL: RL_E_TIMEOUT (sent), RL_E_REFUSED/RL_E_DOWN (not sent) */
} fake_out;

#define FAKE_MAX_CALLS 512
#define FAKE_ARG_MAX 128

typedef struct fake_rec {
    int nowait;     /* queued, not waited for */
    char kind;                     /* S=SET R=release X=extend E=EXISTS G=GET D=DEL ?=other */
    int argc, n;
    char argv[RL_MAX_ARGS][FAKE_ARG_MAX];
    size_t argvlen[RL_MAX_ARGS];
    const char *script;
    uint64_t t_start, t_end;
    int delivered[RL_MAX_NODES];   /* result produced before decide() stopped the call */
    int state[RL_MAX_NODES];       /* res[i].state when the fan-out returned */
    int decide_calls;
    int stopped_early;             /* decide() said so before every node was reached */
} fake_rec;

struct fake;
typedef void (*fake_hook_fn)(struct fake *f, const rl_cmd *cmd, int callno);

typedef struct fake {
    fake_clock clock;
    fake_random rnd;
    rl_clock clk;
    rl_random rng;
    rl_transport tp;
    rl_ctx ctx;
    int n;
    uint64_t step_us;              /* clock advance per delivered result */
    int order[RL_MAX_NODES];       /* delivery order: node indexes */
    fake_out set[RL_MAX_NODES], rel[RL_MAX_NODES], ext[RL_MAX_NODES], ex[RL_MAX_NODES], get[RL_MAX_NODES],
        del[RL_MAX_NODES], other[RL_MAX_NODES];
    const char *get_str[RL_MAX_NODES]; /* GET: the bulk string of an FO_STR answer */
    /* any other command (a script the table has no kind for, as the
     * permit's): the FO_STR answer, other_len[i] bytes (0: strlen) */
    const char *other_str[RL_MAX_NODES];
    size_t other_len[RL_MAX_NODES];
    rl_ident id[RL_MAX_NODES];     /* who answers at node i (zero: unknown) */
    fake_hook_fn hook;             /* may change the tables before each call */
    void *hook_ud;
    int fail_fanout;               /* fan-out returns -1 */
    int ncalls;
    fake_rec calls[FAKE_MAX_CALLS];
    fake_rec scratch;
    char node_log[RL_MAX_NODES][FAKE_MAX_CALLS + 1]; /* commands sent to each node */
    char log[4096];                /* S R X E G D ? for fan-outs, z for sleeps */
} fake;

static inline char fake_classify(const rl_cmd *cmd)
{
    if (cmd->argc >= 1 && cmd->argvlen[0] == 3 && memcmp(cmd->argv[0], "SET", 3) == 0) return 'S';
    if (cmd->argc >= 2 && cmd->argvlen[0] == 7 && memcmp(cmd->argv[0], "EVALSHA", 7) == 0) {
        if (cmd->argvlen[1] == strlen(rl_script_release_sha) &&
            memcmp(cmd->argv[1], rl_script_release_sha, cmd->argvlen[1]) == 0)
            return 'R';
        if (cmd->argvlen[1] == strlen(rl_script_extend_sha) &&
            memcmp(cmd->argv[1], rl_script_extend_sha, cmd->argvlen[1]) == 0)
            return 'X';
        if (cmd->argvlen[1] == strlen(rl_script_acquire_sha) &&
            memcmp(cmd->argv[1], rl_script_acquire_sha, cmd->argvlen[1]) == 0)
            /* the plain attempt (key token ttl, no shard: the SET NX, as
             * the script that also keeps out of a fair queue), else a
             * waiter's SET (both answered from the SET table) */
            return cmd->argc == 7 && cmd->argv[2][0] == '1' && cmd->argvlen[6] == 0 ? 'S' : 'A';
    }
    if (cmd->argc >= 1 && cmd->argvlen[0] == 6 && memcmp(cmd->argv[0], "EXISTS", 6) == 0) return 'E';
    if (cmd->argc >= 1 && cmd->argvlen[0] == 3 && memcmp(cmd->argv[0], "GET", 3) == 0) return 'G';
    if (cmd->argc >= 1 && cmd->argvlen[0] == 3 && memcmp(cmd->argv[0], "DEL", 3) == 0) return 'D';
    return '?';
}

static inline void fake_fill_result(rl_result *r, const fake_out *o, const char *str, size_t slen)
{
    switch (o->kind) {
    case FO_OK:
        r->state = RL_ANSWERED;
        r->reply.type = RL_REPLY_STATUS;
        r->reply.len = 2;
        memcpy(r->reply.str, "OK", 3);
        break;
    case FO_NIL:
        r->state = RL_ANSWERED;
        r->reply.type = RL_REPLY_NIL;
        break;
    case FO_INT:
        r->state = RL_ANSWERED;
        r->reply.type = RL_REPLY_INTEGER;
        r->reply.integer = o->v;
        break;
    case FO_STR: {
        /* as the socket fan-out keeps it: the full length, the first bytes */
        size_t l = str ? (slen ? slen : strlen(str)) : 0;
        size_t k = l < sizeof(r->reply.str) - 1 ? l : sizeof(r->reply.str) - 1;
        r->state = RL_ANSWERED;
        r->reply.type = RL_REPLY_STRING;
        r->reply.len = l;
        if (k) memcpy(r->reply.str, str, k);
        r->reply.str[k] = '\0';
        break;
    }
    case FO_ERR:
        /* as the socket fan-out does: an error reply is a failure RL_E_REDIS */
        r->state = RL_FAILED;
        r->err = RL_E_REDIS;
        r->reply.type = RL_REPLY_ERROR;
        r->reply.len = 3;
        memcpy(r->reply.str, "ERR", 4);
        snprintf(r->reason, sizeof(r->reason), "ERR");
        break;
    default:
        r->state = RL_FAILED;
        r->err = o->err ? o->err : RL_E_TIMEOUT;
        snprintf(r->reason, sizeof(r->reason), "%s", rl_err_name(r->err));
        break;
    }
}

static inline int fake_fanout(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide,
                              void *ud)
{
    fake *f = ctx;
    int callno = f->ncalls;
    if (f->fail_fanout) return -1;
    if (f->hook) f->hook(f, cmd, callno);
    fake_rec *rec = callno < FAKE_MAX_CALLS ? &f->calls[callno] : &f->scratch;
    f->ncalls++;
    memset(rec, 0, sizeof(*rec));
    rec->kind = fake_classify(cmd);
    rec->argc = cmd->argc;
    rec->n = n;
    rec->script = cmd->script;
    for (int a = 0; a < cmd->argc && a < RL_MAX_ARGS; a++) {
        size_t l = cmd->argvlen[a] < FAKE_ARG_MAX - 1 ? cmd->argvlen[a] : FAKE_ARG_MAX - 1;
        memcpy(rec->argv[a], cmd->argv[a], l);
        rec->argv[a][l] = '\0';
        rec->argvlen[a] = cmd->argvlen[a];
    }
    fake_log(&f->clock, rec->kind);
    const fake_out *outs = rec->kind == 'S' || rec->kind == 'A' ? f->set
                         : rec->kind == 'R' ? f->rel
                         : rec->kind == 'X' ? f->ext
                         : rec->kind == 'E' ? f->ex
                         : rec->kind == 'G' ? f->get
                         : rec->kind == 'D' ? f->del
                                            : f->other;
    memset(res, 0, sizeof(*res) * (size_t)n);
    for (int i = 0; i < n; i++) {
        /* written to every node at once, except those that cannot be reached */
        res[i].sent = !(outs[i].kind == FO_FAIL && (outs[i].err == RL_E_REFUSED || outs[i].err == RL_E_DOWN));
        if (cmd->nowait && (cmd->skip >> i & 1)) res[i].sent = 0; /* not sent to this node */
        if (res[i].sent && callno < FAKE_MAX_CALLS) f->node_log[i][strlen(f->node_log[i])] = rec->kind;
    }
    rec->t_start = f->clock.now;
    rec->nowait = cmd->nowait;
    for (int k = 0; k < n && !cmd->nowait; k++) {
        int i = f->order[k];
        f->clock.now += f->step_us;
        const char *str = rec->kind == 'G' ? f->get_str[i] : NULL;
        if (rec->kind == '?') str = f->other_str[i];
        fake_fill_result(&res[i], &outs[i], str, rec->kind == '?' ? f->other_len[i] : 0);
        res[i].id = f->id[i];
        res[i].latency_us = f->step_us * (uint64_t)(k + 1);
        rec->delivered[i] = 1;
        rec->decide_calls++;
        if (decide && decide(ud, res, n)) {
            rec->stopped_early = k < n - 1;
            break;
        }
    }
    rec->t_end = f->clock.now;
    for (int i = 0; i < n; i++) rec->state[i] = res[i].state;
    return 0;
}

static inline void fake_set_all(fake_out *tab, int n, int kind, long long v, int err)
{
    for (int i = 0; i < n; i++) {
        tab[i].kind = kind;
        tab[i].v = v;
        tab[i].err = err;
    }
}

/* n nodes, everyone agrees: SET → OK, release/extend → 1, EXISTS → 0, GET → nil, DEL → 1. */
static inline void fake_init(fake *f, int n)
{
    memset(f, 0, sizeof(*f));
    f->n = n;
    f->clock.now = 1000000; /* not zero: catches "0 means unset" mistakes */
    f->clock.log = f->log;
    f->clock.logcap = sizeof(f->log);
    f->clk.now_us = fake_now_us;
    f->clk.sleep_us = fake_sleep_us;
    f->clk.ctx = &f->clock;
    f->rng.fill = fake_fill;
    f->rng.ctx = &f->rnd;
    f->tp.fanout = fake_fanout;
    f->tp.ctx = f;
    f->ctx.tp = &f->tp;
    f->ctx.clock = &f->clk;
    f->ctx.rnd = &f->rng;
    f->ctx.n = n;
    for (int i = 0; i < RL_MAX_NODES; i++) f->order[i] = i;
    fake_set_all(f->set, RL_MAX_NODES, FO_OK, 0, 0);
    fake_set_all(f->rel, RL_MAX_NODES, FO_INT, 1, 0);
    fake_set_all(f->ext, RL_MAX_NODES, FO_INT, 1, 0);
    fake_set_all(f->ex, RL_MAX_NODES, FO_INT, 0, 0);
    fake_set_all(f->get, RL_MAX_NODES, FO_NIL, 0, 0);
    fake_set_all(f->del, RL_MAX_NODES, FO_INT, 1, 0);
    fake_set_all(f->other, RL_MAX_NODES, FO_OK, 0, 0);
}

/* number of fan-outs of a kind */
static inline int fake_count(const fake *f, char kind)
{
    int c = 0;
    for (int i = 0; i < f->ncalls && i < FAKE_MAX_CALLS; i++) c += f->calls[i].kind == kind;
    return c;
}

#endif
