/* rl_net.c -- node connections and the fan-out: one command written to every node, one poll() loop. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum { ST_CLOSED = 0, ST_CONNECTING, ST_READY };

/* What the next reply on a connection answers, in pipeline order. */
enum { EXP_SKIP = 0, EXP_AUTH, EXP_SELECT, EXP_SCRIPT, EXP_IDENT, EXP_MINE, EXP_LATE, EXP_LATE_SCRIPT };

/* Why a connection is never closed by us while it has work in flight:
 * Redis keeps executing what it already received. A SET sitting in a stalled
 * node's socket would run after a release sent on a fresh connection, and a
 * release still in our buffer would be lost: the key orphaned for its TTL.
 * So a node that falls behind keeps its connection and its order; it is
 * only spared new work. We close only when the server ended the connection
 * (nothing more of it can run), when the handshake was refused (nothing
 * past it was written), or when the peer broke the protocol (not Redis). */
#define QMAX 1024          /* replies in flight per connection */
#define QSTALL 256         /* past this many, a node gets no new work (releases it owes still go) */
#define STALE_US 2000000u  /* a reply older than this (and than 2 timeouts): the node is stalled */
#define OBUF_INIT 512
#define OBUF_STALL (64 * 1024)     /* unsent bytes past which a node gets no new work */
#define OBUF_MAX (4 * 1024 * 1024) /* hard cap: only releases owed can get here */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 2000

typedef struct qent {
    uint64_t sent_us; /* late replies still count in stats */
    uint64_t tag;     /* RL_OP_SET: the (key, token) it may set */
    unsigned char kind, op;
} qent;

struct rl_conn {
    rl_node_conf conf;
    int fd;
    int state;
    uint64_t gen;                /* fork generation that opened fd */
    redisReader *reader;
    char *obuf;
    size_t olen, opos, ocap;
    qent q[QMAX];                /* ring of expected replies */
    int qhead, qlen;
    /* AUTH/SELECT gate: nothing after them is written until they succeed,
     * or a refused SELECT would let our SET run in database 0 */
    int hs_pending;
    size_t hs_end;
    /* (key, token) tags of SETs written here with no release behind them yet:
     * the releases this connection owes, in order, even when stalled */
    uint64_t *owed;
    int owed_n, owed_cap;
    /* EVALSHAs overtaken by an early decision, kept (as RESP) so that a late
     * NOSCRIPT (SCRIPT FLUSH) is still answered by loading the scripts and
     * sending them again: a release must not be lost */
    char *late_buf;
    size_t late_len, late_cap;
    size_t *late_sz;
    int late_n, late_szcap;
    char run_id[41];             /* the server's, learnt at connect ("" unknown) */
    int ident_pending;
    uint64_t down_until_us;
    int backoff_ms;
    int down_err;                /* why the node is in back-off */
    char down_why[RL_REASON_LEN];
    struct sockaddr_storage addr;
    socklen_t addrlen;
    rl_node_stats st;
    rl_reply slot;               /* the reader's callbacks write here: no allocation per reply */
    /* per fan-out */
    uint64_t deadline_us, sent_us;
    int reused;                  /* was open before this call: may be stale */
    int retried;
};

/* ---- reply objects without allocation: hiredis calls these, we fill conn->slot ---- */
static void take_run_id(rl_conn *c, const char *s, size_t len)
{
    /* INFO server: "...\r\nrun_id:<40 hex>\r\n..." */
    const char *end = s + len, *p = s;
    while (p < end && (p = memchr(p, 'r', (size_t)(end - p))) != NULL) {
        if ((size_t)(end - p) >= 7 + 40 && memcmp(p, "run_id:", 7) == 0 && (p == s || p[-1] == '\n')) {
            memcpy(c->run_id, p + 7, 40);
            c->run_id[40] = '\0';
            return;
        }
        p++;
    }
}

static void *obj_string(const redisReadTask *t, char *s, size_t len)
{
    rl_conn *c = t->privdata;
    if (t->parent) return c;
    c->slot.type = t->type == REDIS_REPLY_STATUS ? RL_REPLY_STATUS
                 : t->type == REDIS_REPLY_ERROR  ? RL_REPLY_ERROR
                                                 : RL_REPLY_STRING;
    c->slot.len = len;
    size_t n = len < sizeof(c->slot.str) - 1 ? len : sizeof(c->slot.str) - 1;
    memcpy(c->slot.str, s, n);
    c->slot.str[n] = '\0';
    if (c->qlen > 0 && c->q[c->qhead].kind == EXP_IDENT && t->type == REDIS_REPLY_STRING) take_run_id(c, s, len);
    return c;
}

#if defined(HIREDIS_MAJOR) && HIREDIS_MAJOR >= 1
static void *obj_array(const redisReadTask *t, size_t elements)
#else
static void *obj_array(const redisReadTask *t, int elements)
#endif
{
    rl_conn *c = t->privdata;
    if (!t->parent) {
        c->slot.type = RL_REPLY_ARRAY;
        c->slot.integer = (long long)elements;
    }
    return c;
}

static void *obj_integer(const redisReadTask *t, long long v)
{
    rl_conn *c = t->privdata;
    if (!t->parent) {
        c->slot.type = RL_REPLY_INTEGER;
        c->slot.integer = v;
    }
    return c;
}

static void *obj_nil(const redisReadTask *t)
{
    rl_conn *c = t->privdata;
    if (!t->parent) c->slot.type = RL_REPLY_NIL;
    return c;
}

static void obj_free(void *o) { (void)o; }

static redisReplyObjectFunctions reply_fns = {
    .createString = obj_string,
    .createArray = obj_array,
    .createInteger = obj_integer,
    .createNil = obj_nil,
    .freeObject = obj_free,
};

/* ---- connection lifecycle ---- */
static char *dup_str(const char *s) { return s ? strdup(s) : NULL; }

