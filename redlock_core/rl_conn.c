/* rl_conn.c -- a connection to one node: resolve, connect, AUTH/SELECT gate, back-off,
 * the queue of expected replies, the output buffer, the reply parser. */
#include "rl_conn_struct.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

static inline int connecting(const rl_conn *c) { return c->state == ST_CONNECTING || c->state == ST_HANDSHAKE; }
int rlc_connecting(const rl_conn *c) { return connecting(c); }

/* how many of the first n bytes of s are in set */
static size_t strspn_n(const char *s, size_t n, const char *set)
{
    size_t i = 0;
    while (i < n && s[i] && strchr(set, s[i])) i++;
    return i;
}

/* ---- INFO: the server's identity, uptime and persistence ---- */
void rl_info_init(rl_info *info)
{
    info->run_id[0] = '\0';
    info->uptime_s = -1;
    info->aof = -1;
    info->server_time_us = -1;
}

/* a decimal number of at most 18 digits at s (len bytes), then the end of
 * its line: its value, else -1 */
static long long info_number(const char *s, size_t len)
{
    long long v = 0;
    size_t i = 0;
    while (i < len && i < 18 && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
    if (i == 0 || (i < len && s[i] != '\r' && s[i] != '\n')) return -1;
    return v;
}

void rl_info_parse(const char *s, size_t len, rl_info *info)
{
    /* line by line: "name:value" at the start of a line; anything else
     * (sections, other fields, garbage) is skipped */
    const char *p = s, *end = s + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (ll >= 7 + 40 && memcmp(p, "run_id:", 7) == 0 && strspn_n(p + 7, 40, "0123456789abcdef") == 40 &&
            (ll == 47 || p[47] == '\r')) {
            memcpy(info->run_id, p + 7, 40);
            info->run_id[40] = '\0';
        } else if (ll > 18 && memcmp(p, "uptime_in_seconds:", 18) == 0) {
            info->uptime_s = info_number(p + 18, ll - 18);
        } else if (ll > 12 && memcmp(p, "aof_enabled:", 12) == 0) {
            long long v = info_number(p + 12, ll - 12);
            info->aof = v == 0 || v == 1 ? (int)v : -1;
        } else if (ll > 17 && memcmp(p, "server_time_usec:", 17) == 0) {
            info->server_time_us = info_number(p + 17, ll - 17);
        }
        p += ll + 1;
    }
}

void rlc_ident_done(rl_conn *c, uint64_t now)
{
    rl_ident *id = &c->ident;
    const rl_info *in = &c->ninfo;
    (void)now;
    if (c->info_refused || !in->run_id[0] || in->uptime_s < 0) {
        /* an ACL without INFO (or not Redis as we know it): the node votes
         * unchecked (docs/api.md: stats() says "restart check: no INFO") */
        id->known = 0;
        id->no_info = 1;
        return;
    }
    id->no_info = 0;
    id->aof = in->aof == 1;
    int other = strcmp(in->run_id, c->last_run_id) != 0;
    if (!id->known || other) {
        /* another server than the one we knew (or the first): a new
         * incarnation, up since the latest moment its uptime allows */
        id->restarted = c->last_run_id[0] != '\0' && other;
        id->inc++;
        uint64_t up = (uint64_t)in->uptime_s * 1000000u;
        id->up_since_us = c->info_at_us > up ? c->info_at_us - up : 1;
        memcpy(c->last_run_id, in->run_id, sizeof(c->last_run_id));
        id->known = 1;
        c->clk_known = 0; /* another server: its clock is compared from now on */
        id->step_at_us = 0;
    }
    if (in->server_time_us > 0) rlc_clock_sample(c, in->server_time_us, c->info_sent_us, c->info_at_us);
    if (id->aof) id->restarted = 0; /* its data came back with it */
}

/* A step the check believes: more than 1% of the time between the samples
 * (the drift), plus what the two readings can be off by: the old sample's
 * round trip (a reply is read up to one round trip after the server took
 * its time) and 10 ms for a server's cached clock. A step back is harmless
 * (keys expire later) and ignored. */
void rlc_clock_sample(rl_conn *c, int64_t server_us, uint64_t sent_us, uint64_t now)
{
    int64_t off = server_us - (int64_t)now;
    if (c->clk_known && now > c->clk_at_us) {
        uint64_t elapsed = now - c->clk_at_us;
        int64_t limit = (int64_t)(elapsed / 100u + c->clk_rtt_us) + 10000;
        int64_t step = off - c->clk_off_us;
        if (step > limit) {
            c->ident.step_at_us = now;
            c->ident.step_ms = step / 1000;
        }
    }
    c->clk_known = 1;
    c->clk_off_us = off;
    c->clk_at_us = now;
    c->clk_rtt_us = now > sent_us ? now - sent_us : 0;
}

int rlc_time_due(const rl_conn *c, uint64_t now)
{
    uint64_t last = c->clk_asked_us > c->clk_at_us ? c->clk_asked_us : c->clk_at_us;
    return c->clk_known && now - last >= 1000000u;
}

void rl_conn_ident(const rl_conn *c, rl_ident *out) { *out = c->ident; }

/* ---- reply objects without allocation: hiredis calls these, we fill conn->slot ---- */
static void rlc_take_run_id(rl_conn *c, const char *s, size_t len)
{
    /* INFO server: "...\r\nrun_id:<40 hex>\r\n...", INFO persistence: "aof_enabled:0" */
    rl_info_parse(s, len, &c->ninfo);
    if (c->q[c->qhead].kind == EXP_IDENT && c->ninfo.run_id[0]) memcpy(c->run_id, c->ninfo.run_id, sizeof(c->run_id));
}

/* element idx of a top-level [answer, int, int] being taken apart (rl_reply.aux) */
static int flat_elem(const rl_conn *c, const redisReadTask *t) { return c->flat && t->parent && !t->parent->parent; }

static void flat_int(rl_conn *c, int idx, int is_int, long long v)
{
    if (idx == 1 && is_int) {
        c->slot.aux[0] = v;
        c->slot.naux = 1;
    } else if (idx == 2 && is_int && c->slot.naux == 1) {
        c->slot.aux[1] = v;
        c->slot.naux = 2;
    } else if (idx > 0) {
        c->slot.naux = 0;
    }
}

static void *obj_string(const redisReadTask *t, char *s, size_t len)
{
    rl_conn *c = t->privdata;
    if (t->parent && !t->parent->parent && t->idx < 2 && c->qlen > 0 && c->q[c->qhead].kind == EXP_TIME) {
        /* TIME: ["<seconds>", "<microseconds>"] */
        long long v = 0;
        size_t k = 0;
        while (k < len && k < 12 && s[k] >= '0' && s[k] <= '9') v = v * 10 + (s[k++] - '0');
        c->ntime[t->idx] = k == len && k > 0 ? v : -1;
        return c;
    }
    if (flat_elem(c, t) && t->idx > 0) {
        flat_int(c, t->idx, 0, 0);
        return c;
    }
    if (t->parent && !(flat_elem(c, t) && t->idx == 0)) {
        if (c->sub && !t->parent->parent && c->push_decode) c->push_decode(&c->push, t->idx, s, len);
        return c;
    }
    c->slot.type = t->type == REDIS_REPLY_STATUS  ? RL_REPLY_STATUS
                   : t->type == REDIS_REPLY_ERROR ? RL_REPLY_ERROR
                                                  : RL_REPLY_STRING;
    c->slot.len = len;
    size_t n = len < sizeof(c->slot.str) - 1 ? len : sizeof(c->slot.str) - 1;
    memcpy(c->slot.str, s, n);
    c->slot.str[n] = '\0';
    if (c->qlen > 0 && (c->q[c->qhead].kind == EXP_IDENT || c->q[c->qhead].kind == EXP_IDENT_AOF) &&
        t->type == REDIS_REPLY_STRING)
        rlc_take_run_id(c, s, len);
    return c;
}

#if defined(HIREDIS_MAJOR) && HIREDIS_MAJOR >= 1
static void *obj_array(const redisReadTask *t, size_t elements)
#else
static void *obj_array(const redisReadTask *t, int elements)
#endif
{
    rl_conn *c = t->privdata;
    if (t->parent && c->sub && !t->parent->parent && c->push_decode) c->push_decode(&c->push, t->idx, NULL, 0);
    if (flat_elem(c, t)) {
        if (t->idx == 0) {
            c->slot.type = RL_REPLY_ARRAY;
            c->slot.integer = (long long)elements;
        } else {
            flat_int(c, t->idx, 0, 0);
        }
    }
    if (!t->parent) {
        c->slot.type = RL_REPLY_ARRAY;
        c->slot.integer = (long long)elements;
        /* our scripts' [answer, maxttl, age] on a command connection */
        c->flat = !c->sub && elements == 3;
    }
    return c;
}

static void *obj_integer(const redisReadTask *t, long long v)
{
    rl_conn *c = t->privdata;
    if (t->parent && c->sub && !t->parent->parent && c->push_decode) c->push_decode(&c->push, t->idx, NULL, 0);
    if (flat_elem(c, t) && t->idx > 0) {
        flat_int(c, t->idx, 1, v);
        return c;
    }
    if (!t->parent || (flat_elem(c, t) && t->idx == 0)) {
        c->slot.type = RL_REPLY_INTEGER;
        c->slot.integer = v;
    }
    return c;
}

static void *obj_nil(const redisReadTask *t)
{
    rl_conn *c = t->privdata;
    if (t->parent && c->sub && !t->parent->parent && c->push_decode) c->push_decode(&c->push, t->idx, NULL, 0);
    if (flat_elem(c, t) && t->idx > 0) {
        flat_int(c, t->idx, 0, 0);
        return c;
    }
    if (!t->parent || (flat_elem(c, t) && t->idx == 0)) c->slot.type = RL_REPLY_NIL;
    return c;
}

#if defined(HIREDIS_MAJOR) && HIREDIS_MAJOR >= 1
/* RESP3's double and boolean (hiredis 1.x reads them even unasked): no
 * command of ours is answered so; at the top an error reply (the node
 * fails, with this text), inside an array as nil */
static void *obj_resp3(const redisReadTask *t)
{
    rl_conn *c = t->privdata;
    if (t->parent) return obj_nil(t);
    static const char msg[] = "ERR unexpected RESP3 reply type";
    c->slot.type = RL_REPLY_ERROR;
    c->slot.len = sizeof(msg) - 1;
    memcpy(c->slot.str, msg, sizeof(msg));
    return c;
}
static void *obj_double(const redisReadTask *t, double d, char *s, size_t len)
{
    (void)d;
    (void)s;
    (void)len;
    return obj_resp3(t);
}
static void *obj_bool(const redisReadTask *t, int b)
{
    (void)b;
    return obj_resp3(t);
}
#endif

