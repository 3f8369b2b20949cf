/* fuzz_nodes.c -- libFuzzer target: one node's word against the others.
 *
 * fuzz_reply serves every node the same raw bytes and drives four calls;
 * this target gives every node its own conversation and drives every call
 * of the lock API over the real fan-out (rl_net_fanout, rl_read.c's parser):
 * acquire (one key, lockAll()'s key list, a read lock; fair; with fencing,
 * both phases of lock/rl_fence.c), release, extend (with the repair), is_locked,
 * is_held, force_release, rl_acquire_permit and rl_find_permit, with and
 * without the restart check (INFO run_id/uptime/aof, the maxttl answers,
 * rl_vote_mask; a second call of the same object makes calm attempts).
 *
 * The nodes: one unix-socket listener per node (1..7) and one thread that
 * plays them all. It reads each command the client writes and answers it
 * as that node: the handshake (INFO server from the node's identity, which
 * may change per connection: a restart; INFO persistence; SCRIPT LOAD; TIME
 * with the node's clock step) as a server would, every other command (the
 * scripts, GET, EXISTS, DEL, INCR, SET) with the node's next reply from the
 * input, built as RESP from a small vocabulary (OK, nil, integers and
 * maxttl arrays from a table of edge values, the token, errors, permit
 * bitmaps and ranges, raw bytes, a closed connection). It records which reply it gave
 * to which kind of command, so the harness counts each node's yes itself.
 *
 * Input: byte 0 the call, byte 1 options, byte 2 the node count, then the
 * call's parameters, then per node its identity and replies (a node may
 * copy node 0's, so that agreeing nodes are easy to reach). Missing bytes
 * read as 0.
 *
 * Invariants, beyond no crash/leak/UB (ASan, UBSan): every result is in
 * range and terminated (as fuzz_reply); a call that reports success has a
 * quorum of nodes whose own replies said yes (acquire: OK; release: 1;
 * extend: 1 or a repair's OK; is_locked: 1; is_held: the token); a
 * permit's slots are weight distinct slots below the limit, each named by a
 * quorum of the nodes' answers, and restore finds only such slots; a
 * validity never exceeds the TTL; when a quorum of nodes answers the same
 * valid permit and nothing else goes wrong, the permit is granted (a
 * liveness check: answers the core cannot read); values taken from the
 * nodes' answers: the fence below 2^53 and at most RL_FUZZ_MAX_JUMP above
 * the second highest answer (lock/rl_fence.c's rule: one node must not outweigh
 * the others), the fair ticket one of the counters answered and below 2^53
 * (a Lua number, a ZSET score), the longest TTL of the restart check never
 * above what a client can ask (2^31 - 1 ms) and never learnt from fewer
 * than n - q + 1 nodes' answers. */
