/* rl_conn.h -- what the connection lifecycle (rl_conn.c), the fan-out
 * (rl_fanout.c) and the I/O layers (rl_io.c, rl_tls.c) share: the connection
 * itself, its queue of expected replies and the I/O table. Core-internal. */
#ifndef RL_CONN_H
#define RL_CONN_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_internal.h"

#include <hiredis/hiredis.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The connection's states. TCP connect, then the session layer's handshake
 * (TLS), then ready; connect_timeout covers both:
 *   ST_CLOSED      no socket (new, closed by the server, given up); the next
 *                  send dials (rlc_conn_open), unless the node is in back-off
 *                  (down_until_us) or a probe's turn has not come (probing)
 *   ST_CONNECTING  non-blocking connect in progress (POLLOUT: connect_done)
 *   ST_HANDSHAKE   the I/O layer's handshake (TLS) in progress (session_step)
 *   ST_READY       commands flow; the AUTH/SELECT gate (hs_pending, hs_end)
 *                  holds back what follows it until it is answered
 * Beside the state: a ready connection is stalled (no new work) while
 * rlc_stalled() says so (QSTALL/STALE_US below), probing while it replaces
 * an unreachable one (nothing but its PING until answered), ident_pending
 * while INFO replies are still due. */
enum { ST_CLOSED = 0, ST_CONNECTING, ST_HANDSHAKE, ST_READY };

/* What the next reply on a connection answers, in pipeline order (the queue
 * c->q; on_reply in rl_fanout.c acts on each kind):
 *   EXP_SKIP            dropped: its call is over and nothing depends on it
 *                       (a timed-out command's reply, a replayed release)
 *   EXP_AUTH/EXP_SELECT the gate: an error closes the connection (nothing
 *                       past it was written) and puts the node in back-off
 *   EXP_SCRIPT          SCRIPT LOAD at connect: dropped
 *   EXP_IDENT           INFO server: run_id, uptime, the server's clock
 *   EXP_IDENT_AOF       INFO persistence: aof_enabled (the last of the identity)
 *   EXP_TIME            TIME, pipelined ahead of a SET at most once a second:
 *                       the clock-step check
 *   EXP_MINE            the current call's command: its result
 *   EXP_LATE            a command whose call decided without it: counted in
 *                       the stats, dropped
 *   EXP_LATE_SCRIPT     late, its script kept: sent again on NOSCRIPT
 *   EXP_TIMEOUT_SCRIPT  timed out (already counted as a timeout), the same
 *   EXP_SUB/EXP_UNSUB   a subscriber connection's (UN)SUBSCRIBE confirmation
 *                       (rl_wait.c's on_push)
 *   EXP_GATE            PING on a connection that replaces an unreachable
 *                       one: what it owes waits behind it */
enum {
    EXP_SKIP = 0,
    EXP_AUTH,
    EXP_SELECT,
    EXP_SCRIPT,
    EXP_IDENT,
    EXP_IDENT_AOF,
    EXP_TIME,
    EXP_MINE,
    EXP_LATE,
    EXP_LATE_SCRIPT,
    EXP_TIMEOUT_SCRIPT,
    EXP_SUB,
    EXP_UNSUB,
    EXP_GATE
};

/* A RESP2 pub/sub array on a subscriber connection, read without allocation:
 * the kind of element 0, a hash of element 1 (the channel), and of a message's
 * payload (element 2) its leading decimal number and a hash of what follows
 * its first space. */
enum { PUSH_NONE = 0, PUSH_MESSAGE, PUSH_SUBSCRIBE, PUSH_UNSUBSCRIBE, PUSH_OTHER, PUSH_REFUSED };
typedef struct rl_push {
    int kind;
    uint64_t chan;
    long long number; /* -1: the payload does not start with a digit */
    uint64_t id;
    char first; /* the payload's first byte */
} rl_push;

/* Why a connection is never closed by us while it has work in flight:
 * Redis keeps executing what it already received. A SET sitting in a stalled
 * node's socket would run after a release sent on a fresh connection, and a
 * release still in our buffer would be lost: the key orphaned for its TTL.
 * So a node that falls behind keeps its connection and its order; it is
 * only spared new work. We close only when the server ended the connection
 * (nothing more of it can run), when the handshake was refused (nothing
 * past it was written), or when the peer broke the protocol (not Redis). */
#define QMAX 1024         /* replies in flight per connection */
#define QSTALL 256        /* past this many, a node gets no new work (releases it owes still go) */
#define STALE_US 2000000u /* a reply older than this (and than 2 timeouts): the node is stalled */
#define OBUF_INIT 512
#define OBUF_STALL (64 * 1024)     /* unsent bytes past which a node gets no new work */
#define OBUF_MAX (4 * 1024 * 1024) /* hard cap: only releases owed can get here */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 2000
/* An unreachable node (see rlc_abandon): a stalled connection whose kernel
 * retransmits and has had no ACK for this long is given up; fresh
 * connections are then tried at most every PROBE_GAP_US, each for
 * min(connect_timeout, max(PROBE_MIN_MS, timeout)) */
