/* rl_conn_struct.h -- struct rl_conn, for the files of net/ that are the
 * connection (rl_conn.c, rl_dial.c, rl_read.c, rl_node.c, rl_sub.c) and the
 * white-box tests and fuzzers that check its state (redlock_core/tests, fuzz).
 * Every other file reaches a connection through an API: rl_net_internal.h
 * within net/ (rl_fanout.c, rl_wait.c, the I/O tables), rl_conn.h and rl.h
 * outside it; scripts/check-sources.sh fails when a source outside net/ (and
 * the tests) includes this header. */
#ifndef RL_CONN_STRUCT_H
#define RL_CONN_STRUCT_H

#include "rl_net_internal.h"

struct rl_conn {
    rl_node_conf conf;
    int fd;
    int state;
    const rl_io *io;
    rl_sess sess;       /* the session layer's state (io's) */
    short io_want;      /* ST_HANDSHAKE: what poll waits for */
    uint64_t gen;       /* fork generation that opened fd */
    uint64_t dialed_us; /* when its connect began */
    redisReader *reader;
    char *obuf;
    size_t olen, opos, ocap;
    /* obuf[0, secret_end) holds AUTH (the password in clear) until it is
     * written; then wiped, and never left in a block the buffer moves out of
     * or frees (0: the buffer holds no secret) */
    size_t secret_end;
    qent q[QMAX]; /* ring of expected replies */
    int qhead, qlen;
    /* AUTH/SELECT gate: nothing after them is written until they succeed,
     * or a refused SELECT would let our SET run in database 0 */
    int hs_pending;
    size_t hs_end;
    /* The releases this connection owes, in order, even when stalled: the
     * SETs in q (written or about to be, not answered yet) with no release
     * behind them yet (qent.owed). A SET whose reply was read has run: a
     * release sent later cannot overtake it, so it owes nothing more here
     * (a lock left to its TTL, released elsewhere or force-released leaves
     * nothing behind). Bounded by QMAX, no allocation. */
    int owed_n;
    /* EVALSHAs overtaken by an early decision, kept (as RESP) so that a late
     * NOSCRIPT (SCRIPT FLUSH) is still answered by loading the scripts and
     * sending them again: a release must not be lost */
    char *late_buf;
    size_t late_len, late_cap;
    size_t *late_sz;
    int late_n, late_szcap;
    /* The releases this node owes whose reply has not been read, as RESP, in
     * the order sent (each qent.copied has its copy here, oldest first): what
     * a replacement connection sends again once the node is reachable after
     * rlc_abandon. Kept across the closes of the connects that follow (while
     * probing), dropped when a connection the server may have read is closed
     * (as before: the server ended it). */
    char *owe;
    size_t owe_len, owe_cap;
    size_t *owe_sz;
    int owe_n, owe_szcap;
    /* The connection was given up as unreachable (rlc_abandon): fresh connects
     * are tried in the background; until one has answered its PING (EXP_GATE)
     * the node gets no new work, and the releases it owes wait behind it */
    int probing;
    uint64_t probe_next_us;  /* the next connect may begin then */
    uint64_t probe_until_us; /* the current attempt is given up then (its PING unanswered) */
    uint64_t probe_watch_us; /* per call: watched until then */
    uint64_t abandoned_us;   /* when the last connection was given up */
    int sock_timedout;       /* the kernel gave up (ETIMEDOUT): treat as rlc_abandon */
    char run_id[41];         /* the server's, learnt at connect ("" unknown) */
    int ident_pending;       /* INFO replies of the identity still due */
    /* restart-safe quorum (docs/api.md "Restarted nodes"): the INFO answers being
     * read, when the first came, the run_id last known (kept across
     * reconnects: a new one is a restart) and what it says of the server */
    rl_info ninfo;
    uint64_t info_at_us, info_sent_us;
    int info_refused;
    char last_run_id[41];
    rl_ident ident;
    /* the clock-step check: the server's wall clock minus our monotonic
     * clock at the last sample, when, and that sample's round trip */
    int clk_known;
    int64_t clk_off_us;
    uint64_t clk_at_us, clk_rtt_us, clk_asked_us;
    long long ntime[2]; /* TIME's answer being read: seconds, microseconds (-1 none) */
    uint64_t down_until_us;
    int backoff_ms;
    int down_err; /* why the node is in back-off */
    char down_why[RL_REASON_LEN];
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int no_dns;      /* never look a name up (the watchdog's: its addresses are handed over) */
    int conf_shared; /* other threads read conf (the watchdog's): it never changes */
    rl_node_stats st;
    rl_reply slot; /* the reader's callbacks write here: no allocation per reply */
    int flat;      /* the reply being read is a top-level array of 3 taken apart (rl_reply.aux) */
    /* per fan-out */
    uint64_t deadline_us, sent_us;
    int reused; /* was open before this call: may be stale */
    int retried;
    /* subscriber connections (rl_wait.c): no scripts, pushes go to on_push */
    int sub;
    rl_push push;
    void (*on_push)(void *ud, rl_conn *c);
    rl_push_decode_fn push_decode; /* decodes push's elements as they are parsed (rl_wait.c's) */
    void *push_ud;
};

/* the TCP connect or the session handshake is not done (rlc_connecting) */
static inline int connecting(const rl_conn *c) { return c->state == ST_CONNECTING || c->state == ST_HANDSHAKE; }

#endif
