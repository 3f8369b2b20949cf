/* rl_net_internal.h -- net/'s own API, for its files alone: a connection's
 * states and the kinds of reply it awaits (its state machine, in the head
 * comments), its limits, the session layer's state and I/O table (rl_io.c,
 * rl_tls.c), one fan-out call's state (rl_fan: rl_fanout.c's loop) and the
 * calls net/'s files make of each other, floor by floor: rl_conn.c
 * (lifecycle, failures, queue, buffers) at the bottom, rl_read.c (reading)
 * above it, rl_dial.c (dialing) above both, rl_node.c (the per-node steps of
 * a call) and rl_sub.c (subscriber connections) on top. What the core
 * outside net/ calls is rl.h's and rl_conn.h's (rl_conn.c's handoff to the
 * watchdog); struct rl_conn is rl_conn_struct.h's. */
#ifndef RL_NET_INTERNAL_H
#define RL_NET_INTERNAL_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_internal.h"

#include <hiredis/hiredis.h>
#include <poll.h>
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
 * c->q; on_reply in rl_read.c, the one place a reply is interpreted, acts on
 * each kind):
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
    char first;  /* the payload's first byte */
    char idmark; /* the id's first byte (RL_ID_CLEANUP, RL_ID_QUIET: rl.h), or 0 */
} rl_push;

/* Decodes element idx of a subscriber connection's top-level array into *p
 * (s NULL: not a string); given with the hook to rlc_sub_send. rl_wait.c's:
 * rl_wait_push_element. */
typedef void (*rl_push_decode_fn)(rl_push *p, int idx, const char *s, size_t len);

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

/* ---- one fan-out call (rl_fanout.c's loop) and the per-node steps it drives ----
 * The loop owns the call's state and the decision; the steps (rl_node.c)
 * send node i the command, serve its socket, time it out, watch it while it
 * is stalled or probing, and write its outcome into res[i], marking the
 * call's per-node bits (held, stalled) and flags (noscript, ident_seen). */
typedef struct rl_fan {
    rl_net *net;
    const rl_cmd *cmd;
    /* cmd's RESP, encoded once for every node (NULL: encoded per node) */
    const char *enc;
    size_t enclen;
    rl_result *res;
    int n;
    int noscript;       /* a node had lost the scripts: wait for every fallback */
    int ignore_backoff; /* too few nodes without back-off for a quorum: try them all */
    int settling;       /* decided: only writes and handshakes are still served */
    int ident_seen;     /* a run_id arrived in this pass: the decision may now stand */
    uint64_t t0;        /* when the call began */
    uint64_t held;      /* nodes skipped for their back-off (failed, provisionally: see held_matter) */
    uint64_t stalled;   /* nodes that fell behind, watched until they catch up or their deadline */
    /* nodes whose connection from an earlier call broke while read: sent the
     * command again, once, on a new connection by rlc_serve (the read path
     * never sends: rlc_node_broken only records it here) */
    uint64_t redo;
} rl_fan;

static inline int rl_net_poll(rl_net *net, struct pollfd *pfd, int np, int wait_ms)
{
    return net->poll_fn ? net->poll_fn(pfd, (nfds_t)np, wait_ms) : poll(pfd, (nfds_t)np, wait_ms);
}

/* ---- rl_conn.c: lifecycle, failures, queue, output buffer ---- */
/* Give the connection up: closed with a reset (SO_LINGER 0: the kernel drops
 * what it still holds and never sends it), the releases it owes kept (owe)
 * for the connection that replaces it, behind a PING gate. See HACKING.md
 * "Partitions" for why nothing it held can overtake them. */
void rlc_abandon(rl_conn *c, uint64_t now);
/* how a failure is recorded: res failed with its reason, the node's
 * statistics and last error (rlc_fail_res); with down, also the node's
 * back-off (r NULL: a connect no call waits for); a node in back-off failed
 * at once with the reason it went down (rlc_fail_down) */
void rlc_fail_res(rl_conn *c, rl_result *r, int err, const char *reason);
void rlc_node_failed(rl_conn *c, rl_result *r, int err, const char *why, uint64_t now, int down);
void rlc_fail_down(rl_conn *c, rl_result *r);
/* a release of tag goes behind every SET of tag in flight here with no
 * release behind it yet (qent.owed), from now on */
void rlc_owed_del(rl_conn *c, uint64_t tag);
int rlc_q_push(rl_conn *c, unsigned char kind, unsigned char op, uint64_t tag, uint64_t now);
int rlc_q_pop(rl_conn *c, qent *out);
/* the reply to our command is no longer awaited; late: the call decided
 * without it (still counted in the stats when it comes), else it timed out or
 * is not wanted. cmd: the command, kept if a NOSCRIPT must send it again
 * (NULL: dropped whatever it says); enc, enclen: its RESP when already encoded
 * (NULL: encoded again if kept) */
void rlc_q_forget_mine(rl_conn *c, const rl_cmd *cmd, const char *enc, size_t enclen, int late);
void rlc_late_script_reply(rl_conn *c, const rl_reply *rp, const qent *e, uint64_t now);
/* write what is buffered (up to the gate): 0 (maybe partial), -1 broken, with why */
int rlc_flush_out(rl_conn *c, char *why, size_t whylen);
/* the output buffer emptied (a closed or new connection), its secret wiped */
void rlc_obuf_reset(rl_conn *c);
/* bytes at the end of the output buffer, up to hard_max in all */
int rlc_obuf_append_raw(rl_conn *c, const char *bytes, size_t len, size_t hard_max);
int rlc_append_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, unsigned char kind,
                   unsigned char op, uint64_t tag, uint64_t now);
