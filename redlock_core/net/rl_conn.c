/* rl_conn.c -- a connection's lifecycle and buffers, the ground floor of net/'s
 * connection: new, close, give up (rlc_abandon), free and what the rest of the
 * core reads of it (rl.h's rl_conn_*), how a failure is recorded (the call's
 * result, the node's statistics and back-off), the output buffer and the
 * secret it may hold, the queue of expected replies, the releases it owes
 * (owed, owe) and the late scripts kept for a NOSCRIPT (with the SCRIPT LOAD
 * of every script queued ahead of them, and at connect), the write of what is
 * buffered, when a node counts as stalled, and what a connection hands over
 * to the watchdog's (rl_conn.h). It calls no other file of the connection:
 * reading (rl_read.c) and dialing (rl_dial.c) stand on it, the per-node steps
 * of a call (rl_node.c) on those. */
#include "rl_conn.h"
#include "rl_conn_struct.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rlc_connecting(const rl_conn *c) { return connecting(c); }

/* ---- the secret in the output buffer ---- */
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
void rlc_obuf_reset(rl_conn *c)
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

/* ---- how a failure is recorded: the call's result, the node's statistics and back-off ---- */
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

int rlc_obuf_append_raw(rl_conn *c, const char *bytes, size_t len, size_t hard_max)
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
int rlc_append_secret_cmd(rl_conn *c, int argc, const char *const *argv, const size_t *lens, uint64_t now)
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

/* the spec's scripts are loaded once per connection; EVALSHA then
 * falls back to EVAL only if the server lost them (SCRIPT FLUSH, restart).
 * Every script is loaded, also those of lockAll() and semaphore(): a
 * command not waited for (a failed attempt's cleanup, a permit's trim) is
 * retried after NOSCRIPT as the same EVALSHA once these are loaded again
 * (rlc_late_script_reply), so a script missing here would be lost there. */
int rlc_queue_scripts(rl_conn *c, uint64_t now)
{
    for (size_t k = 0; k < RL_SCRIPTS_N; k++) {
        const char *argv[3] = {"SCRIPT", "LOAD", rl_scripts[k].text};
        size_t lens[3] = {6, 4, rl_scripts[k].len};
        /* (marked as releases: room is always kept for them, like for a release) */
        if (rlc_append_cmd(c, 3, argv, lens, EXP_SCRIPT, RL_OP_RELEASE, 0, now)) return -1;
    }
    return 0;
}

/* bytes we may write now: nothing past an unanswered AUTH/SELECT */
size_t rlc_out_limit(const rl_conn *c) { return c->hs_pending ? c->hs_end : c->olen; }

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

int rlc_fd(const rl_conn *c) { return c->fd; }
uint64_t rlc_deadline(const rl_conn *c) { return c->deadline_us; }
int rlc_ident_due(const rl_conn *c) { return c->fd >= 0 && c->ident_pending && !c->reused; }
int rlc_inherited(const rl_conn *c) { return c->fd >= 0 && c->gen != rl_fork_generation(); }
int rlc_overdue(const rl_conn *c, uint64_t now) { return c->fd >= 0 && now >= c->deadline_us; }