static void obj_free(void *o) { (void)o; }

static redisReplyObjectFunctions reply_fns = {
    .createString = obj_string,
    .createArray = obj_array,
    .createInteger = obj_integer,
#if defined(HIREDIS_MAJOR) && HIREDIS_MAJOR >= 1
    .createDouble = obj_double,
    .createBool = obj_bool,
#endif
    .createNil = obj_nil,
    .freeObject = obj_free,
};

/* ---- the secret in the output buffer ---- */
/* a wipe the compiler cannot drop (the memory is freed or reused after it) */
void rlc_wipe(void *p, size_t n)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))
    explicit_bzero(p, n);
#else
    volatile unsigned char *v = p;
    while (n--) *v++ = 0;
#endif
}

/* A copy of bytes that hold the password: memcpy() moves them through the
 * SIMD registers, and what those registers still hold is later stored on
 * the stack where no wipe reaches (the dynamic linker's lazy binding saves
 * them with xsavec at a first call through the PLT, a signal frame saves
 * them too): byte by byte through volatile pointers, never vectorised.
 * Forward: also a memmove to a lower address (rlc_obuf_compact). */
void rlc_copy_secret(char *dst, const char *src, size_t n)
{
    volatile char *d = dst;
    const volatile char *s = src;
    for (size_t i = 0; i < n; i++) d[i] = s[i];
}

/* AUTH is the first command of a connection (at obuf[0]): once the I/O layer
 * took it, or when the buffer is emptied without writing it, no copy of the
 * password may stay in our memory */
static void rlc_wipe_secret(rl_conn *c)
{
    if (!c->secret_end) return;
    rlc_wipe(c->obuf, c->secret_end);
    c->secret_end = 0;
}

/* the output buffer emptied (a closed or new connection) */
static void rlc_obuf_reset(rl_conn *c)
{
    rlc_wipe_secret(c);
    c->olen = c->opos = 0;
}

/* ---- connection lifecycle ---- */
rl_conn *rl_conn_new(const rl_node_conf *conf)
{
    rl_conn *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->fd = -1;
    if (rl_node_conf_copy(&c->conf, conf) != 0) {
        free(c);
        return NULL;
    }
    c->obuf = malloc(OBUF_INIT);
    c->ocap = OBUF_INIT;
    if (!c->obuf) {
        rl_conn_free(c);
        return NULL;
    }
    return c;
}

static void rlc_reset_io(rl_conn *c)
{
    if (c->reader) {
        redisReaderFree(c->reader);
        c->reader = NULL;
    }
    c->fd = -1;
    c->state = ST_CLOSED;
    rl_sess_open(&c->sess);
    rlc_obuf_reset(c);
    c->qhead = c->qlen = 0;
    c->hs_pending = 0;
    c->hs_end = 0;
    c->owed_n = 0;
    c->late_len = 0;
    c->late_n = 0;
    c->run_id[0] = '\0';
    c->ident_pending = 0;
    c->sock_timedout = 0;
    /* While probing, nothing past a connect's PING gate was written: closing
     * that connect loses nothing, and what the node owes waits for the next
     * one. Else (the server may have read it) the old rule: the server ended
     * the connection, what it held ran or never will. A child after fork()
     * never sends what its parent owes. */
    if (!c->probing || c->gen != rl_fork_generation()) {
        c->probing = 0;
        c->owe_len = 0;
        c->owe_n = 0;
    }
    c->info_refused = 0;
    rl_info_init(&c->ninfo);
}

void rl_conn_tls_share(rl_conn *dst, const rl_conn *src)
{
#ifdef RL_HAVE_TLS
    if (!dst || !src || !dst->conf.tls) return;
    if (rl_sess_share_ctx(&dst->sess, &src->sess)) dst->io = &rl_io_tls; /* (so that rl_conn_free lets it go) */
#else
    (void)dst;
    (void)src;
#endif
}

void rl_conn_close(rl_conn *c)
{
    /* Only close(2), never a QUIT: after fork() this drops the child's
     * descriptor and leaves the parent's connection as it was. */
    if (c->io && c->fd >= 0) c->io->close(&c->sess);
    if (c->fd >= 0) close(c->fd);
    rlc_reset_io(c);
}

void rl_conn_free(rl_conn *c)
{
    if (!c) return;
    rl_conn_close(c);
    if (c->io) c->io->free(&c->sess);
    rl_node_conf_free(&c->conf); /* wipes the password and the TLS passphrase */
    free(c->obuf);
    free(c->late_buf);
    free(c->late_sz);
    free(c->owe);
    free(c->owe_sz);
    free(c);
}

int rl_conn_is_open(const rl_conn *c) { return c->fd >= 0; }
int rl_conn_late_scripts(const rl_conn *c) { return c->fd >= 0 ? c->late_n : 0; }
const rl_node_conf *rl_conn_conf(const rl_conn *c) { return &c->conf; }
const rl_node_stats *rl_conn_stats(const rl_conn *c) { return &c->st; }
const char *rl_conn_run_id(const rl_conn *c) { return c->run_id; }
int rl_conn_busy(const rl_conn *c) { return c->fd >= 0 && (c->qlen > 0 || c->olen > c->opos); }
int rl_conn_unsent(const rl_conn *c) { return c->fd >= 0 && (connecting(c) || c->olen > c->opos); }

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
    if (c->io->peek(&c->sess, c->fd) == 1) return 1;
    /* EOF, an error, or bytes nobody asked for, with nothing of ours in
     * flight: the connection is stale and closing it loses nothing */
    rl_conn_close(c);
    return 0;
}

/* ---- the releases a connection owes ---- */
/* 8 bytes a step (it runs twice per lock and release); a tag is compared only
 * within this process */
static uint64_t tag_hash(uint64_t h, const char *p, size_t len)
{
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return rl_hash(h, p, len);
}

uint64_t rl_lock_tag(const char *key, size_t keylen, const char *token, size_t token_len)
{
    uint64_t h = tag_hash(RL_HASH_INIT ^ keylen, key, keylen);
    return tag_hash((h ^ 0x100u) * 1099511628211ull, token, token_len);
}

void rlc_owed_del(rl_conn *c, uint64_t tag)
{
    for (int i = c->qlen - 1; i >= 0 && c->owed_n > 0; i--) {
        qent *e = &c->q[(c->qhead + i) % QMAX];
        if (e->owed && e->tag == tag) {
            e->owed = 0;
            c->owed_n--;
        }
    }
}

/* ---- the releases kept for a replay (rl_conn.owe) ---- */
static int rlc_owe_push(rl_conn *c, const char *bytes, size_t len)
{
    if (c->owe_n >= OWE_MAX || c->owe_len + len > OBUF_MAX / 2) return -1;
    if (c->owe_n == c->owe_szcap) {
        int cap = c->owe_szcap ? c->owe_szcap * 2 : 8;
        size_t *nz = realloc(c->owe_sz, sizeof(*nz) * (size_t)cap);
        if (!nz) return -1;
        c->owe_sz = nz;
        c->owe_szcap = cap;
    }
    if (c->owe_len + len > c->owe_cap) {
        size_t cap = c->owe_cap ? c->owe_cap * 2 : 512;
        while (cap < c->owe_len + len) cap *= 2;
        char *nb = realloc(c->owe, cap);
        if (!nb) return -1;
        c->owe = nb;
        c->owe_cap = cap;
    }
    memcpy(c->owe + c->owe_len, bytes, len);
    c->owe_len += len;
    c->owe_sz[c->owe_n++] = len;
    return 0;
}

/* the oldest kept release was answered */
static void rlc_owe_pop(rl_conn *c)
{
    if (c->owe_n == 0) return;
    size_t sz = c->owe_sz[0];
    memmove(c->owe, c->owe + sz, c->owe_len - sz);
    c->owe_len -= sz;
    memmove(c->owe_sz, c->owe_sz + 1, sizeof(c->owe_sz[0]) * (size_t)(--c->owe_n));
}

int rlc_owe_add(rl_conn *c, const rl_cmd *cmd)
{
    char stack[1024];
    size_t need = rl_resp_format(NULL, 0, cmd->argc, cmd->argv, cmd->argvlen);
    char *b = need <= sizeof(stack) ? stack : malloc(need);
    if (!b) return -1;
    rl_resp_format(b, need, cmd->argc, cmd->argv, cmd->argvlen);
    int rc = rlc_owe_push(c, b, need);
    if (b != stack) free(b);
    return rc;
}

/* the newest entry of the queue keeps its command's RESP for a replay */
static void rlc_q_copy_last(rl_conn *c, const char *bytes, size_t len)
{
    qent *e = &c->q[(c->qhead + c->qlen - 1) % QMAX];
    if (rlc_owe_push(c, bytes, len) == 0) e->copied = 1;
}

/* ---- the queue of expected replies ---- */
int rlc_q_push(rl_conn *c, unsigned char kind, unsigned char op, uint64_t tag, uint64_t now)
{
    if (c->qlen >= QMAX) return -1;
    qent *e = &c->q[(c->qhead + c->qlen) % QMAX];
    e->kind = kind;
    e->op = op;
    e->tag = tag;
    e->sent_us = now;
    e->owed = op == RL_OP_SET;
    e->copied = 0;
    c->owed_n += e->owed;
    c->qlen++;
    return 0;
}

int rlc_q_pop(rl_conn *c, qent *out)
{
    if (c->qlen == 0) return -1;
    *out = c->q[c->qhead];
    c->owed_n -= out->owed; /* answered: it has run, or will never run */
    if (out->copied) rlc_owe_pop(c);
    c->qhead = (c->qhead + 1) % QMAX;
    c->qlen--;
    return out->kind;
}

/* cmd's RESP, kept for rlc_late_script_reply (in queue order). */
static int rlc_late_save(rl_conn *c, const rl_cmd *cmd, const char *enc, size_t enclen)
{
    size_t need = enc ? enclen : rl_resp_format(NULL, 0, cmd->argc, cmd->argv, cmd->argvlen);
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
    if (enc)
        memcpy(c->late_buf + c->late_len, enc, need);
    else
        rl_resp_format(c->late_buf + c->late_len, need, cmd->argc, cmd->argv, cmd->argvlen);
    c->late_len += need;
    c->late_sz[c->late_n++] = need;
    return 0;
}