/* the same with the command's RESP already encoded (enc, len bytes) */
int rlc_append_enc(rl_conn *c, const char *enc, size_t len, unsigned char kind, unsigned char op, uint64_t tag,
                   uint64_t now);
/* AUTH, the first command of a connection: its bytes are wiped once written */
int rlc_append_secret_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, uint64_t now);
/* SCRIPT LOAD of every script, queued: at connect (rl_dial.c), and again
 * ahead of a late script sent anew after NOSCRIPT (rlc_late_script_reply) */
int rlc_queue_scripts(rl_conn *c, uint64_t now);
size_t rlc_out_limit(const rl_conn *c);
/* a release owed while no connection is open: kept in owe for the next one */
int rlc_owe_add(rl_conn *c, const rl_cmd *cmd);
int rlc_stalled(const rl_conn *c, uint64_t now);
/* connecting: the TCP connect or the session handshake is not done */
int rlc_connecting(const rl_conn *c);
int rlc_fd(const rl_conn *c);
uint64_t rlc_deadline(const rl_conn *c);
/* open and past its deadline */
int rlc_overdue(const rl_conn *c, uint64_t now);
int rlc_ident_due(const rl_conn *c); /* its server's identity is still due on a connection of this call */
int rlc_inherited(const rl_conn *c); /* open, but from before fork() */

/* ---- rl_dial.c: dialing ---- */
/* Start a non-blocking connect, its handshake queued (ident: with INFO).
 * 0 (connecting or ready), or -1 with r failed. */
int rlc_conn_open(rl_conn *c, rl_result *r, uint64_t now, int ident);
int rlc_redial(rl_conn *c, uint64_t now, char *why, size_t whylen, int *err);
/* a stalled connection whose peer's kernel has stopped ACKing what we sent
 * (a silent partition, a dead host): our kernel retransmits, with a gap that
 * doubles. TCP_INFO; 0 for unix sockets and subscriber connections */
int rlc_unreachable(const rl_conn *c);
/* how long one connect attempt of a probing node may take (ms) */
int rlc_probe_ms(const rl_conn *c);

/* ---- rl_read.c: reading ---- */
/* a new connection's reader (hiredis's, with the callbacks that fill c->slot) */
int rlc_reader_new(rl_conn *c);
/* TIME is due on this connection (ahead of a SET: at most once a second) */
int rlc_time_due(const rl_conn *c, uint64_t now);
/* node i's server is also another open node's of the call (one run_id):
 * 1 with why, else 0 */
int rlc_same_server(rl_fan *f, int i, char *why, size_t whylen);
/* read node i and act on every complete reply: 1 when res[i] got its outcome */
int rlc_node_read(rl_fan *f, int i, uint64_t now);
/* a stalled node: take what it sent meanwhile, without waiting */
void rlc_catch_up(rl_fan *f, int i, uint64_t now);
/* node i's connection broke: closed, and res[i] failed, or (a connection
 * from an earlier call) its resend recorded in f->redo for rlc_serve */
void rlc_node_broken(rl_fan *f, int i, int err, const char *why, uint64_t now);

/* ---- rl_node.c: the per-node steps of a call (rl_fanout.c's loop) ---- */
/* Queue the command for node i (opening the connection if needed) and try to
 * write it. 0, or -1 when res[i] has failed. */
int rlc_send(rl_fan *f, int i, uint64_t now, int allow_retry);
/* node i's socket is ready (revents): connect, write, read. 1 when res[i] got its outcome */
int rlc_serve(rl_fan *f, int i, short revents, uint64_t now);
/* the same outside a call (drain, listen): nothing to resend if it breaks */
void rlc_serve_outside(rl_fan *f, int i, short revents, uint64_t now);
/* node i's deadline passed with res[i] pending */
void rlc_timeout(rl_fan *f, int i, uint64_t now);
/* node i is in f->stalled: sent the command once it caught up, failed at its deadline. 1: res[i] has its outcome */
int rlc_stalled_step(rl_fan *f, int i, uint64_t now);
/* the call returns: nodes still held back or behind get their reason (f->held, f->stalled cleared) */
void rlc_fan_end(rl_fan *f, uint64_t now);
/* a decided call must still write what a connect or an AUTH/SELECT gate
 * holds back: until when it waits for that (0: nothing to settle, or past
 * its deadline) */
uint64_t rlc_settle_until(const rl_conn *c, uint64_t now);
/* how many of n nodes may count for a quorum in a call beginning now */
int rlc_usable(rl_conn *const *conns, int n, uint64_t now);
/* a connect past its deadline: closed and failed (1), else 0 */
int rlc_expire_connect(rl_conn *c, uint64_t now);
/* open: its poll entry (*p), and (until) how long it is watched (a probing node's watch, else its deadline) */
int rlc_watch(const rl_conn *c, struct pollfd *p, uint64_t *until);

/* ---- subscriber connections (rl_wait.c's use): rl_sub.c ---- */
/* SUBSCRIBE or UNSUBSCRIBE (argv: argc words, a channel each after the first) on subscriber connection c,
 * opening it first when closed (on only, and never during its back-off);
 * an inherited one (fork) is closed first, a connect begun by a wait that
 * did not need it gets a fresh deadline. Its pushes and confirmations go to
 * hook(ud, c). 0 when written or queued; -1 with the connection closed (no
 * room, the server ended it: never counted as subscribed) or never opened. */
int rlc_sub_send(rl_conn *c, int on, int argc, const char *const *argv, const size_t *lens, uint64_t now,
                 void (*hook)(void *ud, rl_conn *c), rl_push_decode_fn decode, void *ud);
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

#endif