#define UNREACH_ACK_MS 1000
#define PROBE_GAP_US 200000u
#define PROBE_MIN_MS 200
/* releases kept for a replay after an abandon: at most this many */
#define OWE_MAX (QMAX - 128)
/* keepalive for idle connections, and the kernel's own limit for data
 * nobody ACKs (both end in ETIMEDOUT, handled like rlc_abandon) */
#define KEEPALIVE_IDLE_S 10
#define KEEPALIVE_INTVL_S 5
#define KEEPALIVE_CNT 3
#define USER_TIMEOUT_MS 20000

typedef struct qent {
    uint64_t sent_us; /* late replies still count in stats */
    uint64_t tag;     /* RL_OP_SET: the (key, token) it may set */
    unsigned char kind, op;
    /* a SET not answered yet with no release behind it: the release
     * this connection owes (see rl_conn.owed_n) */
    unsigned char owed;
    /* a release whose RESP is kept in rl_conn.owe (its copy, in queue order) */
    unsigned char copied;
} qent;

/* The session layer's state of one connection (rl_io.c plain, rl_tls.c
 * TLS): the connection owns it and hands it to the I/O table's calls with
 * its socket; the layer never sees struct rl_conn. */
typedef struct rl_sess {
    void *tls;               /* the session (SSL *) while open */
    void *tls_ctx;           /* SSL_CTX *, built once from the settings, kept across reconnects */
    void *tls_sess;          /* SSL_SESSION * to resume on reconnect */
    char err[RL_REASON_LEN]; /* why the layer failed a read/write ("" none) */
    int read_any;            /* the session has delivered data */
    int cert;                /* a client certificate was configured (the failure hint) */
} rl_sess;

/* a new connection's session: nothing open, nothing failed yet (the context
 * and the session to resume stay) */
static inline void rl_sess_open(rl_sess *s)
{
    s->tls = NULL;
    s->err[0] = '\0';
    s->read_any = 0;
}

/* The I/O table of a connection (hiredis' redisContextFuncs): plain TCP or
 * unix socket (rl_io.c), or OpenSSL (rl_tls.c). The connection lifecycle and
 * the fan-out only ever go through it. */
typedef struct rl_io {
    const char *name;
    /* after the TCP connect of fd: start or continue the session's handshake
     * with the node's settings (conf; keep_secret: its passphrase is read by
     * other threads, never wiped). 1 done, 0 in progress (*events: what poll
     * must wait for), -1 failed (why) */
    int (*connect)(rl_sess *s, int fd, rl_node_conf *conf, int keep_secret, short *events, char *why, size_t whylen);
    /* > 0 bytes, 0 the peer closed, -1 with errno (EAGAIN: nothing now; s->err may say why) */
    ssize_t (*read)(rl_sess *s, int fd, char *buf, size_t len);
    ssize_t (*write)(rl_sess *s, int fd, const char *buf, size_t len);
    /* an idle connection: 1 open and quiet, 0 closed or broken, 2 data nobody asked for */
    int (*peek)(rl_sess *s, int fd);
    /* bytes the layer has read from the socket but not handed out yet */
    int (*pending)(const rl_sess *s);
    /* drop the layer's state without writing anything: after fork() the
     * child must never write to the parent's session (no close_notify) */
    void (*close)(rl_sess *s);
    /* free what outlives connections (a TLS context, a session to resume) */
    void (*free)(rl_sess *s);
} rl_io;

#ifdef RL_HAVE_TLS
/* dst takes a reference to src's TLS context (1), or not (0: src has none, dst has one) */
int rl_sess_share_ctx(rl_sess *dst, const rl_sess *src);
#endif

extern const rl_io rl_io_plain;
#ifdef RL_HAVE_TLS
extern const rl_io rl_io_tls;
#endif

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
    /* restart-safe quorum (API.md "Restarted nodes"): the INFO answers being
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
    void *push_ud;
};

/* ---- rl_conn.c: lifecycle, queue, output buffer ---- */
/* a SET of tag in flight here with no release behind it yet */
/* a release of tag goes behind every such SET from now on */
void rlc_owed_del(rl_conn *c, uint64_t tag);
int rlc_q_push(rl_conn *c, unsigned char kind, unsigned char op, uint64_t tag, uint64_t now);
int rlc_q_pop(rl_conn *c, qent *out);
/* the reply to our command is no longer awaited; late: the call decided
 * without it (still counted in the stats when it comes), else it timed out or
 * is not wanted. cmd: the command, kept if a NOSCRIPT must send it again
 * (NULL: dropped whatever it says) */
void rlc_q_forget_mine(rl_conn *c, const rl_cmd *cmd, int late);
void rlc_late_script_reply(rl_conn *c, const rl_reply *rp, const qent *e, uint64_t now);
int rlc_flush_out(rl_conn *c, char *why, size_t whylen);
int rlc_append_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, unsigned char kind,
                   unsigned char op, uint64_t tag, uint64_t now);