rl_conn *rl_conn_new(const rl_node_conf *conf)
{
    rl_conn *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->fd = -1;
    c->conf = *conf;
    c->conf.host = dup_str(conf->host);
    c->conf.socket = dup_str(conf->socket);
    c->conf.user = dup_str(conf->user);
    c->conf.password = dup_str(conf->password);
    c->obuf = malloc(OBUF_INIT);
    c->ocap = OBUF_INIT;
    if ((conf->host && !c->conf.host) || (conf->socket && !c->conf.socket) ||
        (conf->user && !c->conf.user) || (conf->password && !c->conf.password) || !c->obuf) {
        rl_conn_free(c);
        return NULL;
    }
    return c;
}

static void reset_io(rl_conn *c)
{
    if (c->reader) {
        redisReaderFree(c->reader);
        c->reader = NULL;
    }
    c->fd = -1;
    c->state = ST_CLOSED;
    c->olen = c->opos = 0;
    c->qhead = c->qlen = 0;
    c->hs_pending = 0;
    c->hs_end = 0;
    c->owed_n = 0;
    c->late_len = 0;
    c->late_n = 0;
    c->run_id[0] = '\0';
    c->ident_pending = 0;
}

void rl_conn_close(rl_conn *c)
{
    /* Only close(2), never a QUIT: after fork() this drops the child's
     * descriptor and leaves the parent's connection as it was. */
    if (c->fd >= 0) close(c->fd);
    reset_io(c);
}

void rl_conn_free(rl_conn *c)
{
    if (!c) return;
    rl_conn_close(c);
    if (c->conf.password) memset(c->conf.password, 0, strlen(c->conf.password));
    rl_node_conf_free(&c->conf);
    free(c->obuf);
    free(c->owed);
    free(c->late_buf);
    free(c->late_sz);
    free(c);
}

int rl_conn_is_open(const rl_conn *c) { return c->fd >= 0; }
int rl_conn_late_scripts(const rl_conn *c) { return c->fd >= 0 ? c->late_n : 0; }
const rl_node_conf *rl_conn_conf(const rl_conn *c) { return &c->conf; }
const rl_node_stats *rl_conn_stats(const rl_conn *c) { return &c->st; }
const char *rl_conn_run_id(const rl_conn *c) { return c->run_id; }
int rl_conn_busy(const rl_conn *c) { return c->fd >= 0 && (c->qlen > 0 || c->olen > c->opos); }
int rl_conn_unsent(const rl_conn *c) { return c->fd >= 0 && (c->state == ST_CONNECTING || c->olen > c->opos); }

void rl_conn_set_timeouts(rl_conn *c, int connect_timeout_ms, int timeout_ms)
{
    c->conf.connect_timeout_ms = connect_timeout_ms;
    c->conf.timeout_ms = timeout_ms;
}
uint64_t rl_conn_down_until_us(const rl_conn *c) { return c->down_until_us; }
int rl_conn_backoff_ms(const rl_conn *c) { return c->backoff_ms; }

int rl_conn_check(rl_conn *c)
{
    if (c->fd < 0) return 0;
    if (c->gen != rl_fork_generation()) {
        rl_conn_close(c);
        return 0;
    }
    if (c->state != ST_READY || c->qlen > 0 || c->olen > c->opos) return 1;
    if (c->reader && c->reader->len > c->reader->pos) {
        rl_conn_close(c); /* parsed bytes nobody asked for */
        return 0;
    }
    char b;
    ssize_t r = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 1;
    /* EOF, an error, or bytes nobody asked for, with nothing of ours in
     * flight: the connection is stale and closing it loses nothing */
    rl_conn_close(c);
    return 0;
}

/* ---- the releases a connection owes ---- */
uint64_t rl_lock_tag(const char *key, size_t keylen, const char *token, size_t token_len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < keylen; i++) h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
    h = (h ^ 0u) * 1099511628211ull;
    for (size_t i = 0; i < token_len; i++) h = (h ^ (unsigned char)token[i]) * 1099511628211ull;
    return h;
}

static int owed_find(const rl_conn *c, uint64_t tag)
{
    for (int i = c->owed_n - 1; i >= 0; i--)
        if (c->owed[i] == tag) return i;
    return -1;
}

static int owed_add(rl_conn *c, uint64_t tag)
{
    if (c->owed_n == c->owed_cap) {
        int cap = c->owed_cap ? c->owed_cap * 2 : 16;
        uint64_t *nb = realloc(c->owed, sizeof(*nb) * (size_t)cap);
        if (!nb) return -1;
        c->owed = nb;
        c->owed_cap = cap;
    }
    c->owed[c->owed_n++] = tag;
    return 0;
}

static void owed_del(rl_conn *c, uint64_t tag)
{
    int i = owed_find(c, tag);
    if (i >= 0) c->owed[i] = c->owed[--c->owed_n];
}

/* ---- the queue of expected replies ---- */
static int q_push(rl_conn *c, unsigned char kind, unsigned char op, uint64_t tag, uint64_t now)
{
    if (c->qlen >= QMAX) return -1;
    qent *e = &c->q[(c->qhead + c->qlen) % QMAX];
    e->kind = kind;
    e->op = op;
    e->tag = tag;
    e->sent_us = now;
    c->qlen++;
    return 0;
}

static int q_pop(rl_conn *c, qent *out)
{
    if (c->qlen == 0) return -1;
    *out = c->q[c->qhead];
    c->qhead = (c->qhead + 1) % QMAX;
    c->qlen--;
    return out->kind;
}

/* The reply we wait for is no longer wanted (call decided, or timed out):
 * it will be read and dropped before the next command's reply. A reply
 * merely overtaken by the decision (late) still counts in the stats. */
static int late_save(rl_conn *c, const rl_cmd *cmd)
{
    size_t need = rl_resp_format(NULL, 0, cmd->argc, cmd->argv, cmd->argvlen);
    if (c->late_n == c->late_szcap) {
        int cap = c->late_szcap ? c->late_szcap * 2 : 8;
        size_t *nz = realloc(c->late_sz, sizeof(*nz) * (size_t)cap);
        if (!nz) return -1;
        c->late_sz = nz;
        c->late_szcap = cap;
    }
    if (c->late_len + need > c->late_cap) {
        size_t cap = c->late_cap ? c->late_cap * 2 : 512;
        while (cap < c->late_len + need) cap *= 2;
        char *nb = realloc(c->late_buf, cap);
        if (!nb) return -1;
        c->late_buf = nb;
        c->late_cap = cap;
    }
    rl_resp_format(c->late_buf + c->late_len, need, cmd->argc, cmd->argv, cmd->argvlen);
    c->late_len += need;
    c->late_sz[c->late_n++] = need;
    return 0;
}