#define _GNU_SOURCE
#include "fuzz/fuzz_pipe.h"
#include "rl_internal.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static int trace; /* FUZZ_NODES_TRACE: what each call did (trace_call), and which check failed */
#define FAIL_IF(c)                                                                     \
    do {                                                                               \
        if (c) {                                                                       \
            if (trace) fprintf(stderr, "fuzz_nodes.c:%d: failed: %s\n", __LINE__, #c); \
            __builtin_trap();                                                          \
        }                                                                              \
    } while (0)

#define MAXN 7
#define MAX_REPLIES 12
#define MAX_IDENTS 3
#define MAX_RECS 512
#define MAX_CLIENTS 64
/* lock/rl_fence.c's RL_FENCE_MAX_JUMP and RL_FENCE_LIMIT: what one node may be
 * ahead of all the others, and where Lua numbers stop being exact */
#define RL_FUZZ_MAX_JUMP ((int64_t)1 << 24)
#define RL_FUZZ_LIMIT ((int64_t)1 << 53)
#define TTL_CAP 2147483647LL

/* ---- the input, read as a stream: missing bytes are 0 ---- */
typedef struct src {
    const uint8_t *p;
    size_t n;
} src;
static unsigned u8(src *s)
{
    if (!s->n) return 0;
    s->n--;
    return *s->p++;
}

/* edge values for integers, maxttl answers, fence and queue counters */
static const long long ints[] = {0,
                                 1,
                                 2,
                                 3,
                                 -1,
                                 7,
                                 1000,
                                 30000,
                                 86400000,
                                 2000000000,
                                 2147483647,
                                 2147483648LL,
                                 4294967296LL,
                                 (1LL << 24) + 5,
                                 9007199254740991LL,
                                 9007199254740992LL,
                                 9000000000000000000LL,
                                 9223372036854775807LL,
                                 -9223372036854775807LL - 1,
                                 -2};
#define NINTS (sizeof(ints) / sizeof(ints[0]))
/* range ends of a permit's answer beyond every limit */
static const char *const bigs[] = {"1024",
                                   "65536",
                                   "2147483648",
                                   "9223372036854775807",
                                   "9223372036854775808",
                                   "18446744073709551552",
                                   "18446744073709551615",
                                   "99999999999999999999"};
#define NBIGS (sizeof(bigs) / sizeof(bigs[0]))

/* ---- a node's replies, built from the input ---- */
enum rtype { RP_OK, RP_NIL, RP_INT, RP_TOKEN, RP_ERR, RP_STR, RP_ARR3, RP_RAW, RP_CLOSE, RP_NTYPES };
typedef struct reply {
    int type;
    long long v; /* RP_INT; RP_ARR3: the inner answer's integer */
    int inner;   /* RP_ARR3: RP_OK, RP_NIL or RP_INT */
    long long aux[2];
    char str[400]; /* RP_STR, RP_RAW, RP_ERR */
    size_t len;
    /* RP_STR as a permit's answer, as the harness reads it: ranges ("3-5,9",
     * the answer of 574973c's script) or a bitmap (bit s of byte s / 8,
     * (limit + 7) / 8 bytes, the answer since) */
    int permit;        /* it is an answer the harness made */
    int bitmap, nbits; /* a bitmap; its slots below the limit */
    int valid;         /* every range a <= b < limit (canonical); the bitmap's length right, no bit past the limit */
    int lo[64], hi[64], nr; /* its ranges below the limit (ends clamped) */
} reply;

typedef struct ident {
    char run_id[41];
    long long uptime;
    int aof, refused;
    long long clock_step_s; /* TIME answers this far ahead */
} ident;

typedef struct node {
    ident id[MAX_IDENTS];
    int nid;
    reply r[MAX_REPLIES];
    int nr;
    int close_after; /* when the replies run out: close (else the last again) */
    /* server side */
    int conns;  /* connections accepted */
    int cursor; /* next reply */
} node;

static node nodes[MAXN];
static int nnodes;
static int cur_limit = 1;
static char cur_token[RL_TOKEN_MAX + 1];
static size_t cur_token_len;

static void fmt_ranges(reply *r, int nr, const char *const *a, const char *const *b)
{
    size_t len = 0;
    for (int k = 0; k < nr; k++) {
        int w = strcmp(a[k], b[k]) == 0
                    ? snprintf(r->str + len, sizeof(r->str) - len, "%s%s", k ? "," : "", a[k])
                    : snprintf(r->str + len, sizeof(r->str) - len, "%s%s-%s", k ? "," : "", a[k], b[k]);
        if (w < 0 || (size_t)w >= sizeof(r->str) - len) break;
        len += (size_t)w;
    }
    r->len = len;
}

/* a decimal string's value, saturated at 2^62 */
static long long dec(const char *s)
{
    long long v = 0;
    for (; *s >= '0' && *s <= '9'; s++) v = v > (1LL << 62) / 10 ? 1LL << 62 : v * 10 + (*s - '0');
    return v;
}

/* the ranges of a permit answer the harness made: which slots each names */
static void permit_read(reply *r, int nr, const char *const *a, const char *const *b, int limit)
{
    r->permit = 1;
    r->valid = nr > 0 && r->len > 0;
    r->nr = 0;
    for (int k = 0; k < nr && k < 64; k++) {
        long long x = dec(a[k]), y = dec(b[k]);
        if (x > y || y >= limit) r->valid = 0;
        if (x < limit && x <= y) {
            r->lo[r->nr] = (int)x;
            r->hi[r->nr] = (int)(y < limit ? y : limit - 1);
            r->nr++;
        }
    }
}

static int names(const reply *r, int s)
{
    if (r->bitmap) return (size_t)s / 8 < r->len && ((unsigned char)r->str[s / 8] >> (s % 8) & 1);
    for (int k = 0; k < r->nr; k++)
        if (s >= r->lo[k] && s <= r->hi[k]) return 1;
    return 0;
}

static void make_reply(src *s, reply *r, int limit)
{
    memset(r, 0, sizeof(*r));
    unsigned t = u8(s);
    switch (t % 16) {
    case 0:
    case 1: r->type = RP_OK; break;
    case 2: r->type = RP_NIL; break;
    case 3: r->type = RP_INT, r->v = (signed char)u8(s); break;
    case 4: r->type = RP_INT, r->v = ints[u8(s) % NINTS]; break;
    case 5: r->type = RP_TOKEN; break;
    case 6:
        r->type = RP_ERR;
        r->len = (size_t)snprintf(r->str, sizeof(r->str), "%s", u8(s) & 1 ? "NOSCRIPT No matching script" : "ERR x");
        break;
    case 7:
    case 8: {
        /* [answer, maxttl, age]: the acquire's and extend's with the maxttl key */
        unsigned k = u8(s);
        r->type = RP_ARR3;
        r->inner = k % 3 == 0 ? RP_OK : k % 3 == 1 ? RP_NIL : RP_INT;
        r->v = (long long)(k / 3 % 3) - 1; /* RP_INT: -1, 0, 1 */
        r->aux[0] = u8(s) & 1 ? ints[u8(s) % NINTS] : (long long)u8(s) * 1000;
        r->aux[1] = u8(s) & 1 ? ints[u8(s) % NINTS] : (long long)u8(s) * 1000 - 1000;
        break;
    }
    case 9:
    case 10: {
        /* a permit's answer: a few ranges, ends below the limit or beyond */
        int nr = 1 + u8(s) % 4;
        char buf[8][24];
        const char *a[4], *b[4];
        for (int k = 0; k < nr; k++) {
            unsigned x = u8(s), y = u8(s);
            if (x & 0x80)
                a[k] = bigs[x % NBIGS];
            else
                snprintf(buf[2 * k], 24, "%u", (x % 64 + (x & 0x40 ? (unsigned)limit - 1 : 0)) % 2000),
                    a[k] = buf[2 * k];
            if (y & 0x80)
                b[k] = bigs[y % NBIGS];
            else if (y & 0x40)
                b[k] = a[k];
            else
                snprintf(buf[2 * k + 1], 24, "%llu", dec(a[k]) + y % 8), b[k] = buf[2 * k + 1];
        }
        r->type = RP_STR;
        fmt_ranges(r, nr, a, b);
        permit_read(r, nr, a, b, limit);
        break;
    }
    case 11: {
        /* a long permit answer: count slots from start, stride apart */
        unsigned start = 100 + u8(s) * 4, count = 24 + u8(s) % 41, stride = 1 + u8(s) % 4;
        char buf[64][8];
        const char *a[64];
        int nr = 0;
        if (stride == 1) {
            unsigned e = start + count - 1;
            snprintf(buf[0], 8, "%u", start);
            snprintf(buf[1], 8, "%u", e);
            a[0] = buf[0];
            const char *b1[1] = {buf[1]};
            r->type = RP_STR;
            fmt_ranges(r, 1, a, b1);
            permit_read(r, 1, a, b1, limit);
            break;
        }
        for (unsigned k = 0; k < count && nr < 64; k++, nr++) {
            snprintf(buf[nr], 8, "%u", start + k * stride);
            a[nr] = buf[nr];
        }
        r->type = RP_STR;
        fmt_ranges(r, nr, a, a);
        permit_read(r, nr, a, a, limit);
        break;
    }
    case 12: {
        /* a permit's bitmap: count slots from start, stride apart; mode & 3:
         * 1 a byte too many, 2 one too few, 3 a bit past the limit */
        unsigned mode = u8(s), st = u8(s) % (unsigned)limit, count = 1 + u8(s) % 64, stride = 1 + (mode >> 2) % 4;
        size_t nb = (size_t)(limit + 7) / 8;
        r->type = RP_STR;
        r->permit = r->bitmap = r->valid = 1;
        for (unsigned k = 0, sl = st; k < count && sl < (unsigned)limit; k++, sl += stride) {
            r->str[sl / 8] = (char)(r->str[sl / 8] | 1 << (sl % 8));
            r->nbits++;
        }
        r->len = nb;
        if ((mode & 3) == 1 || ((mode & 3) == 2 && nb == 1)) r->len = nb + 1, r->valid = 0;
        if ((mode & 3) == 2 && nb > 1) r->len = nb - 1, r->valid = 0;
        if ((mode & 3) == 3) {
            r->valid = 0;
            if (limit % 8)
                r->str[nb - 1] = (char)(r->str[nb - 1] | 0x80);
            else
                r->str[nb] = 1, r->len = nb + 1;
        }
        break;
    }
    case 13:
    case 14: {
        /* any bulk text, or anything at all */
        r->type = t % 16 == 13 ? RP_STR : RP_RAW;
        r->len = u8(s) % (r->type == RP_STR ? 48 : 64);
        for (size_t k = 0; k < r->len; k++) r->str[k] = (char)u8(s);
        break;
    }
    default: r->type = RP_CLOSE; break;
    }
}

static void make_ident(src *s, ident *id, int node, int conn)
{
    unsigned b = u8(s);
    static const long long ups[] = {0, 1, 2, 5, 30, 3600, 100000, 3000000, 1LL << 40, 999999999999999999LL};
    /* b & 7 == 7: the run_id of another node (one server twice) */
    int who = (b & 7) == 7 ? (int)(u8(s) % MAXN) : node;
    snprintf(id->run_id, sizeof(id->run_id), "%02x%038x", (unsigned)(who * 16 + conn), 0u);
    id->uptime = ups[(b >> 3 & 15) % 10];
    id->aof = (b >> 7) & 1;
    unsigned c = u8(s);
    id->refused = (c & 15) == 15;
    id->clock_step_s = (c >> 4) == 15 ? 3600 : (c >> 4) == 14 ? -3600 : 0;
}

/* ---- the stand-in nodes: one thread, every connection ---- */
enum kind {
    K_OTHER,
    K_ACQ,
    K_REL,
    K_EXT,
    K_HELD,
    K_EXISTS,
    K_DEL,
    K_PERMIT,
    K_TRIM,
    K_FIND,
    K_INCR,
    K_RAISE,
    K_SET,
    K_LEAVE,
    K_CONFIRM
};
typedef struct rec {
    int node, kind;
    const reply *r;
    long long ticket; /* K_ACQ of a fair attempt: its ticket (ARGV[8]), -1 none */
    long long raise;  /* K_RAISE: M */
} rec;
static rec recs[MAX_RECS];
static int nrecs;
static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct client {
    int fd, node, conn;
    char *in;
    size_t len, cap;
} client;

static char sock_dir[108];
static int listen_fd[MAXN] = {-1, -1, -1, -1, -1, -1, -1};
static int ctl[2], ack[2];

static int send_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = {fd, POLLOUT, 0};
            poll(&pf, 1, 1000);
            continue;
        }
        if (w <= 0) return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static void bulk(char *out, size_t cap, size_t *len, const char *s, size_t l)
{
    int w = snprintf(out + *len, cap - *len, "$%zu\r\n", l);
    if (w < 0 || (size_t)w + l + 2 >= cap - *len) return;
    *len += (size_t)w;
    memcpy(out + *len, s, l);
    *len += l;
    memcpy(out + *len, "\r\n", 2);
    *len += 2;
}

