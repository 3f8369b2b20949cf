/* rl_read.c -- reading a connection: the reply parser fed with bytes (hiredis's
 * reader, its callbacks filling c->slot without allocation, and the fast path
 * for a whole +status or :integer line), the server's identity from INFO and
 * the clock-step check, and the read path of a call: on_reply, the one place
 * a reply is interpreted, and what follows when a connection breaks while
 * read (rlc_node_broken: it never sends; a reconnect once is left to
 * rlc_serve, rl_node.c, through rl_fan.redo). It stands on rl_conn.c alone
 * (the queue, the buffer, closing, failures): the read path never dials. */
#include "rl_conn_struct.h"
#include "rl_conn_test.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* how many of the first n bytes of s are in set */
static size_t strspn_n(const char *s, size_t n, const char *set)
{
    size_t i = 0;
    while (i < n && s[i] && strchr(set, s[i])) i++;
    return i;
}

/* ---- INFO: the server's identity, uptime and persistence ---- */
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

static void rlc_ident_done(rl_conn *c, uint64_t now)
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

/* A new connection's reader. It keeps its read buffer between replies
 * (bounded by RL_REPLY_MAX): no allocation per cycle. */
int rlc_reader_new(rl_conn *c)
{
    c->reader = redisReaderCreateWithFunctions(&reply_fns);
    if (!c->reader) return -1;
    c->reader->privdata = c;
    c->reader->maxbuf = 0;
    return 0;
}

static int ensure_reader(rl_conn *c) { return c->reader ? 0 : rlc_reader_new(c); }

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

int rlc_same_server(rl_fan *f, int i, char *why, size_t whylen)
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

/* The connection broke (the server closed it, or a write failed): nothing
 * more of it can run. With a connection left from an earlier call (a
 * restarted server), reconnect once within this call: the read path never
 * sends, so that is only recorded here (f->redo) and done by rlc_serve
 * (rl_node.c) once the read has returned; the paths that read from
 * rlc_send (rlc_catch_up, a probe) clear c->reused first and never get here
 * with a retry due. Until then res[i] stays pending. */
void rlc_node_broken(rl_fan *f, int i, int err, const char *why, uint64_t now)
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
    if (retry) {
        /* (a resend that fails fails res[i] itself: the failure recorded
         * below would then change nothing, so nothing of it is kept) */
        f->redo |= (uint64_t)1 << i;
        return;
    }
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
            rlc_node_broken(f, i, RL_E_IO, why, now);
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
            rlc_node_broken(f, i, RL_E_IO, why, now);
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
        if (f->cmd->op != RL_OP_RELEASE && rlc_same_server(f, i, why, sizeof(why)) && r->state == RL_PENDING) {
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
                rlc_node_broken(f, i, RL_E_IO, why, now);
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
            rlc_node_broken(f, i, RL_E_IO, why, now);
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

int rlc_node_read(rl_fan *f, int i, uint64_t now) { return node_read_ex(f, i, now, NULL); }

/* A stalled node is not polled by calls that spare it: before judging it,
 * take what it sent meanwhile (it may have caught up), without waiting. */
void rlc_catch_up(rl_fan *f, int i, uint64_t now)
{
    rl_conn *c = f->net->conns[i];
    char why[RL_REASON_LEN];
    c->reused = 0; /* nothing of this call to resend if it broke */
    if (rlc_out_limit(c) > c->opos && rlc_flush_out(c, why, sizeof(why)) != 0) {
        rlc_node_broken(f, i, RL_E_IO, why, now);
        return;
    }
    for (int k = 0; k < 64 && c->fd >= 0; k++) {
        int idle = 0;
        node_read_ex(f, i, now, &idle);
        if (idle) break;
    }
}