static void q_forget_mine(rl_conn *c, const rl_cmd *late_cmd)
{
    for (int i = c->qlen - 1; i >= 0; i--) {
        qent *e = &c->q[(c->qhead + i) % QMAX];
        if (e->kind == EXP_MINE) {
            if (!late_cmd)
                e->kind = EXP_SKIP;
            else if (late_cmd->script && late_save(c, late_cmd) == 0)
                e->kind = EXP_LATE_SCRIPT;
            else
                e->kind = EXP_LATE;
            return;
        }
    }
}

static int queue_scripts(rl_conn *c, uint64_t now);
static int flush_out(rl_conn *c, char *why, size_t whylen);
struct fan;
static void catch_up(struct fan *f, int i, uint64_t now);
static int obuf_append_raw(rl_conn *c, const char *bytes, size_t len, size_t hard_max);

/* A late reply to a remembered EVALSHA: on NOSCRIPT load the scripts and
 * send it again (its reply is then dropped). */
static void late_script_reply(rl_conn *c, const rl_reply *rp, const qent *e, uint64_t now)
{
    if (c->late_n == 0) return;
    size_t sz = c->late_sz[0];
    if (rp->type == RL_REPLY_ERROR && strncmp(rp->str, "NOSCRIPT", 8) == 0 && c->fd >= 0) {
        char why[RL_REASON_LEN];
        /* the scripts go ahead of the retry; every reply behind is ours to drop */
        if (queue_scripts(c, now) == 0 && obuf_append_raw(c, c->late_buf, sz, OBUF_MAX) == 0) {
            if (q_push(c, EXP_SKIP, e->op, e->tag, now) == 0) flush_out(c, why, sizeof(why));
        }
    }
    memmove(c->late_buf, c->late_buf + sz, c->late_len - sz);
    c->late_len -= sz;
    memmove(c->late_sz, c->late_sz + 1, sizeof(c->late_sz[0]) * (size_t)(--c->late_n));
}

static void obuf_compact(rl_conn *c)
{
    if (c->opos == 0) return;
    memmove(c->obuf, c->obuf + c->opos, c->olen - c->opos);
    if (c->hs_pending) c->hs_end -= c->opos;
    c->olen -= c->opos;
    c->opos = 0;
}

static int obuf_reserve(rl_conn *c, size_t need, size_t hard_max)
{
    if (c->opos == c->olen) {
        if (c->hs_pending) c->hs_end -= c->opos;
        c->opos = c->olen = 0;
    }
    if (need <= c->ocap - c->olen) return 0;
    obuf_compact(c);
    if (need <= c->ocap - c->olen) return 0;
    size_t cap = c->ocap * 2;
    while (cap < c->olen + need) cap *= 2;
    if (c->olen + need > hard_max) return -1;
    char *nb = realloc(c->obuf, cap);
    if (!nb) return -1;
    c->obuf = nb;
    c->ocap = cap;
    return 0;
}

static int obuf_append_raw(rl_conn *c, const char *bytes, size_t len, size_t hard_max)
{
    if (obuf_reserve(c, len, hard_max) != 0) return -1;
    memcpy(c->obuf + c->olen, bytes, len);
    c->olen += len;
    return 0;
}

static int obuf_append(rl_conn *c, int argc, const char *const *argv, const size_t *lens, size_t hard_max)
{
    size_t need = rl_resp_format(NULL, 0, argc, argv, lens);
    if (obuf_reserve(c, need, hard_max) != 0) return -1;
    rl_resp_format(c->obuf + c->olen, c->ocap - c->olen, argc, argv, lens);
    c->olen += need;
    return 0;
}

static int append_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, unsigned char kind,
                      unsigned char op, uint64_t tag, uint64_t now)
{
    /* room is kept for the releases a node owes: they are never refused
     * for lack of space before everything else is */
    if (c->qlen >= (op == RL_OP_RELEASE ? QMAX : QMAX - 64)) return -1;
    if (obuf_append(c, argc, argv, lens, op == RL_OP_RELEASE ? OBUF_MAX : OBUF_MAX / 2) != 0) return -1;
    if (kind == EXP_AUTH || kind == EXP_SELECT) {
        c->hs_pending++;
        c->hs_end = c->olen;
    }
    return q_push(c, kind, (unsigned char)op, tag, now);
}

/* bytes we may write now: nothing past an unanswered AUTH/SELECT */
static size_t out_limit(const rl_conn *c) { return c->hs_pending ? c->hs_end : c->olen; }

static void fail_res(rl_conn *c, rl_result *r, int err, const char *reason)
{
    r->state = RL_FAILED;
    r->err = err;
    snprintf(r->reason, sizeof(r->reason), "%s", reason ? reason : rl_err_name(err));
    if (err == RL_E_TIMEOUT)
        c->st.timeouts++;
    else
        c->st.errors++;
    if (err == RL_E_DOWN || err == RL_E_STALLED) c->st.skipped++;
    snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", r->reason);
}

static void start_backoff(rl_conn *c, uint64_t now, int err, const char *why)
{
    /* a dead node must cost nothing on later calls: skip it for a while,
     * doubling up to a cap, and try again once the period is over */
    c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (c->backoff_ms > BACKOFF_MAX_MS) c->backoff_ms = BACKOFF_MAX_MS;
    c->down_until_us = now + (uint64_t)c->backoff_ms * 1000u;
    c->down_err = err;
    snprintf(c->down_why, sizeof(c->down_why), "%s", why ? why : rl_err_name(err));
}

/* A node in back-off fails at once, with the reason it went down: an AUTH
 * refusal stays an authentication failure. */