/* The reply we wait for is no longer wanted (the call decided, or timed
 * out): it will be read and dropped before the next command's reply. A reply
 * merely overtaken by the decision (late) still counts in the stats. */
void rlc_q_forget_mine(rl_conn *c, const rl_cmd *cmd, const char *enc, size_t enclen, int late)
{
    /* A script that meets NOSCRIPT (SCRIPT FLUSH) after the call stopped
     * waiting is sent again, whether the call decided without it or timed
     * out: a release must not be lost. Not a SET: sent again, it would land
     * behind the release a failed attempt queued meanwhile (which may have
     * run, found nothing, with the scripts loaded again by another client),
     * its key orphaned for its TTL; a SET that met NOSCRIPT set nothing. */
    int keep = cmd && cmd->script && cmd->op != RL_OP_SET;
    for (int i = c->qlen - 1; i >= 0; i--) {
        qent *e = &c->q[(c->qhead + i) % QMAX];
        if (e->kind == EXP_MINE) {
            if (keep && rlc_late_save(c, cmd, enc, enclen) == 0)
                e->kind = late ? EXP_LATE_SCRIPT : EXP_TIMEOUT_SCRIPT;
            else
                e->kind = late ? EXP_LATE : EXP_SKIP;
            return;
        }
    }
}

static int rlc_queue_scripts(rl_conn *c, uint64_t now);
static int rlc_queue_replay(rl_conn *c, uint64_t now);
int rlc_flush_out(rl_conn *c, char *why, size_t whylen);
static int rlc_obuf_append_raw(rl_conn *c, const char *bytes, size_t len, size_t hard_max);

/* A late reply to a remembered EVALSHA: on NOSCRIPT load the scripts and
 * send it again (its reply is then dropped). */
void rlc_late_script_reply(rl_conn *c, const rl_reply *rp, const qent *e, uint64_t now)
{
    if (c->late_n == 0) return;
    size_t sz = c->late_sz[0];
    if (rp->type == RL_REPLY_ERROR && strncmp(rp->str, "NOSCRIPT", 8) == 0 && c->fd >= 0) {
        char why[RL_REASON_LEN];
        /* the scripts go ahead of the retry; every reply behind is ours to drop */
        if (rlc_queue_scripts(c, now) == 0 && rlc_obuf_append_raw(c, c->late_buf, sz, OBUF_MAX) == 0) {
            if (rlc_q_push(c, EXP_SKIP, e->op, e->tag, now) == 0) {
                if (e->op == RL_OP_RELEASE) rlc_q_copy_last(c, c->late_buf, sz); /* still owed */
                rlc_flush_out(c, why, sizeof(why));
            }
        }
    }
    memmove(c->late_buf, c->late_buf + sz, c->late_len - sz);
    c->late_len -= sz;
    memmove(c->late_sz, c->late_sz + 1, sizeof(c->late_sz[0]) * (size_t)(--c->late_n));
}

static void rlc_obuf_compact(rl_conn *c)
{
    if (c->opos == 0) return;
    if (c->secret_end)
        rlc_copy_secret(c->obuf, c->obuf + c->opos, c->olen - c->opos);
    else
        memmove(c->obuf, c->obuf + c->opos, c->olen - c->opos);
    if (c->hs_pending) c->hs_end -= c->opos;
    if (c->secret_end) {
        /* (AUTH partly written): what moved left no copy behind it */
        c->secret_end -= c->opos;
        rlc_wipe(c->obuf + c->olen - c->opos, c->opos);
    }
    c->olen -= c->opos;
    c->opos = 0;
}

/* A bigger buffer. While it holds AUTH, never realloc(): the block it
 * would free keeps the password; copy, wipe, then free. */
static int rlc_obuf_grow(rl_conn *c, size_t cap)
{
    char *nb;
    if (!c->secret_end) {
        nb = realloc(c->obuf, cap);
    } else {
        nb = malloc(cap);
        if (nb) {
            rlc_copy_secret(nb, c->obuf, c->olen);
            rlc_wipe(c->obuf, c->ocap);
            free(c->obuf);
        }
    }
    if (!nb) return -1;
    c->obuf = nb;
    c->ocap = cap;
    return 0;
}

static int rlc_obuf_reserve(rl_conn *c, size_t need, size_t hard_max)
{
    if (c->opos == c->olen) {
        if (c->hs_pending) c->hs_end -= c->opos;
        c->opos = c->olen = 0;
    }
    if (need <= c->ocap - c->olen) return 0;
    rlc_obuf_compact(c);
    if (need <= c->ocap - c->olen) return 0;
    size_t cap = c->ocap * 2;
    while (cap < c->olen + need) cap *= 2;
    if (c->olen + need > hard_max) return -1;
    return rlc_obuf_grow(c, cap);
}

static int rlc_obuf_append_raw(rl_conn *c, const char *bytes, size_t len, size_t hard_max)
{
    if (rlc_obuf_reserve(c, len, hard_max) != 0) return -1;
    memcpy(c->obuf + c->olen, bytes, len);
    c->olen += len;
    return 0;
}

/* what follows a command's bytes put at the end of obuf (len of them) */
static int rlc_appended(rl_conn *c, size_t len, unsigned char kind, unsigned char op, uint64_t tag, uint64_t now)
{
    if (kind == EXP_AUTH || kind == EXP_SELECT || kind == EXP_GATE) {
        c->hs_pending++;
        c->hs_end = c->olen;
    }
    if (rlc_q_push(c, kind, (unsigned char)op, tag, now) != 0) return -1;
    /* a release is kept until answered: if this connection has to be given
     * up (rlc_abandon), its replacement sends it again (a memcpy into a
     * buffer that grows once; no allocation per call) */
    if (op == RL_OP_RELEASE && kind == EXP_MINE && !c->sub) rlc_q_copy_last(c, c->obuf + c->olen - len, len);
    return 0;
}

/* how far obuf may grow for a command of op; 0: no room in the queue.
 * Room is kept for the releases a node owes: they are never refused for
 * lack of space before everything else is. */
static size_t append_limit(const rl_conn *c, unsigned char op)
{
    if (c->qlen >= (op == RL_OP_RELEASE ? QMAX : QMAX - 64)) return 0;
    return op == RL_OP_RELEASE ? OBUF_MAX : OBUF_MAX / 2;
}

int rlc_append_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, unsigned char kind,
                   unsigned char op, uint64_t tag, uint64_t now)
{
    size_t max = append_limit(c, op);
    size_t need = rl_resp_format(NULL, 0, argc, argv, lens);
    if (max == 0 || rlc_obuf_reserve(c, need, max) != 0) return -1;
    rl_resp_format(c->obuf + c->olen, c->ocap - c->olen, argc, argv, lens);
    c->olen += need;
    return rlc_appended(c, need, kind, op, tag, now);
}

/* rlc_append_cmd for AUTH: its words copied by rlc_copy_secret */
static int rlc_append_secret_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, uint64_t now)
{
    size_t max = append_limit(c, RL_OP_OTHER);
    size_t need = rl_resp_format(NULL, 0, argc, argv, lens);
    if (max == 0 || rlc_obuf_reserve(c, need, max) != 0) return -1;
    char *p = c->obuf + c->olen;
    *p++ = '*';
    p += rl_put_uint(p, (uint64_t)argc);
    *p++ = '\r';
    *p++ = '\n';
    for (int i = 0; i < argc; i++) {
        *p++ = '$';
        p += rl_put_uint(p, lens[i]);
        *p++ = '\r';
        *p++ = '\n';
        rlc_copy_secret(p, argv[i], lens[i]);
        p += lens[i];
        *p++ = '\r';
        *p++ = '\n';
    }
    c->olen += need;
    return rlc_appended(c, need, EXP_AUTH, RL_OP_OTHER, 0, now);
}

int rlc_append_enc(rl_conn *c, const char *enc, size_t len, unsigned char kind, unsigned char op, uint64_t tag,
                   uint64_t now)
{
    size_t max = append_limit(c, op);
    if (max == 0 || rlc_obuf_append_raw(c, enc, len, max) != 0) return -1;
    return rlc_appended(c, len, kind, op, tag, now);
}

/* bytes we may write now: nothing past an unanswered AUTH/SELECT */
size_t rlc_out_limit(const rl_conn *c) { return c->hs_pending ? c->hs_end : c->olen; }

void rlc_fail_res(rl_conn *c, rl_result *r, int err, const char *reason)
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

static void rlc_start_backoff(rl_conn *c, uint64_t now, int err, const char *why)
{
    /* a dead node must cost nothing on later calls: skip it for a while,
     * doubling up to a cap, and try again once the period is over */
    c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (c->backoff_ms > BACKOFF_MAX_MS) c->backoff_ms = BACKOFF_MAX_MS;
    c->down_until_us = now + (uint64_t)c->backoff_ms * 1000u;
    c->down_err = err;
    snprintf(c->down_why, sizeof(c->down_why), "%s", why ? why : rl_err_name(err));
}

/* A node failure, recorded in one place for the paths that can take a node
 * down: the call's result when it is still pending (its reason, the node's
 * statistics and last error: rlc_fail_res) and, when the node itself failed
 * (down: a connect, a handshake or AUTH/SELECT that failed, a connection
 * timed out in its handshake), its back-off. r may be NULL: a connect that
 * no call waits for. */
void rlc_node_failed(rl_conn *c, rl_result *r, int err, const char *why, uint64_t now, int down)
{
    if (r && r->state == RL_PENDING) rlc_fail_res(c, r, err, why);
    if (down) rlc_start_backoff(c, now, err, why);
}

/* A node in back-off fails at once, with the reason it went down: an AUTH
 * refusal stays an authentication failure. */
void rlc_fail_down(rl_conn *c, rl_result *r)
{
    char why[RL_REASON_LEN];
    int err = c->down_err == RL_E_AUTH ? RL_E_AUTH : RL_E_DOWN;
    snprintf(why, sizeof(why), "down (back-off after: %.70s)", c->down_why[0] ? c->down_why : "failed connect");
    rlc_fail_res(c, r, err, why);
    if (err != RL_E_DOWN) c->st.skipped++;
}

