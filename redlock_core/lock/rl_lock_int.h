/* rl_lock_int.h -- what the files of lock/ share, and nothing else includes: counting answers (the hot part
 * inline: every fan-out's decide runs it after each node's outcome), the restart vote of an attempt, command
 * building, the pause between attempts, and the steps acquire and permits share. The tests' and models'
 * view of the algorithm is rl_internal.h; the glue's, rl.h. */
#ifndef RL_LOCK_INT_H
#define RL_LOCK_INT_H

#include "rl_internal.h"

#include <string.h>

/* These functions are called across lock/'s files on every cycle: in the
 * extension (a shared object) a default-visibility call goes through the
 * PLT, so they are kept out of its dynamic symbols (direct calls). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* ---- counting answers (rl_quorum.c) ---- */

typedef rl_tally tally;
typedef rl_yes_fn yes_fn;

/* (inlined where yes is a constant) */
static inline __attribute__((always_inline)) rl_tally rl_tally_of(const rl_result *res, int n, rl_yes_fn yes,
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

static inline __attribute__((always_inline)) tally rl_count_of(const rl_result *res, int n, yes_fn yes)
{
    return rl_tally_of(res, n, yes, NULL);
}

/* The quorum is reached, or can no longer be: either way the outcome is known
 * and we return without waiting for the slowest node. */
static inline __attribute__((always_inline)) int rl_decided_of(const rl_result *res, int n, rl_yes_fn yes,
                                                               const void *ud)
{
    rl_tally t = rl_tally_of(res, n, yes, ud);
    int q = rl_quorum(n);
    return t.ok >= q || t.ok + t.pending < q;
}

/* what a node's answer says yes to */
static inline int rl_is_ok_status(const rl_reply *r, const void *ud)
{
    (void)ud;
    return r->type == RL_REPLY_STATUS && r->len == 2 && memcmp(r->str, "OK", 2) == 0;
}
static inline int rl_is_one(const rl_reply *r, const void *ud)
{
    (void)ud;
    return r->type == RL_REPLY_INTEGER && r->integer == 1;
}
int rl_is_answer(const rl_reply *r, const void *ud); /* any answer at all */
/* GET's answer is our token (binary safe; rl_reply.str holds a whole token) */
typedef struct rl_token_ref {
    const char *token;
    size_t len;
} rl_token_ref;
int rl_is_token(const rl_reply *r, const void *ud);

/* the decisions of a SET (+OK) and of a script answering 1, at the quorum */
int rl_decide_ok_set(void *ud, const rl_result *res, int n);
int rl_decide_ok_one(void *ud, const rl_result *res, int n);
/* docs/api.md "Nodes": two nodes found to be one server void the call */
static inline int rl_same_server(const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_FAILED && res[i].err == RL_E_SAME_SERVER) return 1;
    return 0;
}

/* when an attempt's round trip began (before its SET) and ended */
typedef struct rl_span {
    uint64_t t0, t1;
} rl_span;
/* The spec's validity check after the round trip s: the lock counts only
 * while validity > 0, and then holds until s.t1 + validity. */
int rl_take_validity(rl_lock_info *info, int ttl_ms, rl_span s, double drift, int ok);

/* ---- the restart vote of one attempt (rl_restart.c) ---- */

/* An acquisition's SET answers with the restart check (c->rs): only the OKs
 * of voting nodes count; while a node's vote cannot be judged yet, the call
 * waits for the others' answers (their maxttl and its age) */
typedef struct rl_votes {
    const rl_ctx *c;
    double drift_factor;
    int wait;
    uint64_t mask;
    int calm;     /* a calm attempt: no maxttl answers to judge by (calm_mask) */
    uint64_t out; /* ... nodes it could not count: not calm as it answered */
    int unjudged; /* OKs out of the mask that a judgment still awaited may count */
} rl_votes;
/* the SET answers as v counts them (sets v->mask, v->out, v->wait) */
tally rl_votes_count(rl_votes *v, rl_result *res, int n);
int rl_decide_votes(void *ud, const rl_result *res, int n);
/* nodes that set the key but do not count (restarted, docs/api.md "Restarted nodes") */
int rl_novote(const rl_result *res, int n);
/* every node calm for this TTL: the attempt may skip the maxttl key */
int rl_calm_all(const rl_restart *rs, int n, int ttl_ms);
/* after an attempt: what it taught of each node's calm (rl_restart.calm) */
void rl_calm_after(rl_restart *rs, const rl_votes *v, const rl_result *res, int n, int ttl_ms);

/* ---- command building (rl_cmd.c) ---- */

static inline void rl_arg(rl_cmd *cmd, const char *s, size_t len)
{
    cmd->argv[cmd->argc] = s;
    cmd->argvlen[cmd->argc++] = len;
}
/* EVALSHA sha 1 key: a script's command, its arguments to follow */
void rl_evalsha1(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen);
/* EVALSHA sha numkeys key [nkey], the list or readers' variant of the script
 * for a key list: its arguments (the token first) to follow */
void rl_eval_cmd(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen, const char *nkey);
/* EVALSHA sha 1 key token: the token-checked scripts of the spec */
void rl_script_cmd(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen, const char *token);
/* a release of (key, token): kept in order behind the SET it undoes */
void rl_release_tag(rl_cmd *cmd, const char *key, size_t keylen, const char *token);
void rl_release_cmd(rl_cmd *cmd, const char *key, size_t keylen, const char *token);
/* ARGV[2] of a release, its id for the waiters: drawn and added; its place
 * only (zeros), drawn later by rl_release_id_draw */
void rl_release_id(rl_cmd *cmd);
void rl_release_id_slot(rl_cmd *cmd);
void rl_release_id_draw(rl_cmd *cmd);
/* v in decimal and a NUL into buf: its length */
size_t rl_fmt_int(char *buf, size_t cap, long long v);

/* ---- between two attempts (rl_retry.c) ---- */

/* what the wait between the attempts of one call reads and keeps */
typedef struct rl_between {
    const rl_waiter *w;    /* NULL: this call does not wait for releases */
    uint64_t deadline;     /* 0: retry_count more attempts, else until then */
    uint64_t max_pause_us; /* 0: none (a fair waiter renews its entry) */
    int confirmed;         /* the subscription was confirmed */
    int waiters;           /* the last count a release gave (1 before any) */
    int by_cleanup;        /* the last wake-up was a failed attempt's cleanup */
} rl_between;
/* step 6, between attempts: 0 to try again, 1 to stop (slot_us: the last
 * attempt's round trip) */
int rl_next_attempt(const rl_ctx *c, const rl_opts *o, rl_between *b, int attempt, uint64_t slot_us,
                    rl_lock_info *info);
/* a random number below span from c's source (0 when it fails) */
uint64_t rl_random_below(const rl_ctx *c, uint64_t span);

/* ---- what permits share with acquire (rl_acquire.c) ---- */

/* step 1, the token (the caller's, else a random one) */
int rl_lock_token(const rl_ctx *c, const rl_opts *o, rl_lock_info *info);
/* step 5, a quorum set: fencing, then the validity of the round trip s */
int rl_won(const rl_ctx *c, const rl_opts *o, int ttl_ms, rl_span s, tally *t, rl_lock_info *info, rl_call *call);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