static void fail_down(rl_conn *c, rl_result *r)
{
    char why[RL_REASON_LEN];
    int err = c->down_err == RL_E_AUTH ? RL_E_AUTH : RL_E_DOWN;
    snprintf(why, sizeof(why), "down (back-off after: %.70s)", c->down_why[0] ? c->down_why : "failed connect");
    fail_res(c, r, err, why);
    if (err != RL_E_DOWN) c->st.skipped++;
}

static int resolve(rl_conn *c, char *why, size_t whylen)
{
    if (c->addrlen) return 0;
    if (c->conf.socket) {
        struct sockaddr_un *un = (struct sockaddr_un *)&c->addr;
        if (strlen(c->conf.socket) >= sizeof(un->sun_path)) {
            snprintf(why, whylen, "unix socket path too long");
            return -1;
        }
        un->sun_family = AF_UNIX;
        strcpy(un->sun_path, c->conf.socket);
        c->addrlen = sizeof(*un);
        return 0;
    }
    struct sockaddr_in *v4 = (struct sockaddr_in *)&c->addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&c->addr;
    if (inet_pton(AF_INET, c->conf.host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)c->conf.port);
        c->addrlen = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, c->conf.host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)c->conf.port);
        c->addrlen = sizeof(*v6);
        return 0;
    }
    /* a name: resolved once per connection object (blocking), then cached */
    struct addrinfo hints = {0}, *ai = NULL, *p;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    int rc = getaddrinfo(c->conf.host, NULL, &hints, &ai);
    if (rc != 0 || !ai) {
        snprintf(why, whylen, "cannot resolve host: %s", gai_strerror(rc));
        return -1;
    }
    for (p = ai; p; p = p->ai_next)
        if (p->ai_family == AF_INET) break;
    if (!p) p = ai;
    memcpy(&c->addr, p->ai_addr, p->ai_addrlen);
    c->addrlen = p->ai_addrlen;
    if (p->ai_family == AF_INET)
        v4->sin_port = htons((uint16_t)c->conf.port);
    else
        v6->sin6_port = htons((uint16_t)c->conf.port);
    freeaddrinfo(ai);
    return 0;
}

/* Pipelined ahead of the first command: costs no extra round trip. */
static int queue_handshake(rl_conn *c, uint64_t now, int ident)
{
    char db[16];
    if (c->conf.password) {
        const char *argv[3] = {"AUTH", c->conf.user, c->conf.password};
        size_t lens[3] = {4, c->conf.user ? strlen(c->conf.user) : 0, strlen(c->conf.password)};
        if (c->conf.user) {
            if (append_cmd(c, 3, argv, lens, EXP_AUTH, RL_OP_OTHER, 0, now)) return -1;
        } else {
            argv[1] = c->conf.password;
            lens[1] = lens[2];
            if (append_cmd(c, 2, argv, lens, EXP_AUTH, RL_OP_OTHER, 0, now)) return -1;
        }
    }
    if (c->conf.database) {
        int n = snprintf(db, sizeof(db), "%d", c->conf.database);
        const char *argv[2] = {"SELECT", db};
        size_t lens[2] = {6, (size_t)n};
        if (append_cmd(c, 2, argv, lens, EXP_SELECT, RL_OP_OTHER, 0, now)) return -1;
    }
    if (ident) {
        /* API.md "Nodes": one server must not count twice toward the quorum
         * (a name and its address, TCP and the unix socket of one server);
         * its run_id tells, before any of our replies from it is counted */
        const char *argv[2] = {"INFO", "server"};
        size_t lens[2] = {4, 6};
        if (append_cmd(c, 2, argv, lens, EXP_IDENT, RL_OP_OTHER, 0, now)) return -1;
        c->ident_pending = 1;
    }
    return queue_scripts(c, now);
}

/* the spec's scripts are loaded once per connection; EVALSHA then
 * falls back to EVAL only if the server lost them (SCRIPT FLUSH, restart) */
static int queue_scripts(rl_conn *c, uint64_t now)
{
    const char *s1[3] = {"SCRIPT", "LOAD", rl_script_release};
    size_t l1[3] = {6, 4, strlen(rl_script_release)};
    const char *s2[3] = {"SCRIPT", "LOAD", rl_script_extend};
    size_t l2[3] = {6, 4, strlen(rl_script_extend)};
    const char *s3[3] = {"SCRIPT", "LOAD", rl_script_fence_raise};
    size_t l3[3] = {6, 4, strlen(rl_script_fence_raise)};
    /* (marked as releases: room is always kept for them, like for a release) */
    if (append_cmd(c, 3, s1, l1, EXP_SCRIPT, RL_OP_RELEASE, 0, now) ||
        append_cmd(c, 3, s2, l2, EXP_SCRIPT, RL_OP_RELEASE, 0, now) ||
        append_cmd(c, 3, s3, l3, EXP_SCRIPT, RL_OP_RELEASE, 0, now))
        return -1;
    return 0;
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Start a non-blocking connect. Returns 0 (connecting or ready) or -1 with r failed. */
static int conn_open(rl_conn *c, rl_result *r, uint64_t now, int ident)
{
    char why[RL_REASON_LEN];
    if (resolve(c, why, sizeof(why)) != 0) {
        fail_res(c, r, RL_E_RESOLVE, why);
        start_backoff(c, now, RL_E_RESOLVE, why);
        return -1;
    }
    int fd = socket(c->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, sizeof(why), "socket: %s", strerror(errno));
        fail_res(c, r, RL_E_IO, why);
        return -1;
    }
    c->reader = redisReaderCreateWithFunctions(&reply_fns);
    if (!c->reader) {
        close(fd);
        fail_res(c, r, RL_E_NOMEM, NULL);
        return -1;
    }
    c->reader->privdata = c;
    /* keep the read buffer between replies (it is bounded by RL_REPLY_MAX):
     * no allocation per cycle */
    c->reader->maxbuf = 0;
    c->fd = fd;
    c->gen = rl_fork_generation();
    c->olen = c->opos = 0;
    c->qhead = c->qlen = 0;
    c->owed_n = 0;
    c->st.connects++;
    if (connect(fd, (struct sockaddr *)&c->addr, c->addrlen) == 0) {
        c->state = ST_READY;
    } else if (errno == EINPROGRESS || errno == EAGAIN) {
        c->state = ST_CONNECTING;
    } else {
        int e = errno;
        snprintf(why, sizeof(why), "connect: %s", strerror(e));
        int err = e == ECONNREFUSED || e == ENOENT ? RL_E_REFUSED : RL_E_IO;
        fail_res(c, r, err, why);
        rl_conn_close(c);
        start_backoff(c, now, err, why);
        return -1;
    }
    if (c->addr.ss_family != AF_UNIX) set_nodelay(fd);
    if (queue_handshake(c, now, ident) != 0) {
        fail_res(c, r, RL_E_NOMEM, NULL);
        rl_conn_close(c);
        return -1;
    }
    c->deadline_us = now + (uint64_t)c->conf.connect_timeout_ms * 1000u;
    return 0;
}