int rlc_resolve_addr(const rl_node_conf *conf, int dns, struct sockaddr_storage *addr, socklen_t *addrlen, char *why,
                     size_t whylen)
{
    if (conf->socket) {
        struct sockaddr_un *un = (struct sockaddr_un *)addr;
        if (strlen(conf->socket) >= sizeof(un->sun_path)) {
            snprintf(why, whylen, "unix socket path too long");
            return -1;
        }
        un->sun_family = AF_UNIX;
        strcpy(un->sun_path, conf->socket);
        *addrlen = sizeof(*un);
        return 0;
    }
    struct sockaddr_in *v4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)addr;
    if (inet_pton(AF_INET, conf->host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)conf->port);
        *addrlen = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, conf->host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)conf->port);
        *addrlen = sizeof(*v6);
        return 0;
    }
    if (!dns) {
        snprintf(why, whylen, "cannot resolve host: no address handed over (not looked up here)");
        return -1;
    }
    /* a name: resolved once per connection object (blocking), then cached */
    struct addrinfo hints = {0}, *ai = NULL, *p;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    int rc = getaddrinfo(conf->host, NULL, &hints, &ai);
    if (rc != 0 || !ai) {
        snprintf(why, whylen, "cannot resolve host: %s", gai_strerror(rc));
        return -1;
    }
    for (p = ai; p; p = p->ai_next)
        if (p->ai_family == AF_INET) break;
    if (!p) p = ai;
    memcpy(addr, p->ai_addr, p->ai_addrlen);
    *addrlen = p->ai_addrlen;
    if (p->ai_family == AF_INET)
        v4->sin_port = htons((uint16_t)conf->port);
    else
        v6->sin6_port = htons((uint16_t)conf->port);
    freeaddrinfo(ai);
    return 0;
}

static int rlc_resolve(rl_conn *c, char *why, size_t whylen)
{
    if (c->addrlen) return 0;
    return rlc_resolve_addr(&c->conf, !c->no_dns, &c->addr, &c->addrlen, why, whylen);
}

/* Pipelined ahead of the first command: costs no extra round trip. */
static int rlc_queue_handshake(rl_conn *c, uint64_t now, int ident)
{
    char db[16];
    if (c->conf.password) {
        const char *argv[3] = {"AUTH", c->conf.user, c->conf.password};
        size_t lens[3] = {4, c->conf.user ? strlen(c->conf.user) : 0, strlen(c->conf.password)};
        int argc = 3;
        if (!c->conf.user) {
            argv[1] = c->conf.password;
            lens[1] = lens[2];
            argc = 2;
        }
        int rc = rlc_append_secret_cmd(c, argc, argv, lens, now);
        c->secret_end = c->olen; /* the first command: obuf[0, olen) */
        if (rc) return -1;
    }
    if (c->conf.database) {
        int n = snprintf(db, sizeof(db), "%d", c->conf.database);
        const char *argv[2] = {"SELECT", db};
        size_t lens[2] = {6, (size_t)n};
        if (rlc_append_cmd(c, 2, argv, lens, EXP_SELECT, RL_OP_OTHER, 0, now)) return -1;
    }
    if (c->sub) return 0; /* a subscriber runs no script and counts no vote */
    if (ident) {
        /* docs/api.md "Nodes": one server must not count twice toward the quorum
         * (a name and its address, TCP and the unix socket of one server);
         * its run_id tells, before any of our replies from it is counted */
        const char *argv[2] = {"INFO", "server"};
        size_t lens[2] = {4, 6};
        if (rlc_append_cmd(c, 2, argv, lens, EXP_IDENT, RL_OP_OTHER, 0, now)) return -1;
        /* docs/api.md "Restarted nodes": run_id and uptime above, aof_enabled
         * here; two commands, not "INFO server persistence" (a server before
         * 7.0 takes one section per INFO) */
        const char *argv2[2] = {"INFO", "persistence"};
        size_t lens2[2] = {4, 11};
        if (rlc_append_cmd(c, 2, argv2, lens2, EXP_IDENT_AOF, RL_OP_OTHER, 0, now)) return -1;
        rl_info_init(&c->ninfo);
        c->info_refused = 0;
        c->ident_pending = 2;
    }
    return rlc_queue_scripts(c, now);
}

/* the spec's scripts are loaded once per connection; EVALSHA then
 * falls back to EVAL only if the server lost them (SCRIPT FLUSH, restart).
 * Every script is loaded, also those of lockAll() and semaphore(): a
 * command not waited for (a failed attempt's cleanup, a permit's trim) is
 * retried after NOSCRIPT as the same EVALSHA once these are loaded again
 * (rlc_late_script_reply), so a script missing here would be lost there. */
static int rlc_queue_scripts(rl_conn *c, uint64_t now)
{
    for (size_t k = 0; k < RL_SCRIPTS_N; k++) {
        const char *argv[3] = {"SCRIPT", "LOAD", rl_scripts[k].text};
        size_t lens[3] = {6, 4, rl_scripts[k].len};
        /* (marked as releases: room is always kept for them, like for a release) */
        if (rlc_append_cmd(c, 3, argv, lens, EXP_SCRIPT, RL_OP_RELEASE, 0, now)) return -1;
    }
    return 0;
}

/* TCP options of every connection. Keepalive: an idle connection to a host
 * that vanished is noticed (nothing of ours is on it). TCP_USER_TIMEOUT:
 * data nobody ACKs is given up by the kernel after that long; both end in
 * ETIMEDOUT, which the fan-out treats like rlc_abandon (the releases owed are
 * kept). A silent partition is normally noticed much earlier, by a call
 * (rlc_unreachable). Best effort: a kernel without one of them still works. */
static void rlc_set_tcp_opts(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
#ifdef TCP_KEEPIDLE
    int idle = KEEPALIVE_IDLE_S, intvl = KEEPALIVE_INTVL_S, cnt = KEEPALIVE_CNT;
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
#endif
#ifdef TCP_USER_TIMEOUT
    unsigned int ut = USER_TIMEOUT_MS;
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof(ut));
#endif
}

/* A new socket and its non-blocking connect, into c->fd and c->state.
 * Returns 0 (connecting or connected), -1 when the connect failed (why and
 * *err set), -2 when there was no socket to try (why set); no socket is left
 * on failure. */
static int rlc_dial(rl_conn *c, uint64_t now, char *why, size_t whylen, int *err)
{
    int fd = socket(c->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, whylen, "socket: %s", strerror(errno));
        *err = RL_E_IO;
        return -2;
    }
    if (connect(fd, (struct sockaddr *)&c->addr, c->addrlen) == 0) {
        /* connected at once (a unix socket): a TLS handshake still runs on the first poll */
        c->state = c->conf.tls ? ST_HANDSHAKE : ST_READY;
        c->io_want = POLLOUT;
    } else if (errno == EINPROGRESS || errno == EAGAIN) {
        c->state = ST_CONNECTING;
    } else {
        int e = errno;
        snprintf(why, whylen, "connect: %s", strerror(e));
        *err = e == ECONNREFUSED || e == ENOENT ? RL_E_REFUSED : RL_E_IO;
        close(fd);
        return -1;
    }
    if (c->addr.ss_family != AF_UNIX) rlc_set_tcp_opts(fd);
    c->fd = fd;
    c->gen = rl_fork_generation();
    c->dialed_us = now;
    c->deadline_us = now + (uint64_t)c->conf.connect_timeout_ms * 1000u;
    return 0;
}

/* Start a non-blocking connect. Returns 0 (connecting or ready) or -1 with r failed. */
int rlc_conn_open(rl_conn *c, rl_result *r, uint64_t now, int ident)
{
    char why[RL_REASON_LEN];
    int err = RL_E_IO;
    if (rlc_resolve(c, why, sizeof(why)) != 0) {
        rlc_node_failed(c, r, RL_E_RESOLVE, why, now, 1);
        return -1;
    }
    c->reader = redisReaderCreateWithFunctions(&reply_fns);
    if (!c->reader) {
        rlc_fail_res(c, r, RL_E_NOMEM, NULL);
        return -1;
    }
    c->reader->privdata = c;
    /* keep the read buffer between replies (it is bounded by RL_REPLY_MAX):
     * no allocation per cycle */
    c->reader->maxbuf = 0;
    rlc_obuf_reset(c);
    c->qhead = c->qlen = 0;
    c->owed_n = 0;
#ifndef RL_HAVE_TLS
    if (c->conf.tls) {
        rlc_fail_res(c, r, RL_E_IO, "TLS is not available in this build");
        rl_conn_close(c);
        return -1;
    }
#endif
    int d = rlc_dial(c, now, why, sizeof(why), &err);
    if (d != 0) {
        rl_conn_close(c);
        rlc_node_failed(c, r, err, why, now, d == -1); /* (no socket: nothing says the node is down) */
        return -1;
    }
    c->st.connects++;
#ifdef RL_HAVE_TLS
    c->io = c->conf.tls ? &rl_io_tls : &rl_io_plain;
#else
    c->io = &rl_io_plain;
#endif
    if (rlc_queue_handshake(c, now, ident) != 0 || (c->probing && rlc_queue_replay(c, now) != 0)) {
        rlc_fail_res(c, r, RL_E_NOMEM, NULL);
        rl_conn_close(c);
        return -1;
    }
    return 0;
}

/* A connection that replaces one given up as unreachable: a PING gate after
 * the handshake, and behind it the releases the node owes (rl_conn.owe), in
 * the order they were first sent. Nothing behind the gate is written before
 * the server has answered the PING on this connection, begun after the old
 * one was reset: see HACKING.md "Partitions". */
static int rlc_queue_replay(rl_conn *c, uint64_t now)
{
    const char *argv[1] = {"PING"};
    size_t lens[1] = {4};
    if (rlc_append_cmd(c, 1, argv, lens, EXP_GATE, RL_OP_RELEASE, 0, now) != 0) return -1;
    size_t off = 0;
    for (int k = 0; k < c->owe_n; k++) {
        size_t sz = c->owe_sz[k];
        if (rlc_obuf_append_raw(c, c->owe + off, sz, OBUF_MAX) != 0 ||
            rlc_q_push(c, EXP_SKIP, RL_OP_RELEASE, 0, now) != 0)
            return -1;
        c->q[(c->qhead + c->qlen - 1) % QMAX].copied = 1; /* (its copy is already kept) */
        off += sz;
    }
    return 0;
}

int rlc_probe_ms(const rl_conn *c)
{
    int ms = c->conf.timeout_ms > PROBE_MIN_MS ? c->conf.timeout_ms : PROBE_MIN_MS;
    return c->conf.connect_timeout_ms < ms ? c->conf.connect_timeout_ms : ms;
}

