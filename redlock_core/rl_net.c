/* rl_net.c -- node connections and the fan-out: one command written to every node, one poll() loop. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl.h"

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
enum { EXP_SKIP = 0, EXP_AUTH, EXP_SELECT, EXP_SCRIPT, EXP_MINE, EXP_LATE, EXP_LATE_SCRIPT };
#define LATE_MAX 8       /* late EVALSHAs remembered per connection for a NOSCRIPT retry */

#define QMAX 1024        /* replies in flight per connection: a slow node pipelines many */
#define QKEEP 64         /* past this many, a reply older than STALE_US means a hung node */
#define STALE_US 2000000u
#define OBUF_INIT 512
#define OBUF_MAX (256 * 1024)
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 2000

struct rl_conn {
    rl_node_conf conf;
    int fd;
    int state;
    uint64_t gen;                /* fork generation that opened fd */
    redisReader *reader;
    char *obuf;
    size_t olen, opos, ocap;
    unsigned char q[QMAX];       /* ring of expected replies */
    uint64_t qt[QMAX];           /* when each was sent: late replies still count in stats */
    int qhead, qlen;
    /* AUTH/SELECT gate: nothing after them is written until they succeed,
     * or a refused SELECT would let our SET run in database 0 */
    int hs_pending;
    size_t hs_end;
    /* EVALSHAs overtaken by an early decision, kept (as RESP) so that a late
     * NOSCRIPT (SCRIPT FLUSH, restart) is still answered by loading the
     * scripts and sending them again: a release must not be lost */
    char *late_buf;
    size_t late_len, late_cap, late_sz[LATE_MAX];
    int late_n;
    uint64_t down_until_us;
    int backoff_ms;
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
    c->late_len = 0;
    c->late_n = 0;
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
    rl_node_conf_free(&c->conf);
    free(c->obuf);
    free(c->late_buf);
    free(c);
}

int rl_conn_is_open(const rl_conn *c) { return c->fd >= 0; }
int rl_conn_late_scripts(const rl_conn *c) { return c->fd >= 0 ? c->late_n : 0; }
const rl_node_conf *rl_conn_conf(const rl_conn *c) { return &c->conf; }
const rl_node_stats *rl_conn_stats(const rl_conn *c) { return &c->st; }

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
    /* EOF, an error, or bytes nobody asked for: the connection is stale */
    rl_conn_close(c);
    return 0;
}

static int q_push(rl_conn *c, unsigned char kind, uint64_t now)
{
    if (c->qlen >= QMAX) return -1;
    c->q[(c->qhead + c->qlen) % QMAX] = kind;
    c->qt[(c->qhead + c->qlen) % QMAX] = now;
    c->qlen++;
    return 0;
}

static int q_pop(rl_conn *c, uint64_t *sent)
{
    if (c->qlen == 0) return -1;
    int k = c->q[c->qhead];
    if (sent) *sent = c->qt[c->qhead];
    c->qhead = (c->qhead + 1) % QMAX;
    c->qlen--;
    return k;
}

/* The reply we wait for is no longer wanted (call decided, or timed out):
 * it will be read and dropped before the next command's reply. A reply
 * merely overtaken by the decision (late) still counts in the stats. */
static int late_save(rl_conn *c, const rl_cmd *cmd)
{
    if (c->late_n >= LATE_MAX) return -1;
    size_t need = rl_resp_format(NULL, 0, cmd->argc, cmd->argv, cmd->argvlen);
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
        int at = (c->qhead + i) % QMAX;
        if (c->q[at] == EXP_MINE) {
            if (!late_cmd)
                c->q[at] = EXP_SKIP;
            else if (late_cmd->script && late_save(c, late_cmd) == 0)
                c->q[at] = EXP_LATE_SCRIPT;
            else
                c->q[at] = EXP_LATE;
            return;
        }
    }
}

static int queue_scripts(rl_conn *c, uint64_t now);
static int flush_out(rl_conn *c, char *why, size_t whylen);

/* A late reply to a remembered EVALSHA: on NOSCRIPT load the scripts and
 * send it again (its reply is then dropped). */