/* Write what is buffered. 0 ok (maybe partial), -1 on a broken connection. */
static int flush_out(rl_conn *c, char *why, size_t whylen)
{
    size_t limit = out_limit(c);
    while (c->opos < limit) {
        ssize_t w = send(c->fd, c->obuf + c->opos, limit - c->opos, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            c->opos += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        snprintf(why, whylen, "write: %s", w < 0 ? strerror(errno) : "closed");
        return -1;
    }
    if (c->opos == c->olen) c->opos = c->olen = 0;
    return 0;
}

/* A node that has not answered for long, or holds too much unanswered or
 * unsent, gets no new work: it keeps its connection (see above) and the
 * releases it owes, and catches up once it answers again. */
static int stalled(const rl_conn *c, uint64_t now)
{
    if (c->fd < 0 || c->state != ST_READY) return 0;
    if (c->qlen >= QSTALL || c->olen - c->opos > OBUF_STALL) return 1;
    if (c->qlen == 0) return 0;
    uint64_t limit = (uint64_t)c->conf.timeout_ms * 2000u;
    if (limit < STALE_US) limit = STALE_US;
    return now - c->q[c->qhead].sent_us > limit;
}

typedef struct fan fan;
struct fan {
    rl_net *net;
    const rl_cmd *cmd;
    rl_result *res;
    int n;
    int noscript;        /* a node had lost the scripts: wait for every fallback */
    int ignore_backoff;  /* too few nodes without back-off for a quorum: try them all */
    int ident;           /* more than one node: learn each server's run_id on connect */
    int settling;        /* decided: only writes and handshakes are still served */
};

static int same_as_other(fan *f, int i, char *why, size_t whylen)
{
    rl_conn *c = f->net->conns[i];
    if (!c->run_id[0]) return 0;
    for (int j = 0; j < f->n; j++) {
        rl_conn *o = f->net->conns[j];
        if (j == i || o->fd < 0 || strcmp(o->run_id, c->run_id) != 0) continue;
        char name[128];
        rl_node_conf_name(&o->conf, name, sizeof(name));
        /* the name may be long: cut it, never the sentence's meaning */
        static const char lead[] = "same Redis server as node ";
        size_t a = sizeof(lead) - 1, b = strlen(name);
        if (whylen == 0) return 1;
        if (a >= whylen) a = whylen - 1;
        if (b > whylen - 1 - a) b = whylen - 1 - a;
        memcpy(why, lead, a);
        memcpy(why + a, name, b);
        why[a + b] = '\0';
        return 1;
    }
    return 0;
}

/* Queue the command for node i (opening the connection if needed) and try to
 * write it. Returns 0, or -1 when res[i] has failed. */
static int node_send(fan *f, int i, uint64_t now, int allow_retry)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_cmd *cmd = f->cmd;
    char why[RL_REASON_LEN];

    if (c->fd >= 0 && c->gen != rl_fork_generation()) rl_conn_close(c); /* inherited: never ours to use */
    if (c->fd >= 0 && c->state == ST_CONNECTING && now >= c->deadline_us) {
        /* a connect begun by a call that did not wait (a queued release) and
         * never seen through: nothing of ours was written on it */
        rl_conn_close(c);
    }
    if (c->fd >= 0 && c->state == ST_READY && stalled(c, now)) {
        catch_up(f, i, now);
        if (r->state != RL_PENDING) {
            if (c->fd >= 0) return -1;
            memset(r, 0, sizeof(*r)); /* the server ended it meanwhile: start afresh */
        }
    }
    if (c->fd >= 0 && stalled(c, now)) {
        /* a release this connection owes goes behind its SET, whatever the
         * state of the node; anything else would only pile up */
        if (!(cmd->op == RL_OP_RELEASE && owed_find(c, cmd->tag) >= 0)) {
            snprintf(why, sizeof(why), "stalled (%d replies outstanding, oldest %llu ms)", c->qlen,
                     c->qlen ? (unsigned long long)((now - c->q[c->qhead].sent_us) / 1000u) : 0ull);
            fail_res(c, r, RL_E_STALLED, why);
            return -1;
        }
    }
    c->reused = c->fd >= 0;
    c->retried = !allow_retry;
    if (c->fd < 0) {
        if (now < c->down_until_us && !f->ignore_backoff) {
            fail_down(c, r);
            return -1;
        }
        if (conn_open(c, r, now, f->ident) != 0) return -1;
    } else if (f->ident && cmd->op != RL_OP_RELEASE && same_as_other(f, i, why, sizeof(why))) {
        /* (a release is token-checked: it may go to both, and must) */
        fail_res(c, r, RL_E_SAME_SERVER, why);
        return -1;
    }
    if (append_cmd(c, cmd->argc, cmd->argv, cmd->argvlen, EXP_MINE, (unsigned char)cmd->op, cmd->tag, now) != 0) {
        fail_res(c, r, RL_E_NOMEM, "too many commands in flight");
        return -1;
    }
    if (cmd->op == RL_OP_SET && owed_add(c, cmd->tag) != 0) {
        /* cannot remember it: the SET must not go out (drop it unsent) */
        c->olen -= rl_resp_format(NULL, 0, cmd->argc, cmd->argv, cmd->argvlen);
        c->qlen--;
        fail_res(c, r, RL_E_NOMEM, NULL);
        return -1;
    }
    if (cmd->op == RL_OP_RELEASE) owed_del(c, cmd->tag); /* in order behind its SET from now on */
    r->sent = 1;
    c->sent_us = now;
    if (c->state == ST_READY) {
        c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
        if (flush_out(c, why, sizeof(why)) != 0) {
            /* the server ended the connection: nothing more of it runs */
            rl_conn_close(c);
            if (c->reused && allow_retry) return node_send(f, i, now, 0); /* server restarted: reconnect once */
            fail_res(c, r, RL_E_IO, why);
            return -1;
        }
    }
    return 0;
}