static void put_reply(char *out, size_t cap, size_t *len, const reply *r)
{
    switch (r->type) {
    case RP_OK: *len += (size_t)snprintf(out + *len, cap - *len, "+OK\r\n"); break;
    case RP_NIL: *len += (size_t)snprintf(out + *len, cap - *len, "$-1\r\n"); break;
    case RP_INT: *len += (size_t)snprintf(out + *len, cap - *len, ":%lld\r\n", r->v); break;
    case RP_TOKEN: bulk(out, cap, len, cur_token, cur_token_len); break;
    case RP_ERR: *len += (size_t)snprintf(out + *len, cap - *len, "-%s\r\n", r->str); break;
    case RP_STR: bulk(out, cap, len, r->str, r->len); break;
    case RP_ARR3:
        *len += (size_t)snprintf(out + *len, cap - *len, "*3\r\n");
        if (r->inner == RP_OK)
            *len += (size_t)snprintf(out + *len, cap - *len, "+OK\r\n");
        else if (r->inner == RP_NIL)
            *len += (size_t)snprintf(out + *len, cap - *len, "$-1\r\n");
        else
            *len += (size_t)snprintf(out + *len, cap - *len, ":%lld\r\n", r->v);
        *len += (size_t)snprintf(out + *len, cap - *len, ":%lld\r\n:%lld\r\n", r->aux[0], r->aux[1]);
        break;
    case RP_RAW:
        memcpy(out + *len, r->str, r->len);
        *len += r->len;
        break;
    default: break;
    }
}

static int sha_is(const char *a, size_t al, const char *sha) { return al == 40 && memcmp(a, sha, 40) == 0; }

static int kind_of(int argc, char **argv, size_t *al)
{
#define IS(s) (al[0] == strlen(s) && strncasecmp(argv[0], s, al[0]) == 0)
    if (IS("GET")) return K_HELD;
    if (IS("EXISTS")) return K_EXISTS;
    if (IS("DEL")) return K_DEL;
    if (IS("INCR")) return K_INCR;
    if (IS("SET")) return K_SET;
    if (!(IS("EVALSHA") || IS("EVAL")) || argc < 2) return K_OTHER;
#undef IS
    const char *h = argv[1];
    size_t hl = al[1];
    /* the kind of each script of the table (rl_scripts), by name; EVAL carries the
     * script: compared by its text */
    static const struct {
        const char *name;
        int kind;
    } t[] = {
        {"acquire", K_ACQ},      {"acquire_all", K_ACQ},        {"acquire_shared", K_ACQ},
        {"release", K_REL},      {"release_all", K_REL},        {"release_shared", K_REL},
        {"extend", K_EXT},       {"extend_all", K_EXT},         {"extend_shared", K_EXT},
        {"held_all", K_HELD},    {"held_shared", K_HELD},       {"permit", K_PERMIT},
        {"permit_trim", K_TRIM}, {"permit_find", K_FIND},       {"fence_raise", K_RAISE},
        {"fair_leave", K_LEAVE}, {"shared_confirm", K_CONFIRM},
    };
    for (size_t k = 0; k < RL_SCRIPTS_N; k++) {
        const rl_script *s = &rl_scripts[k];
        if (!sha_is(h, hl, s->sha) && !(hl == s->len && memcmp(h, s->text, hl) == 0)) continue;
        for (size_t j = 0; j < sizeof(t) / sizeof(t[0]); j++)
            if (strcmp(t[j].name, s->name) == 0) return t[j].kind;
        /* a script added without its kind here (HACKING.md "Fuzzing") */
        __builtin_trap();
    }
    return K_OTHER;
}