int rlc_unreachable(const rl_conn *c)
{
    if (c->fd < 0 || c->sub || c->state != ST_READY || c->addr.ss_family == AF_UNIX) return 0;
#ifdef TCP_INFO
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    memset(&ti, 0, sizeof(ti));
    if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return 0;
    /* Not a paused or slow server: its kernel still ACKs what we send (a
     * full receive window is probed, and those probes are ACKed). Here ours
     * retransmits data nobody acknowledged for a second or more. */
    return ti.tcpi_unacked > 0 && ti.tcpi_retransmits > 0 && ti.tcpi_last_ack_recv >= UNREACH_ACK_MS;
#else
    return 0;
#endif
}

/* Why a reset, and why the releases kept here cannot be overtaken by what
 * the old connection held (HACKING.md "Partitions"):
 * - close() with SO_LINGER 0 drops our kernel's send queue and sends a RST:
 *   nothing unacknowledged is ever sent again. What the server's kernel had
 *   received before ran, or runs, before anything of a later connection can
 *   arrive: the replacement's releases wait behind a PING answered on it, a
 *   round trip begun after the reset (and a partition long enough to be
 *   noticed dropped what was in flight).
 * - So a SET still in the old queue either ran before the release we send
 *   again, or never runs; a release owed for it (sent on the old connection
 *   or not yet) goes out again on the new one. Releases are token-checked:
 *   sending one twice, or one whose SET never ran, deletes nothing of
 *   anyone else's, so mutual exclusion does not depend on any of this; an
 *   overtaken release would only leave our key until its TTL. */