static void late_script_reply(rl_conn *c, const rl_reply *rp, uint64_t now)
{
    if (c->late_n == 0) return;
    size_t sz = c->late_sz[0];
    if (rp->type == RL_REPLY_ERROR && strncmp(rp->str, "NOSCRIPT", 8) == 0 && c->fd >= 0) {
        char why[RL_REASON_LEN];
        if (queue_scripts(c, now) == 0 && c->olen + sz <= OBUF_MAX) {
            if (c->olen + sz > c->ocap) {
                size_t cap = c->ocap * 2;
                while (cap < c->olen + sz) cap *= 2;
                char *nb = realloc(c->obuf, cap);
                if (nb) {
                    c->obuf = nb;
                    c->ocap = cap;
                }
            }
            if (c->olen + sz <= c->ocap && q_push(c, EXP_SKIP, now) == 0) {
                memcpy(c->obuf + c->olen, c->late_buf, sz);
                c->olen += sz;
                flush_out(c, why, sizeof(why));
            }
        }
    }
    memmove(c->late_buf, c->late_buf + sz, c->late_len - sz);
    c->late_len -= sz;
    memmove(c->late_sz, c->late_sz + 1, sizeof(c->late_sz[0]) * (size_t)(--c->late_n));
}

static int obuf_append(rl_conn *c, int argc, const char *const *argv, const size_t *lens)
{
    if (c->opos == c->olen) {
        if (c->hs_pending) c->hs_end -= c->opos;
        c->opos = c->olen = 0;
    }
    size_t need = rl_resp_format(c->obuf + c->olen, c->ocap - c->olen, argc, argv, lens);
    if (need > c->ocap - c->olen) {
        if (c->opos > 0) {
            memmove(c->obuf, c->obuf + c->opos, c->olen - c->opos);
            if (c->hs_pending) c->hs_end -= c->opos;
            c->olen -= c->opos;
            c->opos = 0;
        }
        if (need > c->ocap - c->olen) {
            size_t cap = c->ocap * 2;
            while (cap < c->olen + need) cap *= 2;
            if (cap > OBUF_MAX) return -1;
            char *nb = realloc(c->obuf, cap);
            if (!nb) return -1;
            c->obuf = nb;
            c->ocap = cap;
        }
        rl_resp_format(c->obuf + c->olen, c->ocap - c->olen, argc, argv, lens);
    }
    c->olen += need;
    return 0;
}

static int append_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, unsigned char kind,
                      uint64_t now)
{
    if (obuf_append(c, argc, argv, lens) != 0) return -1;
    if (kind == EXP_AUTH || kind == EXP_SELECT) {
        c->hs_pending++;
        c->hs_end = c->olen;
    }
    return q_push(c, kind, now);
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
    if (err == RL_E_DOWN) c->st.skipped++;
    snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", r->reason);
}