/* one command of client c: its answer into out */
static int answer(client *c, int argc, char **argv, size_t *al, char *out, size_t cap, size_t *len)
{
    node *nd = &nodes[c->node];
    const ident *id = &nd->id[c->conn < nd->nid ? c->conn : nd->nid - 1];
#define IS(i, s) (al[i] == strlen(s) && strncasecmp(argv[i], s, al[i]) == 0)
    if (IS(0, "INFO") && argc == 2 && id->refused) {
        *len += (size_t)snprintf(out + *len, cap - *len, "-NOPERM this user has no permissions to run 'info'\r\n");
        return 0;
    }
    if (IS(0, "INFO") && argc == 2 && IS(1, "server")) {
        char b[256];
        int l = snprintf(b, sizeof(b), "# Server\r\nredis_version:7.2.4\r\nrun_id:%s\r\nuptime_in_seconds:%lld\r\n",
                         id->run_id, id->uptime);
        bulk(out, cap, len, b, (size_t)l);
        return 0;
    }
    if (IS(0, "INFO")) {
        char b[64];
        int l = snprintf(b, sizeof(b), "# Persistence\r\naof_enabled:%d\r\n", id->aof);
        bulk(out, cap, len, b, (size_t)l);
        return 0;
    }
    if (IS(0, "TIME")) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        char s[24], u[24];
        int sl = snprintf(s, sizeof(s), "%lld", (long long)tv.tv_sec + id->clock_step_s);
        int ul = snprintf(u, sizeof(u), "%ld", (long)tv.tv_usec);
        *len += (size_t)snprintf(out + *len, cap - *len, "*2\r\n");
        bulk(out, cap, len, s, (size_t)sl);
        bulk(out, cap, len, u, (size_t)ul);
        return 0;
    }
    if (IS(0, "PING")) {
        *len += (size_t)snprintf(out + *len, cap - *len, "+PONG\r\n");
        return 0;
    }
    if (IS(0, "SCRIPT") || IS(0, "AUTH") || IS(0, "SELECT") || IS(0, "CLIENT")) {
        *len += (size_t)snprintf(out + *len, cap - *len, "+OK\r\n");
        return 0;
    }
#undef IS
    /* a lock command: the node's next reply */
    if (nd->nr == 0) return -1;
    if (nd->cursor >= nd->nr && nd->close_after) return -1;
    const reply *r = &nd->r[nd->cursor < nd->nr ? nd->cursor : nd->nr - 1];
    nd->cursor++;
    rec e = {.node = c->node, .kind = kind_of(argc, argv, al), .r = r, .ticket = -1, .raise = 0};
    if (e.kind == K_ACQ && argc >= 3) {
        /* EVALSHA sha numkeys keys... ARGV: a fair attempt's ticket is ARGV[8] */
        int nk = atoi(argv[2]);
        int at = 2 + nk + 8;
        if (nk >= 0 && at < argc && al[at] < 24) {
            char b[24];
            memcpy(b, argv[at], al[at]);
            b[al[at]] = '\0';
            e.ticket = strtoll(b, NULL, 10);
        }
    }
    if (e.kind == K_RAISE && argc >= 5 && al[4] < 24) {
        char b[24];
        memcpy(b, argv[4], al[4]);
        b[al[4]] = '\0';
        e.raise = strtoll(b, NULL, 10);
    }
    pthread_mutex_lock(&rec_mu);
    if (nrecs < MAX_RECS) recs[nrecs++] = e;
    pthread_mutex_unlock(&rec_mu);
    if (r->type == RP_CLOSE) return -1;
    put_reply(out, cap, len, r);
    /* raw bytes may be half a reply: the connection ends after them, so
     * that no call waits for the rest until its timeout */
    return r->type == RP_RAW ? 1 : 0;
}

/* the complete commands at the front of c->in: answered; -1 to close */
static int serve_commands(client *c)
{
    static char out[1 << 16];
    size_t olen = 0, pos = 0;
    int rc = 0;
    for (;;) {
        /* *argc\r\n then $len\r\narg\r\n each */
        char *argv[RL_MAX_ARGS + 4];
        size_t al[RL_MAX_ARGS + 4];
        size_t p = pos;
        if (p >= c->len) break;
        if (c->in[p] != '*') {
            rc = -1;
            break;
        }
        char *e = memchr(c->in + p, '\n', c->len - p);
        if (!e) break;
        int argc = atoi(c->in + p + 1);
        if (argc < 1 || argc > RL_MAX_ARGS + 4) {
            rc = -1;
            break;
        }
        p = (size_t)(e - c->in) + 1;
        int k = 0;
        for (; k < argc; k++) {
            if (p >= c->len) break;
            if (c->in[p] != '$') {
                rc = -1;
                break;
            }
            e = memchr(c->in + p, '\n', c->len - p);
            if (!e) break;
            size_t l = (size_t)strtoul(c->in + p + 1, NULL, 10);
            p = (size_t)(e - c->in) + 1;
            if (c->len - p < l + 2) break;
            argv[k] = c->in + p;
            al[k] = l;
            p += l + 2;
        }
        if (rc || k < argc) break; /* (incomplete: wait for more) */
        pos = p;
        if (olen > sizeof(out) - 4096 && send_all(c->fd, out, olen) == 0) olen = 0;
        if (answer(c, argc, argv, al, out, sizeof(out) - 1024, &olen) != 0) {
            rc = -1; /* (what is in out is sent first) */
            break;
        }
    }
    if (olen && send_all(c->fd, out, olen) != 0) rc = -1;
    memmove(c->in, c->in + pos, c->len - pos);
    c->len -= pos;
    return rc;
}

static void drop(client *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->len = 0;
}