void rlc_abandon(rl_conn *c, uint64_t now)
{
    if (c->fd >= 0 && c->gen == rl_fork_generation()) {
        struct linger lg = {1, 0};
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    c->probing = c->gen == rl_fork_generation();
    c->abandoned_us = now;
    c->probe_next_us = now;
    rl_conn_close(c); /* keeps owe (probing) */
}

/* A connect begun by an earlier call failed: that is old news (the server
 * may have come back since). Nothing was written on it, so its buffered
 * commands (its handshake, a queued release) go out on a new connect, begun
 * now. Returns 0, or -1 with why (the connection is then closed). */
int rlc_redial(rl_conn *c, uint64_t now, char *why, size_t whylen, int *err)
{
    if (c->fd < 0 || c->state != ST_CONNECTING || c->opos != 0) return -1;
    close(c->fd);
    c->fd = -1;
    if (rlc_dial(c, now, why, whylen, err) == 0) {
        c->st.connects++;
        return 0;
    }
    rl_conn_close(c);
    return -1;
}

/* Write what is buffered. 0 ok (maybe partial), -1 on a broken connection. */
int rlc_flush_out(rl_conn *c, char *why, size_t whylen)
{
    size_t limit = rlc_out_limit(c);
    if (whylen) why[0] = '\0';
    while (c->opos < limit) {
        ssize_t w = c->io->write(&c->sess, c->fd, c->obuf + c->opos, limit - c->opos);
        if (w > 0) {
            c->opos += (size_t)w;
            if (c->secret_end && c->opos >= c->secret_end) rlc_wipe_secret(c); /* the I/O layer has it */
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (w < 0 && errno == ETIMEDOUT) c->sock_timedout = 1; /* the kernel gave up, not the server */
        if (w < 0 && c->sess.err[0])
            snprintf(why, whylen, "%s", c->sess.err); /* the session layer said why */
        else
            snprintf(why, whylen, "write: %s", w < 0 ? strerror(errno) : "closed");
        return -1;
    }
    if (c->opos == c->olen) {
        /* (a gate written up to the end: what comes behind it starts at 0) */
        if (c->hs_pending) c->hs_end -= c->opos;
        c->opos = c->olen = 0;
    }
    return 0;
}

/* ---- subscriber connections ---- */
rl_conn *rl_conn_new_subscriber(const rl_node_conf *conf)
{
    rl_conn *c = rl_conn_new(conf);
    if (c) c->sub = 1;
    return c;
}

int rlc_sub_send(rl_conn *c, int on, int argc, const char *const *argv, const size_t *lens, uint64_t now,
                 void (*hook)(void *ud, rl_conn *c), rl_push_decode_fn decode, void *ud)
{
    char why[RL_REASON_LEN];
    if (rlc_inherited(c)) rl_conn_close(c); /* inherited: the parent's */
    if (c->fd >= 0 && connecting(c) && on && now >= c->deadline_us) {
        /* begun by an earlier wait that did not need it (uncontended) and
         * not looked at since: the connect has most likely completed; it
         * gets a fresh deadline from now, when someone waits on it */
        c->deadline_us = now + (uint64_t)c->conf.connect_timeout_ms * 1000u;
    }
    if (c->fd < 0) {
        rl_result r;
        if (!on || now < c->down_until_us) return -1;
        memset(&r, 0, sizeof(r));
        if (rlc_conn_open(c, &r, now, 0) != 0) return -1;
    }
    /* RESP2: one confirmation per channel. No room (a node hung behind many
     * waits): closed, so that it is not counted as subscribed while its
     * connection stays open (a subscriber's connection holds nothing that
     * must still run); subscribed afresh once it can be. */
    if (rlc_append_cmd(c, argc, argv, lens, on ? EXP_SUB : EXP_UNSUB, RL_OP_OTHER, 0, now) != 0) {
        rl_conn_close(c);
        return -1;
    }
    for (int k = 2; k < argc; k++) {
        if (rlc_q_push(c, on ? EXP_SUB : EXP_UNSUB, RL_OP_OTHER, 0, now) != 0) {
            rl_conn_close(c); /* a command whose other replies have no place: start afresh */
            return -1;
        }
    }
    c->on_push = hook;
    c->push_decode = decode;
    c->push_ud = ud;
    if (c->state == ST_READY && rlc_flush_out(c, why, sizeof(why)) != 0) {
        rl_conn_close(c); /* the server ended it: nothing of a subscription is lost */
        return -1;
    }
    return 0;
}

const rl_push *rlc_push(const rl_conn *c) { return &c->push; }

int rlc_live(const rl_conn *c) { return c->fd >= 0 && c->gen == rl_fork_generation(); }

uint64_t rlc_retry_at(const rl_conn *c) { return c->fd < 0 ? c->down_until_us : 0; }

void rlc_check_idle(rl_conn *c)
{
    if (c->fd >= 0 && c->qlen == 0) rl_conn_check(c);
}

void rlc_unhook(rl_conn *c, void *ud)
{
    if (c->push_ud != ud) return;
    c->on_push = NULL;
    c->push_ud = NULL;
}

void rlc_handoff_get(const rl_conn *c, rl_conn_handoff *h)
{
    memcpy(h->run_id, c->last_run_id, sizeof(h->run_id));
    if (!c->addrlen) return;
    memcpy(&h->addr, &c->addr, c->addrlen);
    h->addrlen = c->addrlen;
}

/* h's address into one that has none */
static void addr_fill(struct sockaddr_storage *addr, socklen_t *addrlen, const rl_conn_handoff *h)
{
    if (*addrlen || !h->addrlen) return;
    memcpy(addr, &h->addr, h->addrlen);
    *addrlen = h->addrlen;
}

void rlc_handoff_take(rl_conn *c, const rl_conn_handoff *h)
{
    if (!c->last_run_id[0] && h->run_id[0]) memcpy(c->last_run_id, h->run_id, sizeof(c->last_run_id));
    addr_fill(&c->addr, &c->addrlen, h);
}

void rlc_handoff_merge(rl_conn_handoff *into, const rl_conn_handoff *h)
{
    if (h->run_id[0]) memcpy(into->run_id, h->run_id, sizeof(into->run_id)); /* the latest caller's */
    addr_fill(&into->addr, &into->addrlen, h);
}

void rlc_mark_watchdog(rl_conn *c)
{
    c->no_dns = 1;
    c->conf_shared = 1;
}

/* A node that has not answered for long, or holds too much unanswered or
 * unsent, gets no new work: it keeps its connection (see above) and the
 * releases it owes, and catches up once it answers again. */
int rlc_stalled(const rl_conn *c, uint64_t now)
{
    if (c->fd < 0 || c->state != ST_READY) return 0;
    if (c->qlen >= QSTALL || c->olen - c->opos > OBUF_STALL) return 1;
    if (c->qlen == 0) return 0;
    uint64_t limit = (uint64_t)c->conf.timeout_ms * 2000u;
    if (limit < STALE_US) limit = STALE_US;
    return now - c->q[c->qhead].sent_us > limit;
}

short rlc_events(const rl_conn *c)
{
    if (c->state == ST_CONNECTING) return POLLOUT;
    if (c->state == ST_HANDSHAKE) return c->io_want;
    return (short)(POLLIN | (rlc_out_limit(c) > c->opos ? POLLOUT : 0));
}

static int ensure_reader(rl_conn *c)
{
    if (c->reader) return 0;
    c->reader = redisReaderCreateWithFunctions(&reply_fns);
    if (!c->reader) return -1;
    c->reader->privdata = c;
    c->reader->maxbuf = 0;
    return 0;
}

int rlc_feed(rl_conn *c, const char *buf, size_t len)
{
    if (ensure_reader(c) != 0) return -1;
    return redisReaderFeed(c->reader, buf, len) == REDIS_OK ? 0 : -1;
}

/* The two answers of every uncontended cycle (the acquire script's +OK,
 * the release script's :1) without the reader's machinery: the line up to
 * the first CR, which must be followed by LF (hiredis's line end); an
 * integer only as 0 or -?[1-9][0-9]{0,17} (hiredis's string2ll takes those
 * and refuses -0, leading zeros and a +, in 0.14 and 1.x alike).
 * A line with an LF in it (hiredis 1.x refuses what 0.14 takes), anything
 * else, a line not whole in buf, or a reader holding bytes of its own
 * (order): 0, hiredis parses it. */
size_t rlc_take_simple(rl_conn *c, const char *buf, size_t len)
{
    if (c->sub || len < 4 || (buf[0] != '+' && buf[0] != ':')) return 0;
    if (c->reader && (c->reader->pos != c->reader->len || c->reader->ridx != -1)) return 0;
    size_t max = len < 256 ? len : 256, e = 1;
    while (e < max && buf[e] != '\r' && buf[e] != '\n') e++;
    if (e >= max || e + 1 >= len || buf[e] != '\r' || buf[e + 1] != '\n') return 0;
    size_t n = e - 1;
    const char *s = buf + 1;
    rl_reply *r = &c->slot;
    if (buf[0] == ':') {
        size_t k = s[0] == '-';
        if (n <= k || n - k > 18) return 0;
        if (s[k] == '0' && n != 1) return 0; /* 0 alone: hiredis refuses -0, 00, 01 */
        long long v = 0;
        for (size_t j = k; j < n; j++) {
            if (s[j] < '0' || s[j] > '9') return 0;
            v = v * 10 + (s[j] - '0');
        }
        r->type = RL_REPLY_INTEGER;
        r->integer = k ? -v : v;
        r->len = 0;
        r->str[0] = '\0';
    } else {
        r->type = RL_REPLY_STATUS;
        r->integer = 0;
        r->len = n;
        size_t m = n < sizeof(r->str) - 1 ? n : sizeof(r->str) - 1;
        memcpy(r->str, s, m);
        r->str[m] = '\0';
    }
    /* the rest of the slot as rlc_next_reply's fresh one has it */
    r->naux = 0;
    r->aux[0] = r->aux[1] = 0;
    c->flat = 0;
    return n + 3;
}

int rlc_next_reply(rl_conn *c)
{
    void *obj = NULL;
    if (ensure_reader(c) != 0) return -1;
    /* a fresh slot for a fresh reply, but not in the middle of one: an array
     * whose header came in an earlier read already set its type there */
    if (c->reader->ridx == -1) {
        memset(&c->slot, 0, sizeof(c->slot));
        memset(&c->push, 0, sizeof(c->push));
        c->flat = 0;
    }
    if (redisReaderGetReply(c->reader, &obj) != REDIS_OK) return -1;
    return obj != NULL;
}

/* ======================================================================
 * The per-node steps of a fan-out: rl_fanout.c's poll loop decides, these
 * send, read, interpret every reply (the AUTH/SELECT and PING gates, the
 * identity, TIME, NOSCRIPT -> EVAL, late replies and their statistics),
 * time out and watch stalled or probing nodes, writing node i's outcome
 * into f->res[i]. (Moved from rl_fanout.c, unchanged.)
 * ====================================================================== */
static void catch_up(rl_fan *f, int i, uint64_t now);
static int probe_send(rl_fan *f, int i, uint64_t now);
static int connect_done(rl_fan *f, int i, uint64_t now);
static int session_step(rl_fan *f, int i, uint64_t now);
static void stalled_why(const rl_conn *c, uint64_t now, char *why, size_t whylen);
static void unreachable_why(const rl_conn *c, uint64_t now, char *why, size_t whylen);

static int same_as_other(rl_fan *f, int i, char *why, size_t whylen)
{
    rl_conn *c = f->net->conns[i];
    if (!c->run_id[0]) return 0;
    /* run_ids are 40 random hex digits: their first 8 bytes tell almost every
     * pair apart without a strcmp (an id shorter than 8: strcmp alone) */
    uint64_t head, oh;
    memcpy(&head, c->run_id, 8);
    int whole = !((head - 0x0101010101010101ull) & ~head & 0x8080808080808080ull); /* no NUL in them */
    for (int j = 0; j < f->n; j++) {
        rl_conn *o = f->net->conns[j];
        if (j == i || o->fd < 0) continue;
        memcpy(&oh, o->run_id, 8);
        if ((whole && oh != head) || strcmp(o->run_id, c->run_id) != 0) continue;
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

/* the call's command at the end of c's output: its RESP encoded once per
 * call (f->enc) and copied, else encoded here */
static int fan_append(const rl_fan *f, rl_conn *c, uint64_t now)
{
    const rl_cmd *cmd = f->cmd;
    if (f->enc) return rlc_append_enc(c, f->enc, f->enclen, EXP_MINE, (unsigned char)cmd->op, cmd->tag, now);
    return rlc_append_cmd(c, cmd->argc, cmd->argv, cmd->argvlen, EXP_MINE, (unsigned char)cmd->op, cmd->tag, now);
}

/* Queue the command for node i (opening the connection if needed) and try to
 * write it. Returns 0, or -1 when res[i] has failed. */
int rlc_send(rl_fan *f, int i, uint64_t now, int allow_retry)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_cmd *cmd = f->cmd;
    char why[RL_REASON_LEN];

    if (rlc_inherited(c)) rl_conn_close(c); /* inherited: never ours to use */
    if (c->probing) {
        int p = probe_send(f, i, now);
        if (p <= 0) return p;
    }
    if (c->fd >= 0 && connecting(c) && now >= c->deadline_us) {
        /* a connect begun by a call that did not wait (a queued release) and
         * never seen through: nothing was written on it, so what it holds
         * (that release) goes out on a new connect; a TLS handshake under
         * way is given up */
        int err;
        if (rlc_redial(c, now, why, sizeof(why), &err) != 0 && c->fd >= 0) rl_conn_close(c);
    }
    int stalled = rlc_stalled(c, now); /* (0 without a ready connection) */
    if (stalled) {
        catch_up(f, i, now);
        if (r->state != RL_PENDING) {
            if (c->fd >= 0) return -1;
            memset(r, 0, sizeof(*r)); /* the server ended it meanwhile: start afresh */
        }
        if (c->fd >= 0 && rlc_stalled(c, now) && rlc_unreachable(c)) {
            /* nobody ACKs what it holds: waiting would cost the kernel's
             * retransmission gap, which doubles (seconds to minutes after a
             * long partition); reset it and reconnect in the background */
            rlc_abandon(c, now);
        }
        if (c->probing) {
            int p = probe_send(f, i, now);
            if (p <= 0) return p;
        }
        stalled = rlc_stalled(c, now);
    }
    if (stalled) {
        /* a release goes behind what the connection holds, whatever the state
         * of the node: its SET may be there still, or may have run (a release
         * whose SET may have landed is never dropped); anything else would
         * only pile up */
        if (cmd->op != RL_OP_RELEASE) {
            /* no new work for now, but it may catch up within this call (a
             * node resumed a moment ago): watched until its deadline, and
             * sent the command once it has (see rlc_stalled_step) */
            f->stalled |= (uint64_t)1 << i;
            c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
            return 0;
        }
    }
    c->reused = c->fd >= 0;
    c->retried = !allow_retry;
    if (c->fd < 0) {
        if (now < c->down_until_us && !f->ignore_backoff) {
            /* skipped while its answer cannot change the outcome (held_matter) */
            f->held |= (uint64_t)1 << i;
            r->state = RL_FAILED;
            r->err = RL_E_DOWN;
            return -1;
        }
        if (rlc_conn_open(c, r, now, 1) != 0) return -1;
    } else if (cmd->op != RL_OP_RELEASE && same_as_other(f, i, why, sizeof(why))) {
        /* (a release is token-checked: it may go to both, and must) */
        rlc_fail_res(c, r, RL_E_SAME_SERVER, why);
        return -1;
    }
    if (cmd->clock_check && c->ident.known && rlc_time_due(c, now)) {
        /* at most once a second, ahead of a SET we send anyway: the node's
         * clock against ours (no extra round trip); its answer comes first */
        static const char *const targv[1] = {"TIME"};
        static const size_t tlen[1] = {4};
        if (rlc_append_cmd(c, 1, targv, tlen, EXP_TIME, RL_OP_OTHER, 0, now) == 0) {
            c->ntime[0] = c->ntime[1] = -1;
            c->clk_asked_us = now; /* (not asked again within a second) */
        }
    }
    if (fan_append(f, c, now) != 0) {
        rlc_fail_res(c, r, RL_E_NOMEM, "too many commands in flight");
        return -1;
    }
    if (cmd->op == RL_OP_RELEASE) rlc_owed_del(c, cmd->tag); /* in order behind its SET from now on */
    if (r->sent) r->resent = 1; /* the old connection may have delivered it: an answer here speaks of both */
    r->sent = 1;
    r->id = c->ident; /* what is known of its server so far (a new connection's INFO updates it) */
    c->sent_us = now;
    if (c->state == ST_READY) {
        c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
        if (rlc_flush_out(c, why, sizeof(why)) != 0) {
            /* the server ended the connection: nothing more of it runs */
            rl_conn_close(c);
            if (c->reused && allow_retry) return rlc_send(f, i, now, 0); /* server restarted: reconnect once */
            rlc_fail_res(c, r, RL_E_IO, why);
            return -1;
        }
    }
    return 0;
}

/* The connection broke (the server closed it, or a write failed): nothing
 * more of it can run. With a connection left from an earlier call (a
 * restarted server), reconnect once within this call. */
static void node_broken(rl_fan *f, int i, int err, const char *why, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->sock_timedout && !c->sub && !connecting(c)) {
        /* the kernel gave up (TCP_USER_TIMEOUT, keepalive), not the server:
         * what the connection held may not have arrived; keep what it owes */
        rlc_abandon(c, now);
        if (f->res[i].state == RL_PENDING)
            rlc_fail_res(c, &f->res[i], RL_E_STALLED, "unreachable (connection timed out)");
        return;
    }
    int was_connecting = connecting(c);
    int retry = c->reused && !c->retried && !was_connecting && !f->settling;
    rl_conn_close(c);
    if (retry && rlc_send(f, i, now, 0) == 0) return;
    rlc_node_failed(c, &f->res[i], err, why, now, was_connecting);
}

static int is_noscript(const rl_reply *rp)
{
    return rp->type == RL_REPLY_ERROR && strncmp(rp->str, "NOSCRIPT", 8) == 0;
}

/* A peer that breaks the protocol is not Redis: it is closed (what it may
 * still execute is beyond reasoning), and the call's result fails. */
static int node_poisoned(rl_fan *f, int i, const char *why)
{
    rl_conn *c = f->net->conns[i];
    rl_conn_close(c);
    if (f->res[i].state == RL_PENDING)
        rlc_fail_res(c, &f->res[i], RL_E_PROTO, why);
    else
        snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", why);
    return 1;
}

/* One complete reply arrived for node i. Returns 1 when res[i] got its outcome. */
static int on_reply(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_reply *rp = &c->slot;
    qent e = {0};
    int kind = rlc_q_pop(c, &e);
    char why[RL_REASON_LEN];

    switch (kind) {
    case EXP_AUTH:
    case EXP_SELECT:
        if (rp->type == RL_REPLY_ERROR) {
            /* Redis' own text never contains the password; nothing past the
             * gate was written, so closing loses nothing */
            snprintf(why, sizeof(why), "%s failed: %.60s", kind == EXP_AUTH ? "AUTH" : "SELECT", rp->str);
            rl_conn_close(c);
            rlc_node_failed(c, r, RL_E_AUTH, why, now, 1);
            return 1;
        }
        if (--c->hs_pending == 0 && rlc_flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return r->state != RL_PENDING;
        }
        return 0;
    case EXP_GATE:
        /* the replacement of an unreachable connection answers: the node
         * is usable again, and what it owes goes out now */
        if (rp->type == RL_REPLY_ERROR) {
            snprintf(why, sizeof(why), "PING refused: %.60s", rp->str);
            rl_conn_close(c); /* nothing behind the gate was written: owe is kept */
            if (r->state == RL_PENDING) rlc_fail_res(c, r, RL_E_REDIS, why);
            return 1;
        }
        c->probing = 0;
        if (--c->hs_pending == 0 && rlc_flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return r->state != RL_PENDING;
        }
        return 0;
    case EXP_IDENT:
        /* It comes before this node's answer to our command, so a vote is
         * only ever counted from a node whose server is known: the counted
         * votes of a call come from distinct servers. A pair seen only
         * later fails the next call that uses both. */
        if (c->ident_pending > 0) c->ident_pending--;
        c->info_at_us = now;
        c->info_sent_us = e.sent_us;
        if (rp->type == RL_REPLY_ERROR) c->info_refused = 1; /* NOPERM: an ACL without INFO */
        f->ident_seen = 1;
        if (f->cmd->op != RL_OP_RELEASE && same_as_other(f, i, why, sizeof(why)) &&
            r->state == RL_PENDING) {
            rlc_q_forget_mine(c, NULL, NULL, 0, 0);
            rlc_fail_res(c, r, RL_E_SAME_SERVER, why);
            return 1;
        }
        return 0;
    case EXP_IDENT_AOF:
        /* the last of the identity: what the server is, before its answer */
        if (c->ident_pending > 0) c->ident_pending--;
        if (rp->type == RL_REPLY_ERROR) c->info_refused = 1;
        rlc_ident_done(c, now);
        if (r->state == RL_PENDING) r->id = c->ident; /* known before its answer: the call may wait for it */
        f->ident_seen = 1;
        return 0;
    case EXP_TIME:
        /* the clock-step check (docs/api.md "Restarted nodes"): refused (an ACL) or odd, no sample */
        if (rp->type == RL_REPLY_ARRAY && rp->integer == 2 && c->ntime[0] > 0 && c->ntime[1] >= 0 &&
            c->ntime[1] < 1000000)
            rlc_clock_sample(c, (int64_t)c->ntime[0] * 1000000 + c->ntime[1], e.sent_us, now);
        return 0;
    case EXP_SUB:
    case EXP_UNSUB:
        /* ["subscribe", channel, n]; a refusal (NOPERM: an ACL without the
         * channel) leaves that node to the retry timer; anything else is not Redis */
        if (rp->type == RL_REPLY_ERROR) {
            c->push.kind = PUSH_REFUSED;
            snprintf(c->st.last_error, sizeof(c->st.last_error), "%s refused: %.60s",
                     kind == EXP_SUB ? "SUBSCRIBE" : "UNSUBSCRIBE", rp->str);
        } else if (rp->type != RL_REPLY_ARRAY || rp->integer != 3 ||
                   c->push.kind != (kind == EXP_SUB ? PUSH_SUBSCRIBE : PUSH_UNSUBSCRIBE)) {
            return node_poisoned(f, i, kind == EXP_SUB ? "bad reply to SUBSCRIBE" : "bad reply to UNSUBSCRIBE");
        }
        if (c->on_push) c->on_push(c->push_ud, c);
        return 0;
    case EXP_TIMEOUT_SCRIPT:
        /* (no stats: counted as a timeout already) */
        rlc_late_script_reply(c, rp, &e, now);
        return 0;
    case EXP_LATE_SCRIPT:
        rlc_late_script_reply(c, rp, &e, now);
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
            if (rlc_append_cmd(c, ev.argc, ev.argv, ev.argvlen, EXP_MINE, e.op, e.tag, now) != 0) {
                rlc_fail_res(c, r, RL_E_NOMEM, "could not queue EVAL");
                return 1;
            }
            /* (a SET done by a script, a waiter's attempt, owes its release
             * again: its EVAL is queued as a SET) */
            if (rlc_flush_out(c, why, sizeof(why)) != 0) {
                node_broken(f, i, RL_E_IO, why, now);
                return r->state != RL_PENDING;
            }
            return 0;
        }
        if (r->state != RL_PENDING) return 0;
        r->latency_us = now - c->sent_us;
        r->reply = *rp;
        r->id = c->ident;
        c->backoff_ms = 0;
        c->down_until_us = 0;
        if (rp->type == RL_REPLY_ERROR) {
            snprintf(why, sizeof(why), "%.80s", rp->str[0] ? rp->str : "empty error reply");
            rlc_fail_res(c, r, RL_E_REDIS, why);
        } else {
            r->state = RL_ANSWERED;
            c->st.ok++;
            rl_latency_add(&c->st.lat, r->latency_us);
        }
        return 1;
    default: /* EXP_SKIP, EXP_SCRIPT: a late or bookkeeping reply, dropped */ return 0;
    }
}

/* Read from node i (all the session layer holds) and dispatch the complete
 * replies. Returns 1 when res[i] has its outcome; *idle (if given) says
 * nothing was there to read. */
static int node_read_ex(rl_fan *f, int i, uint64_t now, int *idle)
{
    rl_conn *c = f->net->conns[i];
    char buf[16384];
    int got = 0;
    if (idle) *idle = 0;
    do {
        ssize_t n = c->io->read(&c->sess, c->fd, buf, sizeof(buf));
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (idle && !got) *idle = errno != EINTR;
            return got;
        }
        if (n <= 0) {
            char why[RL_REASON_LEN];
            if (n < 0 && errno == ETIMEDOUT) c->sock_timedout = 1;
            if (n < 0 && c->sess.err[0])
                snprintf(why, sizeof(why), "%s", c->sess.err);
            else
                snprintf(why, sizeof(why), "%s", n == 0 ? "connection closed by server" : strerror(errno));
            node_broken(f, i, RL_E_IO, why, now);
            return f->res[i].state != RL_PENDING;
        }
        /* the common answers first, straight from buf (rlc_take_simple) */
        size_t off = 0, used;
        while (off < (size_t)n && (used = rlc_take_simple(c, buf + off, (size_t)n - off)) > 0) {
            off += used;
            if (c->qlen == 0) return node_poisoned(f, i, "reply nobody asked for");
            if (on_reply(f, i, now)) got = 1;
            if (c->fd < 0) return f->res[i].state != RL_PENDING;
        }
        if (off == (size_t)n) continue; /* (to the loop's condition: TLS may hold more) */
        if (rlc_feed(c, buf + off, (size_t)n - off) != 0) goto proto;
        /* parse everything that came: a reply beyond what we asked for would
         * otherwise be taken as the answer to the next command */
        for (;;) {
            int r = rlc_next_reply(c);
            if (r < 0) goto proto;
            if (r == 0) break;
            if (c->sub && c->push.kind == PUSH_MESSAGE && c->slot.type == RL_REPLY_ARRAY && c->slot.integer == 3) {
                /* a message answers no command: it never takes a reply's place */
                if (c->on_push) c->on_push(c->push_ud, c);
                continue;
            }
            if (c->qlen == 0) return node_poisoned(f, i, "reply nobody asked for");
            if (on_reply(f, i, now)) got = 1;
            if (c->fd < 0) return f->res[i].state != RL_PENDING;
        }
        /* a lock reply is tiny: a node that streams more is hostile or broken */
        if (c->reader->len - c->reader->pos > RL_REPLY_MAX) return node_poisoned(f, i, "reply too large");
    } while (c->io->pending(&c->sess) > 0); /* TLS: decrypted bytes poll() cannot see */
    return got;
proto : {
    char why[RL_REASON_LEN];
    snprintf(why, sizeof(why), "protocol error: %.60s", c->reader->errstr);
    return node_poisoned(f, i, why);
}
}