/* The connection broke (the server closed it, or a write failed): nothing
 * more of it can run. With a connection left from an earlier call (a
 * restarted server), reconnect once within this call. */
static void node_broken(fan *f, int i, int err, const char *why, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    int was_connecting = c->state == ST_CONNECTING;
    int retry = c->reused && !c->retried && !was_connecting && !f->settling;
    rl_conn_close(c);
    if (retry && node_send(f, i, now, 0) == 0) return;
    if (f->res[i].state == RL_PENDING) fail_res(c, &f->res[i], err, why);
    if (was_connecting) start_backoff(c, now, err, why);
}

static int is_noscript(const rl_reply *rp)
{
    return rp->type == RL_REPLY_ERROR && strncmp(rp->str, "NOSCRIPT", 8) == 0;
}

static int is_ok(const rl_reply *rp) { return rp->type == RL_REPLY_STATUS && rp->len == 2 && memcmp(rp->str, "OK", 2) == 0; }

/* A peer that breaks the protocol is not Redis: it is closed (what it may
 * still execute is beyond reasoning), and the call's result fails. */
static int node_poisoned(fan *f, int i, const char *why)
{
    rl_conn *c = f->net->conns[i];
    rl_conn_close(c);
    if (f->res[i].state == RL_PENDING)
        fail_res(c, &f->res[i], RL_E_PROTO, why);
    else
        snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", why);
    return 1;
}

/* One complete reply arrived for node i. Returns 1 when res[i] got its outcome. */
static int on_reply(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_reply *rp = &c->slot;
    qent e = {0};
    int kind = q_pop(c, &e);
    char why[RL_REASON_LEN];

    /* a SET that did not set anything owes no release */
    if (e.op == RL_OP_SET && (kind == EXP_MINE || kind == EXP_LATE || kind == EXP_SKIP) && !is_ok(rp))
        owed_del(c, e.tag);

    switch (kind) {
    case EXP_AUTH:
    case EXP_SELECT:
        if (rp->type == RL_REPLY_ERROR) {
            /* Redis' own text never contains the password; nothing past the
             * gate was written, so closing loses nothing */
            snprintf(why, sizeof(why), "%s failed: %.60s", kind == EXP_AUTH ? "AUTH" : "SELECT", rp->str);
            rl_conn_close(c);
            if (r->state == RL_PENDING) fail_res(c, r, RL_E_AUTH, why);
            start_backoff(c, now, RL_E_AUTH, why);
            return 1;
        }
        if (--c->hs_pending == 0 && flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return r->state != RL_PENDING;
        }
        return 0;
    case EXP_IDENT:
        /* It comes before this node's answer to our command, so a vote is
         * only ever counted from a node whose server is known: the counted
         * votes of a call come from distinct servers. A pair seen only
         * later fails the next call that uses both. */
        c->ident_pending = 0;
        if (f->ident && f->cmd->op != RL_OP_RELEASE && same_as_other(f, i, why, sizeof(why)) &&
            r->state == RL_PENDING) {
            q_forget_mine(c, NULL);
            fail_res(c, r, RL_E_SAME_SERVER, why);
            return 1;
        }
        return 0;
    case EXP_LATE_SCRIPT:
        late_script_reply(c, rp, &e, now);
        /* fall through */
    case EXP_LATE:
        /* the call decided without it; the node did answer */
        if (rp->type != RL_REPLY_ERROR) {
            c->st.ok++;
            rl_latency_add(&c->st.lat, now - e.sent_us);
        }
        return 0;
    case EXP_MINE:
        if (is_noscript(rp) && f->cmd->script && f->cmd->argc >= 2) {
            f->noscript = 1;
            rl_cmd ev = *f->cmd;
            ev.argv[0] = "EVAL";
            ev.argvlen[0] = 4;
            ev.argv[1] = f->cmd->script;
            ev.argvlen[1] = strlen(f->cmd->script);
            if (append_cmd(c, ev.argc, ev.argv, ev.argvlen, EXP_MINE, e.op, e.tag, now) != 0) {
                fail_res(c, r, RL_E_NOMEM, "could not queue EVAL");
                return 1;
            }
            if (flush_out(c, why, sizeof(why)) != 0) {
                node_broken(f, i, RL_E_IO, why, now);
                return r->state != RL_PENDING;
            }
            return 0;
        }
        if (r->state != RL_PENDING) return 0;
        r->latency_us = now - c->sent_us;
        r->reply = *rp;
        c->backoff_ms = 0;
        c->down_until_us = 0;
        if (rp->type == RL_REPLY_ERROR) {
            snprintf(why, sizeof(why), "%.80s", rp->str[0] ? rp->str : "empty error reply");
            fail_res(c, r, RL_E_REDIS, why);
        } else {
            r->state = RL_ANSWERED;
            c->st.ok++;
            rl_latency_add(&c->st.lat, r->latency_us);
        }
        return 1;
    default: /* EXP_SKIP, EXP_SCRIPT: a late or bookkeeping reply, dropped */
        return 0;
    }
}

/* Read once from node i and dispatch the complete replies. Returns 1 when
 * res[i] has its outcome; *idle (if given) says nothing was there to read. */