static void *server_main(void *arg)
{
    (void)arg;
    static client cl[MAX_CLIENTS];
    for (int k = 0; k < MAX_CLIENTS; k++) cl[k].fd = -1;
    for (;;) {
        char c;
        if (get1(ctl[0], &c) != 0) abort();
        if (c != 'S') continue;
        int n = nnodes, ended = 0;
        while (!ended) {
            struct pollfd p[1 + MAXN + MAX_CLIENTS];
            int who[1 + MAXN + MAX_CLIENTS], np = 0;
            p[np] = (struct pollfd){ctl[0], POLLIN, 0}, who[np++] = -1;
            for (int i = 0; i < n; i++) p[np] = (struct pollfd){listen_fd[i], POLLIN, 0}, who[np++] = -2 - i;
            for (int k = 0; k < MAX_CLIENTS; k++)
                if (cl[k].fd >= 0) p[np] = (struct pollfd){cl[k].fd, POLLIN, 0}, who[np++] = k;
            if (poll(p, (nfds_t)np, -1) < 0) {
                if (errno == EINTR) continue;
                abort();
            }
            for (int j = 0; j < np; j++) {
                if (!p[j].revents) continue;
                if (who[j] == -1) {
                    if (get1(ctl[0], &c) == 0 && c == 'E') ended = 1;
                } else if (who[j] <= -2) {
                    int i = -2 - who[j], fd = accept(listen_fd[i], NULL, NULL);
                    if (fd < 0) continue;
                    int k = 0;
                    while (k < MAX_CLIENTS && cl[k].fd >= 0) k++;
                    if (k == MAX_CLIENTS) {
                        close(fd);
                        continue;
                    }
                    cl[k].fd = fd;
                    cl[k].node = i;
                    cl[k].conn = nodes[i].conns++;
                    cl[k].len = 0;
                } else {
                    client *x = &cl[who[j]];
                    if (x->cap - x->len < 65536) {
                        size_t cap = x->cap ? x->cap * 2 : 131072;
                        char *in = realloc(x->in, cap);
                        if (!in || cap > (8u << 20)) {
                            drop(x);
                            continue;
                        }
                        x->in = in;
                        x->cap = cap;
                    }
                    ssize_t r = recv(x->fd, x->in + x->len, x->cap - x->len, MSG_DONTWAIT);
                    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
                    if (r <= 0) {
                        drop(x);
                        continue;
                    }
                    x->len += (size_t)r;
                    if (serve_commands(x) != 0) drop(x);
                }
            }
        }
        /* the job's end: every connection goes (the client's are freed too) */
        for (int k = 0; k < MAX_CLIENTS; k++) drop(&cl[k]);
        for (int i = 0; i < n; i++) {
            for (;;) {
                struct pollfd p = {listen_fd[i], POLLIN, 0};
                if (poll(&p, 1, 0) <= 0) break;
                int fd = accept(listen_fd[i], NULL, NULL);
                if (fd < 0) break;
                close(fd);
            }
        }
        if (put1(ack[1], 'A') != 0) abort();
    }
    return NULL;
}

static void cleanup(void)
{
    char p[160];
    for (int i = 0; i < MAXN; i++) {
        snprintf(p, sizeof(p), "%s/%d.sock", sock_dir, i);
        unlink(p);
    }
    if (sock_dir[0]) rmdir(sock_dir);
}

/* directories left by earlier runs that crashed (atexit does not run then) */
static void remove_stale(void)
{
    DIR *d = opendir("/tmp");
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        int pid = 0;
        char p[300];
        if (sscanf(e->d_name, "rl-fuzz-nodes.%d", &pid) == 1 && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
            for (int i = 0; i < MAXN; i++) {
                snprintf(p, sizeof(p), "/tmp/%s/%d.sock", e->d_name, i);
                unlink(p);
            }
            snprintf(p, sizeof(p), "/tmp/%s", e->d_name);
            rmdir(p);
        }
    }
    closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    trace = getenv("FUZZ_NODES_TRACE") != NULL;
    remove_stale();
    snprintf(sock_dir, sizeof(sock_dir), "/tmp/rl-fuzz-nodes.%d", (int)getpid());
    if (mkdir(sock_dir, 0700) != 0 && errno != EEXIST) abort();
    atexit(cleanup);
    for (int i = 0; i < MAXN; i++) {
        struct sockaddr_un a;
        memset(&a, 0, sizeof(a));
        a.sun_family = AF_UNIX;
        snprintf(a.sun_path, sizeof(a.sun_path), "%s/%d.sock", sock_dir, i);
        unlink(a.sun_path);
        listen_fd[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (listen_fd[i] < 0 || bind(listen_fd[i], (struct sockaddr *)&a, sizeof(a)) != 0 ||
            listen(listen_fd[i], 64) != 0) {
            perror("fuzz_nodes: listen");
            abort();
        }
    }
    if (pipe(ctl) != 0 || pipe(ack) != 0) abort();
    pthread_t th;
    if (pthread_create(&th, NULL, server_main, NULL) != 0) abort();
    pthread_detach(th);
    return 0;
}

/* ---- the checks ---- */
static void check_result(const rl_result *r)
{
    FAIL_IF(r->state != RL_PENDING && r->state != RL_ANSWERED && r->state != RL_FAILED);
    FAIL_IF(memchr(r->reason, '\0', sizeof(r->reason)) == NULL);
    FAIL_IF(memchr(r->reply.str, '\0', sizeof(r->reply.str)) == NULL);
    if (r->state == RL_ANSWERED) {
        FAIL_IF(r->reply.type < RL_REPLY_STATUS || r->reply.type > RL_REPLY_ARRAY);
        FAIL_IF(r->reply.type == RL_REPLY_ERROR);
        FAIL_IF(r->reply.naux != 0 && r->reply.naux != 2);
        FAIL_IF(r->novote_ms < 0);
    }
    if (r->state == RL_FAILED) FAIL_IF(r->err <= RL_OK || r->err > RL_E_STALLED);
}

/* a node's reply to a command of kind k, as the harness reads it:
 * 1 yes, 0 no, -1 cannot tell (raw bytes) */
static int says_yes(int k, const reply *r)
{
    if (r->type == RP_RAW) return -1;
    int inner = r->type == RP_ARR3 ? r->inner : r->type;
    switch (k) {
    case K_ACQ:
    case K_SET: return inner == RP_OK;
    case K_REL:
    case K_EXISTS:
    case K_EXT: return inner == RP_INT && r->v == 1;
    case K_HELD: return r->type == RP_TOKEN ? 1 : r->type == RP_STR && !r->permit ? -1 : 0;
    default: return 0;
    }
}

/* nodes whose own replies to kinds (a bit set of enum kind) said yes, or cannot tell */
static int yes_nodes(unsigned kinds)
{
    int yes[MAXN] = {0}, k = 0;
    for (int j = 0; j < nrecs; j++)
        if (kinds >> recs[j].kind & 1) yes[recs[j].node] |= says_yes(recs[j].kind, recs[j].r) != 0;
    for (int i = 0; i < nnodes; i++) k += yes[i];
    return k;
}

/* nodes whose answers (to kind) name slot s, or cannot tell */
static int slot_nodes(int kind, int s)
{
    int yes[MAXN] = {0}, k = 0;
    for (int j = 0; j < nrecs; j++) {
        const reply *r = recs[j].r;
        if (recs[j].kind != kind) continue;
        /* (text the harness did not make as ranges: it cannot tell) */
        if (r->type == RP_RAW || r->type == RP_TOKEN || (r->type == RP_STR && !r->permit)) yes[recs[j].node] = 1;
        if (r->type == RP_STR && r->permit && names(r, s)) yes[recs[j].node] = 1;
    }
    for (int i = 0; i < nnodes; i++) k += yes[i];
    return k;
}