static int node_read(rl_fan *f, int i, uint64_t now) { return node_read_ex(f, i, now, NULL); }

/* A stalled node is not polled by calls that spare it: before judging it,
 * take what it sent meanwhile (it may have caught up), without waiting. */
static void catch_up(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    char why[RL_REASON_LEN];
    c->reused = 0; /* nothing of this call to resend if it broke */
    if (rlc_out_limit(c) > c->opos && rlc_flush_out(c, why, sizeof(why)) != 0) {
        node_broken(f, i, RL_E_IO, why, now);
        return;
    }
    for (int k = 0; k < 64 && c->fd >= 0; k++) {
        int idle = 0;
        node_read_ex(f, i, now, &idle);
        if (idle) break;
    }
}

/* The session layer's handshake (TLS), driven by poll like a connect: the
 * handshakes of all nodes run in parallel. Returns 1 when res[i] failed. */
static int session_step(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    char why[RL_REASON_LEN] = "";
    int r = c->io->connect(&c->sess, c->fd, &c->conf, c->conf_shared, &c->io_want, why, sizeof(why));
    if (r < 0) {
        /* nothing of ours was written: the session never existed */
        rl_conn_close(c);
        rlc_node_failed(c, &f->res[i], RL_E_IO, why, now, 1);
        return 1;
    }
    if (r == 0) return 0;
    c->state = ST_READY;
    c->deadline_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
    if (rlc_flush_out(c, why, sizeof(why)) != 0) {
        node_broken(f, i, RL_E_IO, why, now);
        return f->res[i].state != RL_PENDING;
    }
    return 0;
}

static int connect_done(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    int err = 0;
    socklen_t len = sizeof(err);
    char why[RL_REASON_LEN];
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err) {
        snprintf(why, sizeof(why), "connect: %s", strerror(err));
        int code = err == ECONNREFUSED ? RL_E_REFUSED : RL_E_IO;
        /* begun by an earlier call (a queued release): old news, the server
         * may be back; its buffer goes out on a connect begun now (a probing
         * node's next connect waits for its turn: probe_send) */
        if (c->dialed_us < f->t0 && !c->probing && rlc_redial(c, now, why, sizeof(why), &code) == 0) return 0;
        rl_conn_close(c); /* nothing was written: no connection, nothing ran */
        rlc_node_failed(c, &f->res[i], code, why, now, 1);
        return 1;
    }
    c->state = ST_HANDSHAKE;
    return session_step(f, i, now);
}

