/* rl_internal.h -- what the files of the core and its tests share beyond rl.h: the spec's
 * validity rule, tokens, Lua scripts, fencing phases, RESP encoding, test hooks. Not for the glue. */
#ifndef RL_INTERNAL_H
#define RL_INTERNAL_H

#include "rl.h"

#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the lock logic (lock/: rl_quorum.c, rl_acquire.c, rl_fence.c, ...; what only lock/ shares: lock/rl_lock_int.h) ---- */

/* validity rule of the spec: ttl - elapsed - (ttl * drift + 2 ms) */
int64_t rl_validity_ms(int ttl_ms, uint64_t elapsed_us, double drift_factor);

/* The Lua scripts (rl_script_release, rl_script_acquire, ..., each with its _sha) and
 * their table rl_scripts[RL_SCRIPTS_N]: written by scripts/gen-lua.sh from
 * redlock_core/lock/lua/, one .lua file per script. */
#include "lock/rl_scripts_gen.h"

/* Counting the nodes' answers to one fan-out (lock/rl_quorum.c): ok = answers
 * that yes() accepts (ud: what it compares with), no = other answers. */
typedef struct rl_tally {
    int ok, no, failed, pending, answered;
} rl_tally;
typedef int (*rl_yes_fn)(const rl_reply *r, const void *ud);
rl_tally rl_count(const rl_result *res, int n, rl_yes_fn yes, const void *ud);
/* a quorum said yes, or no longer can: decided without the slowest nodes */
int rl_quorum_decided(const rl_result *res, int n, rl_yes_fn yes, const void *ud);
/* the per-node results and the counts into the caller's rl_call (if any) */
void rl_fill_call(rl_call *call, const rl_result *res, int n, rl_yes_fn yes, const void *ud);
/* rl_acquire's and rl_acquire_permit's decisions, for the model checks
 * (redlock_core/model): a SET's answers decided (no restart check); a fair
 * lock()'s first attempt decided, and its ticket (0: no quorum of them); a
 * permit attempt decided, the largest set of voting nodes that answered the
 * same slots */
int rl_decide_set(const rl_result *res, int n);
uint64_t rl_cleanup_skip(const rl_result *res, int n); /* a failed attempt's cleanup skips node i: bit i */
int rl_fair_decided(const rl_result *res, int n);
long long rl_fair_ticket(const rl_result *res, int n);
int rl_permit_decided(const rl_ctx *c, double drift_factor, const rl_permit_req *req, const rl_result *res, int n,
                      int *best, int *best_node);
/* node i's permit answer decoded as the tally decodes it: 1 when it is the w
 * slots, their bits in bits[RL_MAX_PERMITS / 64] (the slots kept when i is best_node) */
int rl_permit_slots(const rl_ctx *c, const rl_permit_req *req, const rl_result *res, int n, int i, uint64_t *bits);

/* Fencing (lock/rl_fence.c), run by rl_acquire after a quorum SET when
 * opts.fence_key is set: (1) INCR fence_key on all nodes, a quorum must
 * answer, M = the largest answer; (2) on all nodes raise the counter to M if
 * lower (one script), a quorum must confirm. Both decided at quorum. Returns
 * RL_ACQUIRED with *fence = M (> 0), RL_CONFLICT, RL_NO_QUORUM (fewer than a
 * quorum answered a phase) or RL_ERROR; call gets the last phase's results. */
int rl_fence_phases(const rl_ctx *c, const char *fence_key, size_t fence_keylen, int64_t *fence, rl_call *call);
/* the phases' decisions, for the model checks: phase 1 decided (rs: NULL or
 * the restart state), phase 2 decided for M, and M from phase 1's answers
 * (those not believed are failed first) */
int rl_fence_incr_decided(const rl_restart *rs, const rl_result *res, int n);
int rl_fence_raise_decided(int64_t m, const rl_result *res, int n);
int64_t rl_fence_m(rl_result *res, int n);
/* Of a quorum's INCR answers, those believed (lock/rl_fence.c: below 2^53, and
 * not one node's answer more than 2^24 above every other's): how many, and
 * their largest in *top (0 none) */
int rl_incr_believed(const rl_result *res, int n, int64_t *top);

/* The one hash of the core (FNV-1a, 64 bit): the channel hashes of a waiter
 * (rl_wait.c) and of a pushed message (rl_read.c) must agree, or waiting
 * silently falls back to its timer. rl_hash(RL_HASH_INIT, ...) hashes bytes;
 * its result can be fed again to hash what follows. */
#define RL_HASH_INIT 1469598103934665603ull
static inline uint64_t rl_hash(uint64_t h, const void *p, size_t len)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* identifies (key, token) on a connection: a 64-bit hash of both (rl_conn.c) */
uint64_t rl_lock_tag(const char *key, size_t keylen, const char *token, size_t token_len);