/* the slots a permit's key list names: each below the limit, distinct, their count */
static int check_slots(const char *list, size_t len, const char *key, size_t keylen, int limit, int kind, int q)
{
    size_t pos = 1;
    const char *k;
    size_t kl;
    int count = 0;
    unsigned char seen[RL_MAX_PERMITS] = {0};
    FAIL_IF(!rl_key_is_list(list, len));
    while (rl_list_next(list, len, &pos, &k, &kl)) {
        FAIL_IF(kl <= keylen + 2 || kl > keylen + 2 + 4 || memcmp(k, key, keylen) != 0 || k[keylen] != '\0' ||
                k[keylen + 1] != 'p');
        int s = 0;
        for (size_t j = keylen + 2; j < kl; j++) {
            FAIL_IF(k[j] < '0' || k[j] > '9');
            s = s * 10 + (k[j] - '0');
        }
        FAIL_IF(s >= limit || seen[s]);
        seen[s] = 1;
        /* held by a quorum as the nodes' own answers say */
        FAIL_IF(slot_nodes(kind, s) < q);
        count++;
    }
    return count;
}

/* the fence, taken from one INCR answer per node: below 2^53 and not more
 * than RL_FUZZ_MAX_JUMP above the second highest of the nodes' (each
 * node's highest): lock/rl_fence.c's rule, one node must not outweigh the
 * others; own: a value the client brought itself */
static void check_outweigh(long long v, const long long *per_node, const int *has, long long own)
{
    long long a1 = LLONG_MIN, a2 = LLONG_MIN;
    int answers = 0;
    if (v <= own) return;
    FAIL_IF(v >= RL_FUZZ_LIMIT);
    for (int i = 0; i < nnodes; i++) {
        if (!has[i]) continue;
        answers++;
        if (per_node[i] > a1) {
            a2 = a1;
            a1 = per_node[i];
        } else if (per_node[i] > a2) {
            a2 = per_node[i];
        }
    }
    if (a2 < own) a2 = own;
    if (answers >= 2 && a2 < LLONG_MAX - RL_FUZZ_MAX_JUMP) FAIL_IF(v > a2 + RL_FUZZ_MAX_JUMP);
}

/* FUZZ_NODES_TRACE=1: what each call did and what the nodes were asked
 * (to read a reproducer: build/fuzz/fuzz_nodes FILE) */
static void trace_call(int callk, int n, int round, int out, const rl_lock_info *info, long long maxttl)
{
    static const char *const kinds[] = {"other", "acquire", "release", "extend", "held", "exists", "del",    "permit",
                                        "trim",  "find",    "incr",    "raise",  "set",  "leave",  "confirm"};
    static const char *const types[] = {"OK", "nil", "int", "token", "err", "str", "arr3", "raw", "close"};
    pthread_mutex_lock(&rec_mu);
    fprintf(stderr, "call %d n %d round %d: outcome %d ok %d validity %lld fence %lld maxttl %lld\n", callk, n, round,
            out, info->ok, (long long)info->validity_ms, (long long)info->fence, maxttl);
    for (int j = 0; j < nrecs; j++) {
        const reply *r = recs[j].r;
        fprintf(stderr, "  node %d %s -> %s", recs[j].node, kinds[recs[j].kind], types[r->type]);
        if (r->type == RP_INT || r->type == RP_ARR3) fprintf(stderr, " %lld", r->v);
        if (r->type == RP_ARR3) fprintf(stderr, " [%lld %lld]", r->aux[0], r->aux[1]);
        if (r->type == RP_STR) fprintf(stderr, " \"%.*s\"", (int)r->len, r->str);
        if (recs[j].ticket > 0) fprintf(stderr, " ticket %lld", recs[j].ticket);
        fputc('\n', stderr);
    }
    pthread_mutex_unlock(&rec_mu);
}