void rlc_timeout(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (connecting(c)) {
        /* the TCP or TLS handshake never completed: nothing of ours was written */
        const char *why = c->state == ST_CONNECTING ? "connect timeout" : "TLS handshake timeout";
        rl_conn_close(c);
        rlc_node_failed(c, &f->res[i], RL_E_TIMEOUT, why, now, 1);
        return;
    }
    /* Keep the connection, also when caught in the middle of a reply: the
     * node may still execute what it holds, so its order is kept and its
     * late reply is dropped before the next one (a release script meeting
     * NOSCRIPT then is sent again, as after an early decision). */
    rlc_q_forget_mine(c, f->cmd, f->enc, f->enclen, 0);
    rlc_fail_res(c, &f->res[i], RL_E_TIMEOUT,
                 c->reader && c->reader->len > c->reader->pos ? "timeout (reply too slow)" : "timeout");
}

/* What a decided call still has to do for a node: write what a connect or
 * an AUTH/SELECT gate holds back (a SET must not wait for a later call).
 * Bytes held back only by a full socket (a stalled node) are not waited for. */
static int needs_settling(const rl_conn *c)
{
    return c->fd >= 0 && (connecting(c) || (c->hs_pending && c->olen > c->hs_end));
}

static void stalled_why(const rl_conn *c, uint64_t now, char *why, size_t whylen)
{
    snprintf(why, whylen, "stalled (%d replies outstanding, oldest %llu ms)", c->qlen,
             c->qlen ? (unsigned long long)((now - c->q[c->qhead].sent_us) / 1000u) : 0ull);
}

static void unreachable_why(const rl_conn *c, uint64_t now, char *why, size_t whylen)
{
    snprintf(why, whylen, "unreachable (no ACK, connection reset %llu ms ago; reconnecting, %d release%s kept)",
             (unsigned long long)((now - c->abandoned_us) / 1000u), c->owe_n, c->owe_n == 1 ? "" : "s");
}

/* A probing node's new connection, one step without waiting: its connect,
 * its TLS handshake, the replies to its handshake and PING gate. */
static void probe_advance(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    c->reused = 0; /* nothing of a call to resend if it broke */
    c->retried = 1;
    if (c->state == ST_CONNECTING) {
        struct pollfd p = {.fd = c->fd, .events = POLLOUT, .revents = 0};
        if (rl_net_poll(f->net, &p, 1, 0) <= 0 || !p.revents) return;
        if (connect_done(f, i, now) || c->fd < 0) return;
    } else if (c->state == ST_HANDSHAKE) {
        if (session_step(f, i, now) || c->fd < 0) return;
    }
    if (c->state == ST_READY) catch_up(f, i, now);
}

/* node_send for a node whose connection was given up as unreachable
 * (rlc_abandon). A new connect is begun at most every PROBE_GAP_US, each
 * bounded by rlc_probe_ms() for the connect and a timeout more for its
 * handshake and PING: the node is used again within about that long after
 * the network heals, however long it was cut off (a connect's SYN, unlike
 * the old connection's data, is not behind a doubling retransmission gap).
 * Returns 1 when the node answers again (its command then goes out as
 * usual), 0 when it is watched in this call, -1 when res[i] failed. */
static int probe_send(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    const rl_cmd *cmd = f->cmd;
    char why[RL_REASON_LEN];
    if (c->gen != rl_fork_generation()) {
        rl_conn_close(c); /* the parent's: what it owes is the parent's to send */
        return 1;
    }
    /* an attempt that did not get through in time: nothing past its gate
     * was written, so closing it loses nothing (owe is kept) */
    if (c->fd >= 0 && ((connecting(c) && now >= c->deadline_us) || now >= c->probe_until_us)) rl_conn_close(c);
    if (c->fd < 0 && now >= c->probe_next_us) {
        c->probe_next_us = now + PROBE_GAP_US;
        if (rlc_conn_open(c, r, now, 1) == 0) {
            int ms = rlc_probe_ms(c);
            c->deadline_us = now + (uint64_t)ms * 1000u;
            c->probe_until_us = now + (uint64_t)(ms + c->conf.timeout_ms) * 1000u;
        }
    }
    if (c->fd >= 0) probe_advance(f, i, now);
    if (!c->probing) {
        if (r->state != RL_PENDING) memset(r, 0, sizeof(*r)); /* (cannot fail after the gate) */
        return 1;
    }
    if (cmd->op == RL_OP_RELEASE) {
        /* kept in order behind the gate (or for the next connect) */
        if (c->fd >= 0 && fan_append(f, c, now) == 0)
            rlc_q_forget_mine(c, cmd, f->enc, f->enclen, 0);
        else
            rlc_owe_add(c, cmd);
    }
    if (r->state != RL_PENDING) return -1;
    if (c->fd >= 0 && cmd->op != RL_OP_RELEASE) {
        /* under way: it may answer within this call (a quorum may need it) */
        f->stalled |= (uint64_t)1 << i;
        c->probe_watch_us = now + (uint64_t)c->conf.timeout_ms * 1000u;
        if (c->probe_watch_us > c->probe_until_us) c->probe_watch_us = c->probe_until_us;
        return 0;
    }
    unreachable_why(c, now, why, sizeof(why));
    rlc_fail_res(c, r, RL_E_STALLED, why);
    return -1;
}

/* A node that fell behind, watched during the call (node_send): once it has
 * caught up (or the server ended the connection) it gets the command, until
 * its deadline. Returns 1 when res[i] got its outcome. */
int rlc_stalled_step(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    rl_result *r = &f->res[i];
    uint64_t bit = (uint64_t)1 << i;
    if (r->state != RL_PENDING) {
        f->stalled &= ~bit;
        return 1;
    }
    if (c->probing) {
        /* its new connection is under way: it counts if the PING gate is
         * answered within this call's wait (probe_send) */
        if (c->fd >= 0 && now < c->probe_watch_us) return 0;
        char why[RL_REASON_LEN];
        f->stalled &= ~bit;
        unreachable_why(c, now, why, sizeof(why));
        rlc_fail_res(c, r, RL_E_STALLED, why);
        return 1;
    }
    if (c->fd < 0 || !rlc_stalled(c, now)) {
        f->stalled &= ~bit;
        return rlc_send(f, i, now, 1) != 0;
    }
    if (now < c->deadline_us) return 0;
    char why[RL_REASON_LEN];
    f->stalled &= ~bit;
    stalled_why(c, now, why, sizeof(why));
    rlc_fail_res(c, r, RL_E_STALLED, why);
    return 1;
}

/* One pass over node i after poll: connect, write, read. Returns 1 when
 * res[i] got its outcome. */
int rlc_serve(rl_fan *f, int i, short revents, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    if (c->state == ST_CONNECTING) return connect_done(f, i, now);
    if (c->state == ST_HANDSHAKE) return session_step(f, i, now);
    if ((revents & POLLOUT) && rlc_out_limit(c) > c->opos) {
        char why[RL_REASON_LEN];
        if (rlc_flush_out(c, why, sizeof(why)) != 0) {
            node_broken(f, i, RL_E_IO, why, now);
            return f->res[i].state != RL_PENDING;
        }
    }
    if (c->fd >= 0 && (revents & (POLLIN | POLLHUP | POLLERR))) return node_read(f, i, now);
    return 0;
}

/* The call returns: nodes still skipped for their back-off, or still
 * behind, get their reason (and their statistics) now. */
void rlc_fan_end(rl_fan *f, uint64_t now)
{
    for (int i = 0; i < f->n && (f->held | f->stalled); i++) {
        rl_conn *c = f->net->conns[i];
        uint64_t bit = (uint64_t)1 << i;
        if (f->held & bit) rlc_fail_down(c, &f->res[i]);
        if ((f->stalled & bit) && f->res[i].state == RL_PENDING) {
            char why[RL_REASON_LEN];
            if (c->probing)
                unreachable_why(c, now, why, sizeof(why));
            else
                stalled_why(c, now, why, sizeof(why));
            rlc_fail_res(c, &f->res[i], RL_E_STALLED, why);
        }
    }
    f->held = f->stalled = 0;
}

/* outside a call (drain, listen): nothing of a call to resend if it broke */
void rlc_serve_outside(rl_fan *f, int i, short revents, uint64_t now)
{
    f->net->conns[i]->reused = 0;
    rlc_serve(f, i, revents, now);
}

int rlc_fd(const rl_conn *c) { return c->fd; }
uint64_t rlc_deadline(const rl_conn *c) { return c->deadline_us; }
int rlc_ident_due(const rl_conn *c) { return c->fd >= 0 && c->ident_pending && !c->reused; }
int rlc_inherited(const rl_conn *c) { return c->fd >= 0 && c->gen != rl_fork_generation(); }
int rlc_overdue(const rl_conn *c, uint64_t now) { return c->fd >= 0 && now >= c->deadline_us; }

int rlc_watch(const rl_conn *c, struct pollfd *p, uint64_t *until)
{
    if (c->fd < 0) return 0;
    *p = (struct pollfd){.fd = c->fd, .events = rlc_events(c), .revents = 0};
    if (until) *until = c->probing ? c->probe_watch_us : c->deadline_us;
    return 1;
}

uint64_t rlc_settle_until(const rl_conn *c, uint64_t now)
{
    return needs_settling(c) && now < c->deadline_us ? c->deadline_us : 0;
}

/* how many of the n nodes may count for a quorum in a call beginning now:
 * open (or a connect within its time) and not stalled, or closed and past
 * its back-off; a probing node only once its new connection answers */
int rlc_usable(rl_conn *const *conns, int n, uint64_t now)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        const rl_conn *c = conns[i];
        if (c->probing) continue;
        if (c->fd >= 0 && (!connecting(c) || now < c->deadline_us))
            k += !rlc_stalled(c, now);
        else
            k += now >= c->down_until_us; /* closed, or a connect overdue (closed at send) */
    }
    return k;
}

/* a connect (or TLS handshake) past its deadline, nothing written on it:
 * closed and failed (1), else 0 */
int rlc_expire_connect(rl_conn *c, uint64_t now)
{
    if (c->fd < 0 || !connecting(c) || now < c->deadline_us) return 0;
    rl_conn_close(c); /* never connected: nothing was written */
    rlc_node_failed(c, NULL, RL_E_TIMEOUT, "connect timeout", now, 1);
    return 1;
}