static void start_backoff(rl_conn *c, uint64_t now)
{
    /* a dead node must cost nothing on later calls: skip it for a while,
     * doubling up to a cap, and try again once the period is over */
    c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (c->backoff_ms > BACKOFF_MAX_MS) c->backoff_ms = BACKOFF_MAX_MS;
    c->down_until_us = now + (uint64_t)c->backoff_ms * 1000u;
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
static int queue_handshake(rl_conn *c, uint64_t now)
{
    char db[16];
    if (c->conf.password) {
        const char *argv[3] = {"AUTH", c->conf.user, c->conf.password};
        size_t lens[3] = {4, c->conf.user ? strlen(c->conf.user) : 0, strlen(c->conf.password)};
        if (c->conf.user) {
            if (append_cmd(c, 3, argv, lens, EXP_AUTH, now)) return -1;
        } else {
            argv[1] = c->conf.password;
            lens[1] = lens[2];
            if (append_cmd(c, 2, argv, lens, EXP_AUTH, now)) return -1;
        }
    }
    if (c->conf.database) {
        int n = snprintf(db, sizeof(db), "%d", c->conf.database);
        const char *argv[2] = {"SELECT", db};
        size_t lens[2] = {6, (size_t)n};
        if (append_cmd(c, 2, argv, lens, EXP_SELECT, now)) return -1;
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
    if (append_cmd(c, 3, s1, l1, EXP_SCRIPT, now) || append_cmd(c, 3, s2, l2, EXP_SCRIPT, now)) return -1;
    return 0;
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Start a non-blocking connect. Returns 0 (connecting or ready) or -1 with r failed. */
static int conn_open(rl_conn *c, rl_result *r, uint64_t now)
{
    char why[RL_REASON_LEN];
    if (resolve(c, why, sizeof(why)) != 0) {
        fail_res(c, r, RL_E_RESOLVE, why);
        start_backoff(c, now);
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
    c->st.connects++;
    if (connect(fd, (struct sockaddr *)&c->addr, c->addrlen) == 0) {
        c->state = ST_READY;
    } else if (errno == EINPROGRESS || errno == EAGAIN) {
        c->state = ST_CONNECTING;
    } else {
        snprintf(why, sizeof(why), "connect: %s", strerror(errno));
        fail_res(c, r, errno == ECONNREFUSED || errno == ENOENT ? RL_E_REFUSED : RL_E_IO, why);
        rl_conn_close(c);
        start_backoff(c, now);
        return -1;
    }
    if (c->addr.ss_family != AF_UNIX) set_nodelay(fd);
    if (queue_handshake(c, now) != 0) {
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

typedef struct fan {
    rl_net *net;
    const rl_cmd *cmd;
    rl_result *res;
    int n;
    int noscript;   /* a node had lost the scripts: wait for every fallback */
} fan;

/* Queue the command for node i (opening the connection if needed) and try to
 * write it. Returns 0, or -1 when res[i] has failed. */
static int node_send(fan *f, int i, uint64_t now, int allow_retry)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    char why[RL_REASON_LEN];

    if (c->fd >= 0 && c->gen != rl_fork_generation()) rl_conn_close(c); /* inherited: never ours to use */
    if (c->fd >= 0 && (c->qlen > QMAX - 16 || c->olen - c->opos > OBUF_MAX / 2 ||
                       (c->qlen > QKEEP && now - c->qt[c->qhead] > STALE_US))) {
        /* a node that has not answered for a long time: start afresh. A slow
         * one that answers (a far zone) keeps its pipeline: reconnecting it
         * would throw every reply away and never hear from it again. */
        rl_conn_close(c);
    }
    c->reused = c->fd >= 0;
    c->retried = !allow_retry;
    if (c->fd < 0) {
        if (now < c->down_until_us) {
            fail_res(c, r, RL_E_DOWN, "down (back-off after failed connect)");
            return -1;
        }
        if (conn_open(c, r, now) != 0) return -1;
    }
    if (append_cmd(c, f->cmd->argc, f->cmd->argv, f->cmd->argvlen, EXP_MINE, now) != 0) {
        fail_res(c, r, RL_E_NOMEM, "too many commands in flight");
        rl_conn_close(c);
        return -1;
    }
    r->sent = 1;
    c->sent_us = now;
    if (c->state == ST_READY) {
        c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
        if (flush_out(c, why, sizeof(why)) != 0) {
            rl_conn_close(c);
            if (c->reused && allow_retry) return node_send(f, i, now, 0); /* server restarted: reconnect once */
            fail_res(c, r, RL_E_IO, why);
            return -1;
        }
    }
    return 0;
}

/* The connection broke before our reply: with a connection left from an
 * earlier call (a restarted server), reconnect once within this call. */
static void node_broken(fan *f, int i, int err, const char *why, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    int was_connecting = c->state == ST_CONNECTING;
    int retry = c->reused && !c->retried && !was_connecting;
    rl_conn_close(c);
    if (retry && node_send(f, i, now, 0) == 0) return;
    if (f->res[i].state == RL_PENDING) fail_res(c, &f->res[i], err, why);
    if (was_connecting) start_backoff(c, now);
}

static int is_noscript(const rl_reply *rp)
{
    return rp->type == RL_REPLY_ERROR && strncmp(rp->str, "NOSCRIPT", 8) == 0;
}

/* One complete reply arrived for node i. Returns 1 when res[i] got its outcome. */
static int on_reply(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_reply *rp = &c->slot;
    uint64_t sent = 0;
    int kind = q_pop(c, &sent);
    char why[RL_REASON_LEN];

    switch (kind) {
    case EXP_AUTH:
    case EXP_SELECT:
        if (rp->type == RL_REPLY_ERROR) {
            /* Redis' own text never contains the password */
            snprintf(why, sizeof(why), "%s failed: %.60s", kind == EXP_AUTH ? "AUTH" : "SELECT", rp->str);
            rl_conn_close(c);
            fail_res(c, r, RL_E_AUTH, why);
            start_backoff(c, now);
            return 1;
        }
        if (--c->hs_pending == 0 && flush_out(c, why, sizeof(why)) != 0) {
            rl_conn_close(c);
            fail_res(c, r, RL_E_IO, why);
            return 1;
        }
        return 0;
    case EXP_LATE_SCRIPT:
        late_script_reply(c, rp, now);
        /* fall through */
    case EXP_LATE:
        /* the call decided without it; the node did answer */
        if (rp->type != RL_REPLY_ERROR) {
            c->st.ok++;
            rl_latency_add(&c->st.lat, now - sent);
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
            if (append_cmd(c, ev.argc, ev.argv, ev.argvlen, EXP_MINE, now) != 0 ||
                flush_out(c, why, sizeof(why)) != 0) {
                rl_conn_close(c);
                fail_res(c, r, RL_E_IO, "could not send EVAL");
                return 1;
            }
            return 0;
        }
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
 * res[i] has its outcome. */
static int node_read(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    char buf[16384];
    ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
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
        if (c->qlen == 0) {
            rl_conn_close(c);
            if (f->res[i].state == RL_PENDING)
                fail_res(c, &f->res[i], RL_E_PROTO, "reply nobody asked for");
            else
                snprintf(c->st.last_error, sizeof(c->st.last_error), "reply nobody asked for");
            return 1;
        }
        if (on_reply(f, i, now)) got = 1;
        if (c->fd < 0) return f->res[i].state != RL_PENDING;
    }
    if (got) return 1;
    /* a lock reply is tiny: a node that streams more is hostile or broken */
    if (c->reader->len - c->reader->pos > RL_REPLY_MAX) {
        rl_conn_close(c);
        fail_res(c, &f->res[i], RL_E_PROTO, "reply too large");
        return 1;
    }
    return 0;
proto : {
    char why[RL_REASON_LEN];
    snprintf(why, sizeof(why), "protocol error: %.60s", c->reader->errstr);
    rl_conn_close(c);
    fail_res(c, &f->res[i], RL_E_PROTO, why);
    return 1;
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
        rl_conn_close(c);
        fail_res(c, &f->res[i], err == ECONNREFUSED ? RL_E_REFUSED : RL_E_IO, why);
        start_backoff(c, now);
        return 1;
    }
    c->state = ST_READY;
    c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
    if (flush_out(c, why, sizeof(why)) != 0) {
        rl_conn_close(c);
        fail_res(c, &f->res[i], RL_E_IO, why);
        return 1;
    }
    return 0;
}

static void on_timeout(fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->state == ST_CONNECTING) {
        rl_conn_close(c);
        fail_res(c, &f->res[i], RL_E_TIMEOUT, "connect timeout");
        start_backoff(c, now);
        return;
    }
    if (c->reader && c->reader->len > c->reader->pos) {
        /* caught in the middle of a reply: a node that trickles bytes, not a
         * paused one; a fresh connection is cheaper than waiting on it */
        rl_conn_close(c);
        fail_res(c, &f->res[i], RL_E_TIMEOUT, "timeout (reply too slow)");
        return;
    }
    /* keep the connection: its late reply is dropped before the next one */
    q_forget_mine(c, NULL);
    fail_res(c, &f->res[i], RL_E_TIMEOUT, "timeout");
}

static int any_pending(const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING) return 1;
    return 0;
}

int rl_net_fanout(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud)
{
    rl_net *net = ctx;
    fan f = {net, cmd, res, n, 0};
    const rl_clock *clk = net->clock;
    struct pollfd pfd[RL_MAX_NODES];
    int map[RL_MAX_NODES];
    int decided = 0;

    if (n > RL_MAX_NODES || n > net->n) return -1;
    uint64_t now = clk->now_us(clk->ctx);
    memset(res, 0, sizeof(*res) * (size_t)n);
    for (int i = 0; i < n; i++) {
        if (node_send(&f, i, now, 1) != 0 && decide && decide(ud, res, n)) decided = 1;
    }
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
        int pr = poll(pfd, (nfds_t)np, wait_ms);
        if (pr < 0 && errno != EINTR) return -1;
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
            if (pfd[k].revents) {
                if (c->state == ST_CONNECTING) {
                    got = connect_done(&f, i, now);
                } else {
                    if ((pfd[k].revents & POLLOUT) && out_limit(c) > c->opos) {
                        char why[RL_REASON_LEN];
                        if (flush_out(c, why, sizeof(why)) != 0) {
                            node_broken(&f, i, RL_E_IO, why, now);
                            got = res[i].state != RL_PENDING;
                        }
                    }
                    if (!got && c->fd >= 0 && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
                        got = node_read(&f, i, now);
                }
            }
            if (!decided && !got && res[i].state == RL_PENDING && net->conns[i]->fd >= 0 &&
                now >= net->conns[i]->deadline_us) {
                on_timeout(&f, i, now);
                got = 1;
            }
            if (got && !decided && decide && decide(ud, res, n) && !(f.noscript && any_pending(res, n)))
                decided = 1;
        }
    }
    /* Connects begun in this call and overtaken by the decision: one look
     * without waiting, so a refused node starts its back-off now instead of
     * staying "connecting" (only when such a node exists: no syscall else). */
    if (decided) {
        int np = 0;
        for (int i = 0; i < n; i++) {
            rl_conn *c = net->conns[i];
            if (res[i].state != RL_PENDING || c->fd < 0 || c->state != ST_CONNECTING) continue;
            pfd[np].fd = c->fd;
            pfd[np].events = POLLOUT;
            pfd[np].revents = 0;
            map[np++] = i;
        }
        if (np > 0 && poll(pfd, (nfds_t)np, 0) > 0) {
            for (int k = 0; k < np; k++)
                if (pfd[k].revents) connect_done(&f, map[k], now);
        }
    }
    /* Returned early: replies still in flight are dropped when they come. */
    for (int i = 0; i < n; i++)
        if (res[i].state == RL_PENDING && net->conns[i]->fd >= 0) q_forget_mine(net->conns[i], cmd);
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
    fan f = {net, &none, scratch, net->n < RL_MAX_NODES ? net->n : RL_MAX_NODES, 0};
    for (;;) {
        struct pollfd pfd[RL_MAX_NODES];
        int map[RL_MAX_NODES], np = 0;
        for (int i = 0; i < f.n; i++) {
            rl_conn *c = net->conns[i];
            if (c->fd < 0 || c->state != ST_READY || c->qlen == 0 || c->gen != rl_fork_generation()) continue;
            pfd[np].fd = c->fd;
            pfd[np].events = (short)(POLLIN | (out_limit(c) > c->opos ? POLLOUT : 0));
            map[np++] = i;
        }
        uint64_t now = clk->now_us(clk->ctx);
        if (np == 0 || now >= end) return;
        if (poll(pfd, (nfds_t)np, (int)((end - now + 999) / 1000)) <= 0) return;
        now = clk->now_us(clk->ctx);
        for (int k = 0; k < np; k++) {
            int i = map[k];
            rl_conn *c = net->conns[i];
            char why[RL_REASON_LEN];
            if (!pfd[k].revents || c->fd != pfd[k].fd) continue;
            memset(&scratch[i], 0, sizeof(scratch[i]));
            c->reused = 0; /* nothing to resend if it broke */
            if ((pfd[k].revents & POLLOUT) && flush_out(c, why, sizeof(why)) != 0) {
                node_broken(&f, i, RL_E_IO, why, now);
                continue;
            }
            if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) node_read(&f, i, now);
        }
    }
}