size_t rlc_out_limit(const rl_conn *c);
void rlc_fail_res(rl_conn *c, rl_result *r, int err, const char *reason);
void rlc_node_failed(rl_conn *c, rl_result *r, int err, const char *why, uint64_t now, int down);
void rlc_fail_down(rl_conn *c, rl_result *r);
int rlc_conn_open(rl_conn *c, rl_result *r, uint64_t now, int ident);
int rlc_redial(rl_conn *c, uint64_t now, char *why, size_t whylen, int *err);
/* conf's address: a socket path, an IP address, or (dns) a name through
 * getaddrinfo(), which blocks; 0, or -1 with why */
int rlc_resolve_addr(const rl_node_conf *conf, int dns, struct sockaddr_storage *addr, socklen_t *addrlen, char *why,
                     size_t whylen);
int rlc_stalled(const rl_conn *c, uint64_t now);

/* ---- subscriber connections (rl_wait.c's use) ---- */
/* SUBSCRIBE or UNSUBSCRIBE (argv: 3 words) on subscriber connection c,
 * opening it first when closed (on only, and never during its back-off);
 * an inherited one (fork) is closed first, a connect begun by a wait that
 * did not need it gets a fresh deadline. Its pushes and confirmations go to
 * hook(ud, c). 0 when written or queued; -1 with the connection closed (no
 * room, the server ended it: never counted as subscribed) or never opened. */
int rlc_sub_send(rl_conn *c, int on, const char *const *argv, const size_t *lens, uint64_t now,
                 void (*hook)(void *ud, rl_conn *c), void *ud);
/* the pub/sub array just read (for the hook) */
const rl_push *rlc_push(const rl_conn *c);
/* open, and this process's (not inherited across fork) */
int rlc_live(const rl_conn *c);
/* closed and in back-off: when it may be tried again; else 0 */
uint64_t rlc_retry_at(const rl_conn *c);
/* an idle connection kept from an earlier request: closed if the server closed it */
void rlc_check_idle(rl_conn *c);
/* ud's hook removed from c, if it is the one set */
void rlc_unhook(rl_conn *c, void *ud);

/* What a connection hands over to another one of the same node made in
 * another thread (the watchdog's): the address it resolved, so that the
 * other never looks the name up, and the run_id of the server it last knew,
 * so that the other tells a restart since from a node never seen. */
typedef struct rl_conn_handoff {
    struct sockaddr_storage addr;
    socklen_t addrlen; /* 0: none */
    char run_id[41];   /* "": none */
} rl_conn_handoff;
/* from c into h (in c's thread); h's address is left as it was when c has none */
void rlc_handoff_get(const rl_conn *c, rl_conn_handoff *h);
/* what c lacks, from h: an address when it has none, a run_id when it knew none */
void rlc_handoff_take(rl_conn *c, const rl_conn_handoff *h);
/* the newer of two handoffs into into: h's run_id when it has one, its address when into has none */
void rlc_handoff_merge(rl_conn_handoff *into, const rl_conn_handoff *h);
/* a connection of the watchdog's thread: it never looks a name up, and its
 * conf is read by other threads under the watchdog's lock */
void rlc_mark_watchdog(rl_conn *c);
/* a stalled connection whose peer's kernel has stopped ACKing what we sent
 * (a silent partition, a dead host): our kernel retransmits, with a gap that
 * doubles. TCP_INFO; 0 for unix sockets and subscriber connections */
int rlc_unreachable(const rl_conn *c);
/* Give the connection up: closed with a reset (SO_LINGER 0: the kernel drops
 * what it still holds and never sends it), the releases it owes kept (owe)
 * for the connection that replaces it, behind a PING gate. See HACKING.md
 * "Partitions" for why nothing it held can overtake them. */
void rlc_abandon(rl_conn *c, uint64_t now);
/* a release owed while no connection is open: kept in owe for the next one */
int rlc_owe_add(rl_conn *c, const rl_cmd *cmd);
/* how long one connect attempt of a probing node may take (ms) */
int rlc_probe_ms(const rl_conn *c);
/* connecting: the TCP connect or the session handshake is not done */
static inline int rlc_connecting(const rl_conn *c) { return c->state == ST_CONNECTING || c->state == ST_HANDSHAKE; }
/* what poll must wait for on an open connection */
short rlc_events(const rl_conn *c);
/* The reply parser, fed with bytes: a pure function of what the node sent.
 * rlc_feed appends bytes; rlc_next_reply parses one reply into c->slot:
 * 1 a reply, 0 none complete yet, -1 protocol error (c->reader->errstr). */
int rlc_feed(rl_conn *c, const char *buf, size_t len);
int rlc_next_reply(rl_conn *c);
/* The identity's INFO replies were read (the last one at now): what they say
 * of the server into c->ident (a new run_id: a new incarnation). */
void rlc_ident_done(rl_conn *c, uint64_t now);
/* One sample of the server's wall clock (server_us, asked at sent_us, read
 * at now): a forward step by more than the drift since the last sample marks
 * c->ident (step_at_us, step_ms). */
void rlc_clock_sample(rl_conn *c, int64_t server_us, uint64_t sent_us, uint64_t now);
/* TIME is due on this connection (ahead of a SET: at most once a second) */
int rlc_time_due(const rl_conn *c, uint64_t now);

#endif