/* n in decimal at p (no NUL, at most 20 bytes): how many bytes (rl_resp.c) */
size_t rl_put_uint(char *p, uint64_t n);

/* ---- random tokens (rl_sys.c) ---- */
int rl_make_token(const rl_random *rnd, char out[RL_TOKEN_LEN + 1]);
/* nbytes (<= 64) random bytes from rnd as 2 * nbytes lowercase hex and a NUL; -1 when rnd fails */
int rl_random_hex(const rl_random *rnd, char *out, size_t nbytes);

/* ---- nodes (rl_uri.c) ---- */

/* 1 when a and b reach the same server as far as can be told without
 * connecting: same unix socket file (st_dev/st_ino, else the same path), or
 * the same port and host, host names compared by every address getaddrinfo
 * gives (a name that does not resolve compares by string). TCP and unix
 * socket of one server are told apart only at connect (RL_E_SAME_SERVER). */
int rl_node_conf_same_server(const rl_node_conf *a, const rl_node_conf *b);
/* conf's address: a socket path, an IP address, or (dns) a name through
 * getaddrinfo(), which blocks; 0, or -1 with why (what a connect dials; the
 * watchdog resolves its nodes' and hands them over: net/rl_conn.h) */
int rlc_resolve_addr(const rl_node_conf *conf, int dns, struct sockaddr_storage *addr, socklen_t *addrlen, char *why,
                     size_t whylen);

/* ---- secrets (net/rl_uri.c, beside rl.h's rl_secret_* for the callers) ---- */
/* a wipe the compiler cannot drop */
void rlc_wipe(void *p, size_t n);
/* a copy byte by byte through volatile pointers: never in the SIMD registers */
void rlc_copy_secret(char *dst, const char *src, size_t n);

/* ---- connections (net/rl_conn.c, rl_read.c): for tests ---- */

/* how long the node is skipped after failed connects */
uint64_t rl_conn_down_until_us(const rl_conn *conn);
int rl_conn_backoff_ms(const rl_conn *conn);
/* The server's run_id once the connection learnt it ("" when unknown: a user
 * without the INFO permission). Two nodes of one call with the same run_id
 * are one server: RL_E_SAME_SERVER. */
const char *rl_conn_run_id(const rl_conn *conn);

/* INFO's answer ("field:value\r\n" lines, sections "# Name"), parsed
 * without allocation: what is found is set, the rest left as it was. Input
 * from the node: any bytes, any length. */
typedef struct rl_info {
    char run_id[41];          /* 40 lowercase hex, "" not found */
    long long uptime_s;       /* uptime_in_seconds, -1 not found */
    int aof;                  /* aof_enabled: 0/1, -1 not found */
    long long server_time_us; /* server_time_usec, -1 not found */
} rl_info;
/* nothing found yet (a connection's reset, its INFO asked again at dialing) */
static inline void rl_info_init(rl_info *info)
{
    info->run_id[0] = '\0';
    info->uptime_s = -1;
    info->aof = -1;
    info->server_time_us = -1;
}
/* parsed by net/rl_read.c */
void rl_info_parse(const char *s, size_t len, rl_info *info);

/* Restart-safe quorum (lock/rl_restart.c), exposed for the unit tests: which nodes
 * of a call's answers count toward the quorum. Returns a bit mask (bit i:
 * node i votes); sets res[i].novote_ms/up_ms of those that do not, and
 * records what it judged in rs. *wait: some node's vote cannot be judged
 * before every node has answered (or failed). drift_factor: of the grace. */
uint64_t rl_vote_mask(rl_restart *rs, rl_result *res, int n, uint64_t now_us, double drift_factor, int *wait);
/* a node's maxttl answer is believable (a TTL the API allows, an age its
 * uptime allows when it does not persist) */
int rl_maxttl_credible(const rl_result *r, uint64_t now_us);
/* the longest TTL proven by the answers of the nodes in the mask `from`: the
 * (k - (n - q))-th largest of their k values, 0 when k <= n - q */
int64_t rl_maxttl_proven(const rl_result *res, int n, uint64_t from);

/* ---- RESP encoding (rl_resp.c) ---- */

/* RESP encoding of a command into buf; returns bytes needed (may exceed cap:
 * then nothing useful was written and the caller grows buf). */
size_t rl_resp_format(char *buf, size_t cap, int argc, const char *const *argv, const size_t *argvlen);

/* ---- statistics (lock/rl_stats.c) ---- */
void rl_latency_add(rl_latency *l, uint64_t us);

#ifdef __cplusplus
}
#endif
#endif