static int node_read_ex(fan *f, int i, uint64_t now, int *idle)
{
    rl_conn *c = f->net->conns[i];
    char buf[16384];
    ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (idle) *idle = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    if (n <= 0) {
        char why[RL_REASON_LEN];
        snprintf(why, sizeof(why), "%s", n == 0 ? "connection closed by server" : strerror(errno));
        node_broken(f, i, RL_E_IO, why, now);
        return f->res[i].state != RL_PENDING;
    }
    if (redisReaderFeed(c->reader, buf, (size_t)n) != REDIS_OK) goto proto;
    /* parse everything that came: a reply beyond what we asked for would
     * otherwise be taken as the answer to the next command */
    int got = 0;
    for (;;) {
        void *obj = NULL;
        memset(&c->slot, 0, sizeof(c->slot));
        if (redisReaderGetReply(c->reader, &obj) != REDIS_OK) goto proto;
        if (!obj) break;
        if (c->qlen == 0) return node_poisoned(f, i, "reply nobody asked for");
        if (on_reply(f, i, now)) got = 1;
        if (c->fd < 0) return f->res[i].state != RL_PENDING;
    }
    /* a lock reply is tiny: a node that streams more is hostile or broken */
    if (c->reader->len - c->reader->pos > RL_REPLY_MAX) return node_poisoned(f, i, "reply too large");
    return got;
proto : {
    char why[RL_REASON_LEN];
    snprintf(why, sizeof(why), "protocol error: %.60s", c->reader->errstr);
    return node_poisoned(f, i, why);
}
}

static int node_read(fan *f, int i, uint64_t now) { return node_read_ex(f, i, now, NULL); }

/* A stalled node is not polled by calls that spare it: before judging it,
 * take what it sent meanwhile (it may have caught up), without waiting. */
static void catch_up(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    char why[RL_REASON_LEN];
    c->reused = 0; /* nothing of this call to resend if it broke */
    if (out_limit(c) > c->opos && flush_out(c, why, sizeof(why)) != 0) {
        node_broken(f, i, RL_E_IO, why, now);
        return;
    }
    for (int k = 0; k < 64 && c->fd >= 0; k++) {
        int idle = 0;
        node_read_ex(f, i, now, &idle);
        if (idle) break;
    }
}

static int connect_done(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    int err = 0;
    socklen_t len = sizeof(err);
    char why[RL_REASON_LEN];
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err) {
        snprintf(why, sizeof(why), "connect: %s", strerror(err));
        int code = err == ECONNREFUSED ? RL_E_REFUSED : RL_E_IO;
        rl_conn_close(c); /* nothing was written: no connection, nothing ran */
        if (f->res[i].state == RL_PENDING) fail_res(c, &f->res[i], code, why);
        start_backoff(c, now, code, why);
        return 1;
    }
    c->state = ST_READY;
    c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
    if (flush_out(c, why, sizeof(why)) != 0) {
        node_broken(f, i, RL_E_IO, why, now);
        return f->res[i].state != RL_PENDING;
    }
    return 0;
}

static void on_timeout(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->state == ST_CONNECTING) {
        /* the TCP handshake never completed: nothing of ours was written */
        rl_conn_close(c);
        fail_res(c, &f->res[i], RL_E_TIMEOUT, "connect timeout");
        start_backoff(c, now, RL_E_TIMEOUT, "connect timeout");
        return;
    }
    /* Keep the connection, also when caught in the middle of a reply: the
     * node may still execute what it holds, so its order is kept and its
     * late reply is dropped before the next one. */
    q_forget_mine(c, NULL);
    fail_res(c, &f->res[i], RL_E_TIMEOUT,
             c->reader && c->reader->len > c->reader->pos ? "timeout (reply too slow)" : "timeout");
}

static int any_pending(const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING) return 1;
    return 0;
}

/* What a decided call still has to do for a node: write what a connect or
 * an AUTH/SELECT gate holds back (a SET must not wait for a later call).
 * Bytes held back only by a full socket (a stalled node) are not waited for. */
static int needs_settling(const rl_conn *c)
{
    return c->fd >= 0 && (c->state == ST_CONNECTING || (c->hs_pending && c->olen > c->hs_end));
}

static int do_poll(rl_net *net, struct pollfd *pfd, int np, int wait_ms)
{
    return net->poll_fn ? net->poll_fn(pfd, (nfds_t)np, wait_ms) : poll(pfd, (nfds_t)np, wait_ms);
}

/* One pass over node i after poll: connect, write, read. Returns 1 when
 * res[i] got its outcome. */
static int serve(fan *f, int i, short revents, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->state == ST_CONNECTING) return connect_done(f, i, now);
    if ((revents & POLLOUT) && out_limit(c) > c->opos) {
        char why[RL_REASON_LEN];
        if (flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return f->res[i].state != RL_PENDING;
        }
    }
    if (c->fd >= 0 && (revents & (POLLIN | POLLHUP | POLLERR))) return node_read(f, i, now);
    return 0;
}