/* ---- one input ---- */
enum call_kind { C_ACQUIRE, C_PERMIT, C_FIND, C_RELEASE, C_EXTEND, C_LOCKED, C_HELD, C_FORCE, C_NCALLS };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    src s = {data, size};
    int callk = (int)(u8(&s) % C_NCALLS);
    unsigned opt = u8(&s);
    int n = 1 + (int)(u8(&s) % MAXN), q = rl_quorum(n);
    /* the call's parameters */
    static const int ttls[] = {10000, 1, 5, 30000, 2147483647, 100, 60000, 2000};
    static const int limits[] = {1, 2, 3, 5, 8, 64, 65, 128, 200, 1024};
    int ttl = ttls[u8(&s) % 8];
    int limit = limits[u8(&s) % 10];
    int weight = 1 + (int)(u8(&s) % 64);
    if (weight > limit) weight = limit;
    int keyform = (int)(opt & 3); /* 0 one key, 1 lockAll's list, 2 a read lock, 3 one key */
    int fence = (opt >> 2) & 1, rsk = (opt >> 3) & 3, fair = (opt >> 5) & 1, again = (opt >> 6) & 1;
    int retry = (opt >> 7) & 1;

    /* the nodes */
    memset(nodes, 0, sizeof(nodes));
    nnodes = n;
    cur_limit = limit;
    for (int i = 0; i < n; i++) {
        node *nd = &nodes[i];
        unsigned h = u8(&s);
        if (i > 0 && (h & 1)) {
            /* node 0's replies and clock, its own identity */
            *nd = nodes[0];
            nd->conns = nd->cursor = 0;
            for (int k = 0; k < nd->nid; k++) nd->id[k].run_id[0] = (char)('0' + i), nd->id[k].run_id[1] = '0' + k;
            continue;
        }
        nd->nid = 1 + (int)((h >> 1 & 3) % MAX_IDENTS);
        for (int k = 0; k < nd->nid; k++) make_ident(&s, &nd->id[k], i, k);
        nd->nr = 1 + (int)((h >> 3 & 15) % MAX_REPLIES);
        nd->close_after = (h >> 7) & 1;
        for (int k = 0; k < nd->nr; k++) make_reply(&s, &nd->r[k], limit);
    }

    /* the client */
    char sockp[MAXN][160];
    rl_node_conf conf[MAXN];
    rl_conn *conns[MAXN] = {0};
    for (int i = 0; i < n; i++) {
        memset(&conf[i], 0, sizeof(conf[i]));
        snprintf(sockp[i], sizeof(sockp[i]), "%s/%d.sock", sock_dir, i);
        conf[i].socket = sockp[i];
        conf[i].connect_timeout_ms = 2000;
        conf[i].timeout_ms = 500;
        conns[i] = rl_conn_new(&conf[i]);
        if (!conns[i]) goto out;
    }
    rl_net net = {.conns = conns, .n = n, .clock = &rl_clock_monotonic};
    rl_transport tp = {rl_net_fanout, &net};
    rl_ctx ctx = {&tp, &rl_clock_monotonic, &rl_random_system, n, NULL, NULL};
    static rl_restart rs;
    if (rsk) {
        memset(&rs, 0, sizeof(rs));
        rs.grace_ms = rsk == 1 ? 1000 : RL_GRACE_AUTO;
        rs.maxttl_key = "m";
        rs.maxttl_keylen = 1;
        ctx.rs = &rs;
    }
    char key[64];
    size_t keylen = 0;
    if (keyform == 1 || keyform == 2) {
        if (keyform == 2) rl_list_add(key, sizeof(key), &keylen, "", 0);
        rl_list_add(key, sizeof(key), &keylen, "k", 1);
        rl_list_add(key, sizeof(key), &keylen, "k2", 2);
    } else {
        key[0] = 'k';
        keylen = 1;
    }
    /* a token for the calls that take one: 40 hex, as a lock's */
    snprintf(cur_token, sizeof(cur_token), "%040d", 7);
    cur_token_len = 40;

    if (put1(ctl[1], 'S') != 0) abort();
    long long ttl_asked = 0;
    for (int round = 0; round <= again; round++) {
        /* every call of a round is checked against what the nodes said in it */
        pthread_mutex_lock(&rec_mu);
        nrecs = 0;
        pthread_mutex_unlock(&rec_mu);
        static rl_call call;
        rl_lock_info info;
        memset(&info, 0, sizeof(info));
        memset(&call, 0, sizeof(call));
        int out = RL_ERROR;
        char *slots = NULL;
        size_t slotslen = 0;
        rl_opts o = {.retry_count = retry, .retry_delay_ms = 1, .drift_factor = 0.01};
        if (fence) o.fence_key = "f", o.fence_keylen = 1;
        switch (callk) {
        case C_ACQUIRE:
            if (fair) o.wait_ms = 40, o.fair = 1; /* (the first attempt connects: a few ms) */
            ttl_asked = ttl > ttl_asked ? ttl : ttl_asked;
            out = rl_acquire(&ctx, key, keylen, ttl, &o, &info, &call);
            FAIL_IF(out != RL_ACQUIRED && out != RL_CONFLICT && out != RL_NO_QUORUM && out != RL_SAME_SERVER);
            if (out == RL_ACQUIRED) {
                memcpy(cur_token, info.token, info.token_len + 1);
                cur_token_len = info.token_len;
            }
            break;
        case C_PERMIT: {
            int other = 0;
            o.fence_key = NULL; /* (a permit without fencing: its own test below) */
            ttl_asked = ttl > ttl_asked ? ttl : ttl_asked;
            rl_permit_got got;
            out = rl_acquire_permit(&ctx, &(rl_permit_req){"r", 1, limit, weight, ttl}, &o, &info, &got, &call);
            slots = got.slots;
            slotslen = got.slotslen;
            other = got.other_limit;
            FAIL_IF(out != RL_ACQUIRED && out != RL_CONFLICT && out != RL_NO_QUORUM && out != RL_SAME_SERVER &&
                    out != RL_LIMIT);
            FAIL_IF(out == RL_LIMIT && other < 1);
            FAIL_IF((out == RL_ACQUIRED) != (slots != NULL));
            break;
        }
        case C_FIND: {
            int found = 0;
            rl_permit_got got;
            out = rl_find_permit(&ctx, &(rl_permit_req){.key = "r", .keylen = 1, .limit = limit}, cur_token,
                                 cur_token_len, &got, &call);
            slots = got.slots;
            slotslen = got.slotslen;
            found = got.found;
            FAIL_IF(out != RL_ACQUIRED && out != RL_LOST && out != RL_NO_QUORUM && out != RL_SAME_SERVER);
            FAIL_IF((out == RL_ACQUIRED) != (slots != NULL) || (out == RL_ACQUIRED && found < 1));
            if (slots) FAIL_IF(check_slots(slots, slotslen, "r", 1, limit, K_FIND, q) != found);
            break;
        }
        case C_RELEASE:
            out = rl_release(&ctx, key, keylen, cur_token, &call);
            FAIL_IF(out != RL_RELEASED && out != RL_LOST && out != RL_NO_QUORUM && out != RL_SAME_SERVER);
            if (out == RL_RELEASED) FAIL_IF(yes_nodes(1u << K_REL) < q);
            break;
        case C_EXTEND: {
            uint64_t now = rl_clock_monotonic.now_us(NULL);
            info.start_us = now;
            info.valid_until_us = now + 1000000;
            info.validity_ms = 1000;
            memcpy(info.token, cur_token, cur_token_len + 1);
            info.token_len = cur_token_len;
            ttl_asked = ttl > ttl_asked ? ttl : ttl_asked;
            out = rl_extend(&ctx, key, keylen, cur_token, ttl, 0.01, &info, &call);
            FAIL_IF(out != RL_EXTENDED && out != RL_LOST && out != RL_NO_QUORUM && out != RL_SAME_SERVER);
            /* a repair's SET (or the list's acquire script) counts as an extension */
            if (out == RL_EXTENDED) FAIL_IF(yes_nodes(1u << K_EXT | 1u << K_SET | 1u << K_ACQ) < q);
            if (out == RL_EXTENDED) FAIL_IF(info.validity_ms <= 0 || info.validity_ms > ttl);
            if (out != RL_EXTENDED) FAIL_IF(info.validity_ms > 1000);
            break;
        }
        case C_LOCKED:
            out = rl_is_locked(&ctx, "k", 1, &call); /* (one key: isLocked() takes no list) */
            FAIL_IF(out != RL_YES && out != RL_NO && out != RL_NO_QUORUM && out != RL_SAME_SERVER);
            if (out == RL_YES) FAIL_IF(yes_nodes(1u << K_EXISTS) < q);
            break;
        case C_HELD:
            out = rl_is_held(&ctx, key, keylen, cur_token, cur_token_len, &call);
            FAIL_IF(out != RL_YES && out != RL_NO && out != RL_NO_QUORUM && out != RL_SAME_SERVER);
            if (out == RL_YES) FAIL_IF(yes_nodes(1u << K_HELD) < q);
            break;
        default:
            out = rl_force_release(&ctx, "k", 1, &call);
            FAIL_IF(out != RL_RELEASED && out != RL_NO_QUORUM && out != RL_SAME_SERVER);
            break;
        }
        for (int i = 0; i < n; i++) check_result(&call.res[i]);
        FAIL_IF(call.answered + call.failed > n || call.ok > n);
        if (trace) trace_call(callk, n, round, out, &info, ctx.rs ? rs.maxttl_ms : -1);

        pthread_mutex_lock(&rec_mu);
        if (out == RL_ACQUIRED && (callk == C_ACQUIRE || callk == C_PERMIT)) {
            /* validity: never more than the TTL */
            FAIL_IF(info.validity_ms <= 0 || info.validity_ms > ttl);
            FAIL_IF(info.ok > n);
        }
        if (out == RL_ACQUIRED && callk == C_ACQUIRE) {
            FAIL_IF(yes_nodes(1u << K_ACQ) < q);
            if (fence) {
                /* a fence a node answered, raised on a quorum, of believable size */
                long long per[MAXN] = {0};
                int has[MAXN] = {0}, raised[MAXN] = {0}, nr = 0;
                for (int j = 0; j < nrecs; j++) {
                    const reply *r = recs[j].r;
                    int i = recs[j].node;
                    if (recs[j].kind == K_INCR && r->type == RP_INT && r->v >= 1 && (!has[i] || r->v > per[i]))
                        per[i] = r->v, has[i] = 1;
                    if (recs[j].kind == K_INCR && r->type == RP_RAW) per[i] = LLONG_MAX, has[i] = 1;
                    if (recs[j].kind == K_RAISE && ((r->type == RP_INT && r->v >= info.fence) || r->type == RP_RAW))
                        raised[i] = 1;
                }
                for (int i = 0; i < n; i++) nr += raised[i];
                FAIL_IF(info.fence < 1 || nr < q);
                check_outweigh(info.fence, per, has, 0);
            }
        }
        if (out == RL_ACQUIRED && callk == C_PERMIT)
            FAIL_IF(check_slots(slots, slotslen, "r", 1, limit, K_PERMIT, q) != weight);
        if (callk == C_PERMIT && !ctx.rs && ttl >= 10000) {
            /* a quorum of nodes answered, every time, the same valid bitmap
             * of weight slots, no node said anything the harness cannot read
             * or another limit, no server counts twice: the permit is granted */
            int agree[MAXN] = {0}, harmless = 1, k = 0;
            const reply *first = NULL;
            for (int j = 0; j < nrecs; j++)
                if (recs[j].kind == K_PERMIT && recs[j].r->bitmap && recs[j].r->valid && recs[j].r->nbits == weight &&
                    !first)
                    first = recs[j].r;
            for (int j = 0; j < nrecs; j++) {
                const reply *r = recs[j].r;
                if (r->type == RP_RAW || r->type == RP_TOKEN || r->type == RP_INT || r->type == RP_ARR3 ||
                    (r->type == RP_STR && !r->permit))
                    harmless = 0;
                if (recs[j].kind != K_PERMIT && recs[j].kind != K_TRIM) harmless = 0;
                if (recs[j].kind != K_PERMIT) continue;
                int i = recs[j].node;
                int same =
                    first && r->type == RP_STR && r->len == first->len && memcmp(r->str, first->str, r->len) == 0;
                agree[i] = same && agree[i] >= 0 ? 1 : -1; /* (0 no answer yet, -1 one differs) */
            }
            for (int i = 0; i < n; i++) {
                k += agree[i] == 1;
                for (int a = 0; a < nodes[i].nid; a++)
                    for (int j = 0; j < i; j++)
                        for (int b = 0; b < nodes[j].nid; b++)
                            harmless &= strcmp(nodes[i].id[a].run_id, nodes[j].id[b].run_id) != 0;
            }
            int nslots = 0;
            for (int sl = 0; first && sl < limit; sl++) nslots += names(first, sl);
            if (harmless && first && k >= q && nslots >= weight) FAIL_IF(out != RL_ACQUIRED);
        }
        if (callk == C_ACQUIRE && fair) {
            /* the ticket: one of the counters answered, and exact as a ZSET
             * score (below 2^53: above, tickets tie or round and the one
             * order of HACKING.md "Fair waiting" is gone) */
            long long per[MAXN] = {0};
            int has[MAXN] = {0};
            for (int j = 0; j < nrecs; j++) {
                const reply *r = recs[j].r;
                int i = recs[j].node;
                if (recs[j].kind != K_ACQ || recs[j].ticket != 0) continue;
                int inner = r->type == RP_ARR3 ? r->inner : r->type;
                long long v = inner == RP_INT ? r->v : r->type == RP_RAW ? LLONG_MAX : LLONG_MIN;
                if (v == LLONG_MIN) continue;
                if (!has[i] || v > per[i]) per[i] = v;
                has[i] = 1;
            }
            long long top = LLONG_MIN;
            for (int i = 0; i < n; i++)
                if (has[i] && per[i] > top) top = per[i];
            for (int j = 0; j < nrecs; j++)
                if (recs[j].kind == K_ACQ && recs[j].ticket > 0)
                    FAIL_IF(recs[j].ticket >= RL_FUZZ_LIMIT || recs[j].ticket > top);
        }
        if (ctx.rs) {
            /* the longest TTL: asked by a client, or believed from the nodes */
            long long per[MAXN] = {0};
            int has[MAXN] = {0};
            for (int j = 0; j < nrecs; j++) {
                const reply *r = recs[j].r;
                int i = recs[j].node;
                if (r->type == RP_RAW) per[i] = LLONG_MAX, has[i] = 1;
                if (r->type != RP_ARR3) continue;
                if (!has[i] || r->aux[0] > per[i]) per[i] = r->aux[0];
                has[i] = 1;
            }
            /* no client asks more; and fewer than n - q + 1 nodes' answers
             * prove nothing (HACKING.md "Restarted nodes": only then is a
             * node of every quorum that may hold a lock among them) */
            int k = 0;
            for (int i = 0; i < n; i++) k += has[i];
            FAIL_IF(rs.maxttl_ms > TTL_CAP && rs.maxttl_ms > ttl_asked);
            if (k <= n - q) FAIL_IF(rs.maxttl_ms > ttl_asked);
            if (rs.maxttl_ms > ttl_asked) ttl_asked = rs.maxttl_ms; /* (the next round starts from it) */
        }
        pthread_mutex_unlock(&rec_mu);
        free(slots);
        /* a late reply in flight is read and dropped, bounded */
        rl_net_drain(&net, 100000);
    }

    if (put1(ctl[1], 'E') != 0) abort();
    char c;
    if (get1(ack[0], &c) != 0) abort();
out:
    for (int i = 0; i < n; i++) rl_conn_free(conns[i]);
    return 0;
}