int rl_net_fanout(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud)
{
    rl_net *net = ctx;
    fan f = {.net = net, .cmd = cmd, .res = res, .n = n, .ident = n > 1};
    const rl_clock *clk = net->clock;
    struct pollfd pfd[RL_MAX_NODES];
    int map[RL_MAX_NODES];
    int decided = 0;

    if (n > RL_MAX_NODES || n > net->n) return -1;
    uint64_t now = clk->now_us(clk->ctx);
    memset(res, 0, sizeof(*res) * (size_t)n);
    /* a node in back-off may be skipped only while the others can still
     * make a quorum; when they cannot, every node is tried */
    int usable = 0;
    for (int i = 0; i < n; i++) {
        rl_conn *c = net->conns[i];
        if (c->fd >= 0 && (c->state == ST_READY || now < c->deadline_us))
            usable += !stalled(c, now);
        else
            usable += now >= c->down_until_us; /* closed, or a connect overdue (closed at send) */
    }
    f.ignore_backoff = usable < rl_quorum(n);
    for (int i = 0; i < n; i++) {
        if (cmd->nowait && (cmd->skip >> i & 1)) continue;
        if (node_send(&f, i, now, 1) != 0 && decide && decide(ud, res, n)) decided = 1;
    }
    if (cmd->nowait) decided = 1;
    while (!decided) {
        int np = 0;
        uint64_t next = UINT64_MAX;
        for (int i = 0; i < n; i++) {
            rl_conn *c = net->conns[i];
            if (res[i].state != RL_PENDING || c->fd < 0) continue;
            pfd[np].fd = c->fd;
            pfd[np].events = c->state == ST_CONNECTING ? POLLOUT
                           : (short)(POLLIN | (out_limit(c) > c->opos ? POLLOUT : 0));
            pfd[np].revents = 0;
            map[np++] = i;
            if (c->deadline_us < next) next = c->deadline_us;
        }
        if (np == 0) break;
        int wait_ms = next <= now ? 0 : (int)((next - now + 999) / 1000);
        int pr = do_poll(net, pfd, np, wait_ms);
        if (pr < 0 && errno != EINTR) {
            /* every node still waited for fails; its reply, when it comes,
             * is dropped like any late one (below), never taken for the
             * next command's */
            char why[RL_REASON_LEN];
            snprintf(why, sizeof(why), "poll: %s", strerror(errno));
            for (int i = 0; i < n; i++)
                if (res[i].state == RL_PENDING) {
                    q_forget_mine(net->conns[i], cmd);
                    fail_res(net->conns[i], &res[i], RL_E_IO, why);
                }
            return 0;
        }
        now = clk->now_us(clk->ctx);
        /* Every ready descriptor is served, also after the decision: its
         * bytes are already here, so reading them costs no wait and keeps
         * late replies (a NOSCRIPT among them) from piling up. */
        for (int k = 0; k < np; k++) {
            int i = map[k];
            rl_conn *c = net->conns[i];
            int got = 0;
            if (res[i].state != RL_PENDING || c->fd != pfd[k].fd) continue;
            if (decided && !pfd[k].revents) continue;
            if (pfd[k].revents) got = serve(&f, i, pfd[k].revents, now);
            if (!decided && !got && res[i].state == RL_PENDING && c->fd >= 0 && now >= c->deadline_us) {
                on_timeout(&f, i, now);
                got = 1;
            }
            if (got && !decided && decide && decide(ud, res, n) && !(f.noscript && any_pending(res, n)))
                decided = 1;
        }
    }
    /* Returned early: replies still in flight are dropped when they come. */
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING && net->conns[i]->fd >= 0 && !(cmd->nowait && (cmd->skip >> i & 1)))
            q_forget_mine(net->conns[i], cmd);
    if (cmd->nowait) return 0;
    /* Decided, but a node's command still sits behind its connect or its
     * AUTH/SELECT gate: serve that node (writes and the handshake's replies
     * only) until its command is out or its own deadline passes, so a SET
     * reaches every node in this call, not at some later one. */
    f.settling = 1;
    for (;;) {
        int np = 0;
        uint64_t next = UINT64_MAX;
        for (int i = 0; i < n; i++) {
            rl_conn *c = net->conns[i];
            if (!res[i].sent || !needs_settling(c) || now >= c->deadline_us) continue;
            pfd[np].fd = c->fd;
            pfd[np].events = c->state == ST_CONNECTING ? POLLOUT
                           : (short)(POLLIN | (out_limit(c) > c->opos ? POLLOUT : 0));
            pfd[np].revents = 0;
            map[np++] = i;
            if (c->deadline_us < next) next = c->deadline_us;
        }
        if (np == 0) break;
        int pr = do_poll(net, pfd, np, (int)((next - now + 999) / 1000));
        if (pr < 0 && errno != EINTR) break;
        now = clk->now_us(clk->ctx);
        for (int k = 0; k < np; k++) {
            int i = map[k];
            rl_conn *c = net->conns[i];
            if (c->fd != pfd[k].fd || !pfd[k].revents) continue;
            serve(&f, i, pfd[k].revents, now);
        }
        for (int i = 0; i < n; i++) {
            rl_conn *c = net->conns[i];
            if (c->fd >= 0 && c->state == ST_CONNECTING && now >= c->deadline_us) {
                rl_conn_close(c);
                start_backoff(c, now, RL_E_TIMEOUT, "connect timeout");
            }
        }
    }
    return 0;
}

void rl_net_drain(rl_net *net, uint64_t max_us)
{
    const rl_clock *clk = net->clock;
    uint64_t end = clk->now_us(clk->ctx) + max_us;
    /* The same reading as in a call (node_read: reply cap, stray replies,
     * handshake gate, late-reply stats, NOSCRIPT retries), with no command of
     * its own: outcomes land in a scratch array nobody reads. */
    rl_result scratch[RL_MAX_NODES];
    rl_cmd none;
    memset(&none, 0, sizeof(none));
    memset(scratch, 0, sizeof(scratch));
    fan f = {.net = net, .cmd = &none, .res = scratch, .n = net->n < RL_MAX_NODES ? net->n : RL_MAX_NODES,
             .settling = 1};
    for (;;) {
        struct pollfd pfd[RL_MAX_NODES];
        int map[RL_MAX_NODES], np = 0;
        uint64_t now = clk->now_us(clk->ctx);
        for (int i = 0; i < f.n; i++) {
            rl_conn *c = net->conns[i];
            if (c->fd < 0 || c->gen != rl_fork_generation()) continue;
            if (c->state == ST_CONNECTING && now >= c->deadline_us) {
                rl_conn_close(c); /* never connected: nothing was written */
                start_backoff(c, now, RL_E_TIMEOUT, "connect timeout");
                continue;
            }
            if (!rl_conn_busy(c) && c->state != ST_CONNECTING) continue;
            pfd[np].fd = c->fd;
            pfd[np].events = c->state == ST_CONNECTING ? POLLOUT
                           : (short)(POLLIN | (out_limit(c) > c->opos ? POLLOUT : 0));
            pfd[np].revents = 0;
            map[np++] = i;
        }
        if (np == 0 || now >= end) return;
        if (do_poll(net, pfd, np, (int)((end - now + 999) / 1000)) <= 0) return;
        now = clk->now_us(clk->ctx);
        for (int k = 0; k < np; k++) {
            int i = map[k];
            rl_conn *c = net->conns[i];
            if (!pfd[k].revents || c->fd != pfd[k].fd) continue;
            memset(&scratch[i], 0, sizeof(scratch[i]));
            c->reused = 0; /* nothing to resend if it broke */
            serve(&f, i, pfd[k].revents, now);
        }
    }
}
