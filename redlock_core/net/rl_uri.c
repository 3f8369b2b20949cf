/* rl_uri.c -- a node's settings: parse node URIs (redis://, rediss://, unix://,
 * host:port) without ever echoing a password, the node limits, the settings
 * field by field (compare, copy, free, identity, name), the secrets' copy and
 * wipe, a node's address, and whether two nodes are the same server. It calls
 * no connection: net/'s files stand on it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_internal.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

const rl_limit rl_node_limits[RL_FIELD_COUNT] = {
    [RL_FIELD_HOST] = {.min = 1, .max = 255},
    [RL_FIELD_PORT] = {.min = 1, .max = 65535},
    [RL_FIELD_SOCKET] = {.min = 1, .max = 107},
    [RL_FIELD_DATABASE] = {.min = 0, .max = 1000000},
    [RL_FIELD_TIMEOUT] = {.min = 1, .max = RL_TIMEOUT_MAX_MS},
    [RL_FIELD_USER] = {.min = 0, .max = RL_USER_MAX},
    [RL_FIELD_PASSWORD] = {.min = 0, .max = RL_PASSWORD_MAX},
};

int rl_node_check(int field, long long num, const char *str, size_t len)
{
    if (field < 0 || field >= RL_FIELD_COUNT) return RL_LIMIT_OK;
    const rl_limit *l = &rl_node_limits[field];
    switch (field) {
    case RL_FIELD_SOCKET:
        if (len == 0 || str[0] != '/') return RL_LIMIT_RELATIVE;
        /* fall through */
    case RL_FIELD_HOST:
    case RL_FIELD_USER:
    case RL_FIELD_PASSWORD: return (long long)len < l->min || (long long)len > l->max ? RL_LIMIT_RANGE : RL_LIMIT_OK;
    default: return num < l->min || num > l->max ? RL_LIMIT_RANGE : RL_LIMIT_OK;
    }
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* RFC 3986 percent-decoding; a decoded NUL is refused (C strings downstream).
 * What it decoded of a password before a bad escape is wiped, not just freed;
 * byte by byte, never through the SIMD registers (rl_secret_dup). */
static char *pct_decode(const char *s, size_t n, size_t *outlen)
{
    char *out = malloc(n + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int h, l;
            if (i + 2 >= n + 0 || (h = hexval(s[i + 1])) < 0 || (l = hexval(s[i + 2])) < 0 || (h == 0 && l == 0)) {
                rlc_wipe(out, (size_t)(o - out));
                free(out);
                return NULL;
            }
            *o++ = (char)(h * 16 + l);
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    *outlen = (size_t)(o - out);
    return out;
}

/* digits only, at most 10 of them */
static int parse_uint(const char *s, size_t n, long long *out)
{
    long long v = 0;
    if (n == 0 || n > 10) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static int fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return -1;
}

__attribute__((format(printf, 3, 4))) static int failf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The user or the password of a URI, percent-decoded into *out, within its
 * limit (rl_node_limits): 0, or -1 with the message (*out NULL). A decoded
 * byte takes 1 to 3 of the URI: 3 times the limit is refused undecoded. */
static int uri_part(const char *s, size_t n, int field, const char *name, char **out, char *err, size_t errlen)
{
    long long max = rl_node_limits[field].max;
    size_t len = 0;
    *out = NULL;
    if (n / 3 > (size_t)max) return failf(err, errlen, "%s is longer than %lld bytes", name, max);
    char *p = pct_decode(s, n, &len);
    if (!p) return failf(err, errlen, "bad percent-encoding in %s", name);
    if (rl_node_check(field, 0, p, len) != RL_LIMIT_OK) {
        rl_secret_free(p);
        return failf(err, errlen, "%s is longer than %lld bytes", name, max);
    }
    *out = p;
    return 0;
}

static int valid_host_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
}

/* host[:port] or [v6]:port, in s[0..n) */
static int parse_hostport(const char *s, size_t n, rl_node_conf *conf, char *err, size_t errlen)
{
    const char *host = s, *port = NULL;
    size_t hostlen = n, portlen = 0;

    if (n == 0) return fail(err, errlen, "host is empty");
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) return fail(err, errlen, "unterminated [ in host");
        host = s + 1;
        hostlen = (size_t)(close - host);
        for (size_t i = 0; i < hostlen; i++) {
            unsigned char c = (unsigned char)host[i];
            if (!(hexval((char)c) >= 0 || c == ':' || c == '.')) return fail(err, errlen, "invalid IPv6 address");
        }
        size_t rest = n - (size_t)(close + 1 - s);
        if (rest > 0) {
            if (close[1] != ':') return fail(err, errlen, "unexpected characters after ]");
            port = close + 2;
            portlen = rest - 1;
        }
    } else {
        const char *colon = memchr(s, ':', n);
        if (colon) {
            hostlen = (size_t)(colon - s);
            port = colon + 1;
            portlen = n - hostlen - 1;
        }
        for (size_t i = 0; i < hostlen; i++)
            if (!valid_host_char((unsigned char)s[i])) return fail(err, errlen, "invalid character in host");
    }
    if (hostlen == 0) return fail(err, errlen, "host is empty");
    if (rl_node_check(RL_FIELD_HOST, 0, host, hostlen) != RL_LIMIT_OK)
        return failf(err, errlen, "host is longer than %lld bytes", rl_node_limits[RL_FIELD_HOST].max);
    long long p = RL_DEFAULT_PORT;
    if ((port && parse_uint(port, portlen, &p) != 0) || rl_node_check(RL_FIELD_PORT, p, NULL, 0) != RL_LIMIT_OK)
        return failf(err, errlen, "port must be between %lld and %lld", rl_node_limits[RL_FIELD_PORT].min,
                     rl_node_limits[RL_FIELD_PORT].max);
    conf->host = dup_n(host, hostlen);
    if (!conf->host) return fail(err, errlen, "out of memory");
    conf->port = (int)p;
    return 0;
}

int rl_uri_parse(const char *uri, size_t len, rl_node_conf *conf, char *err, size_t errlen)
{
    const char *s = uri, *end = uri + len;
    rl_node_conf c = {0};
    c.connect_timeout_ms = conf->connect_timeout_ms;
    c.timeout_ms = conf->timeout_ms;

    if (len == 0) return fail(err, errlen, "is empty");
    if (memchr(uri, '\0', len)) return fail(err, errlen, "contains a NUL byte");

    if (len >= 7 && memcmp(s, "unix://", 7) == 0) {
        s += 7;
        switch (rl_node_check(RL_FIELD_SOCKET, 0, s, (size_t)(end - s))) {
        case RL_LIMIT_RELATIVE: return fail(err, errlen, "unix socket path must be absolute (unix:///path)");
        case RL_LIMIT_RANGE: return fail(err, errlen, "unix socket path is too long");
        }
        c.socket = dup_n(s, (size_t)(end - s));
        if (!c.socket) return fail(err, errlen, "out of memory");
        *conf = c;
        return 0;
    }

    int is_uri = 0;
    if (len >= 8 && memcmp(s, "redis://", 8) == 0) {
        s += 8;
        is_uri = 1;
    } else if (len >= 9 && memcmp(s, "rediss://", 9) == 0) {
        s += 9;
        is_uri = 1;
        c.tls = 1;
    } else if (memmem(s, len, "://", 3)) {
        return fail(err, errlen, "unknown scheme (use redis://, rediss:// or unix://)");
    }

    if (!is_uri) {
        if (parse_hostport(s, (size_t)(end - s), &c, err, errlen) != 0) return -1;
        *conf = c;
        return 0;
    }

    if (memchr(s, '?', (size_t)(end - s)) || memchr(s, '#', (size_t)(end - s))) {
        return fail(err, errlen, "query strings and fragments are not supported");
    }
    /* authority ends at the first '/' after the last '@' */
    const char *at = NULL;
    for (const char *p = s; p < end; p++)
        if (*p == '@') at = p;
    const char *auth = s;
    if (at) {
        const char *colon = memchr(s, ':', (size_t)(at - s));
        if (!colon) {
            rl_node_conf_free(&c);
            return fail(err, errlen,
                        "user given without a password (use redis://user:password@host or redis://:password@host)");
        }
        if ((colon > s && uri_part(s, (size_t)(colon - s), RL_FIELD_USER, "user", &c.user, err, errlen) != 0) ||
            uri_part(colon + 1, (size_t)(at - colon - 1), RL_FIELD_PASSWORD, "password", &c.password, err, errlen) !=
                0) {
            rl_node_conf_free(&c);
            return -1;
        }
        if (c.password[0] == '\0') {
            rl_secret_free(c.password);
            c.password = NULL;
            if (c.user) {
                /* redis://user:@host: the user would be dropped without a word */
                rl_node_conf_free(&c);
                return fail(err, errlen, "user given with an empty password (use redis://user:password@host)");
            }
        }
        auth = at + 1;
    }
    const char *slash = memchr(auth, '/', (size_t)(end - auth));
    const char *hp_end = slash ? slash : end;
    if (parse_hostport(auth, (size_t)(hp_end - auth), &c, err, errlen) != 0) {
        rl_node_conf_free(&c);
        return -1;
    }
    if (slash && slash + 1 < end) {
        long long db;
        if (parse_uint(slash + 1, (size_t)(end - slash - 1), &db) != 0 ||
            rl_node_check(RL_FIELD_DATABASE, db, NULL, 0) != RL_LIMIT_OK) {
            rl_node_conf_free(&c);
            return failf(err, errlen, "database must be a number between %lld and %lld",
                         rl_node_limits[RL_FIELD_DATABASE].min, rl_node_limits[RL_FIELD_DATABASE].max);
        }
        c.database = (int)db;
    }
    *conf = c;
    return 0;
}

/* ---- the settings, field by field (RL_NODE_CONF_FIELDS, RL_TLS_CONF_FIELDS) ---- */
static int str_eq(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static int tls_conf_eq(const rl_tls_conf *a, const rl_tls_conf *b)
{
#define EQ_STR(f) str_eq(a->f, b->f) &&
#define EQ_SECRET(f) str_eq(a->f, b->f) &&
#define EQ_INT(f) a->f == b->f &&
#define EQ(kind, f) EQ_##kind(f)
    return RL_TLS_CONF_FIELDS(EQ) 1;
}

int rl_node_conf_eq(const rl_node_conf *a, const rl_node_conf *b)
{
#define EQ_TLS(f) tls_conf_eq(&a->f, &b->f) &&
    return RL_NODE_CONF_FIELDS(EQ) 1;
#undef EQ_STR
#undef EQ_SECRET
#undef EQ_INT
#undef EQ_TLS
#undef EQ
}

/* ---- secrets (rl.h): copied byte by byte, wiped before they are freed ----
 * The two primitives (rl_internal.h) serve the settings here and the output
 * buffer that holds AUTH (net/rl_conn.c). */
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
 * Forward: also a memmove to a lower address (rl_conn.c's rlc_obuf_compact). */
void rlc_copy_secret(char *dst, const char *src, size_t n)
{
    volatile char *d = dst;
    const volatile char *s = src;
    for (size_t i = 0; i < n; i++) d[i] = s[i];
}

void rl_secret_copy(char *dst, const char *src, size_t n) { rlc_copy_secret(dst, src, n); }

char *rl_secret_dup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p) return NULL;
    rlc_copy_secret(p, s, n);
    p[n] = '\0';
    return p;
}

void rl_secret_free(char *s)
{
    if (!s) return;
    rlc_wipe(s, strlen(s));
    free(s);
}

#define FREE_STR(f) free(c->f), c->f = NULL;
#define FREE_SECRET(f) rl_secret_free(c->f), c->f = NULL;
#define FREE_INT(f)
#define FREE(kind, f) FREE_##kind(f)
static void tls_conf_free(rl_tls_conf *c) { RL_TLS_CONF_FIELDS(FREE) }

void rl_node_conf_free(rl_node_conf *c)
{
#define FREE_TLS(f) tls_conf_free(&c->f);
    RL_NODE_CONF_FIELDS(FREE)
}
#undef FREE_STR
#undef FREE_SECRET
#undef FREE_INT
#undef FREE_TLS
#undef FREE

/* a copy of a string field: 0, or -1 when it could not be made */
static int copy_str(char **dst, const char *src)
{
    *dst = src ? strdup(src) : NULL;
    return src && !*dst ? -1 : 0;
}

/* a secret's copy: rl_secret_dup, never strdup */
static int copy_secret(char **dst, const char *src)
{
    *dst = src ? rl_secret_dup(src, strlen(src)) : NULL;
    return src && !*dst ? -1 : 0;
}

#define COPY_STR(f) bad |= copy_str(&d->f, s->f);
#define COPY_SECRET(f) bad |= copy_secret(&d->f, s->f);
#define COPY_INT(f) d->f = s->f;
#define COPY(kind, f) COPY_##kind(f)
static int tls_conf_copy(rl_tls_conf *d, const rl_tls_conf *s)
{
    int bad = 0;
    RL_TLS_CONF_FIELDS(COPY)
    return bad;
}

int rl_node_conf_copy(rl_node_conf *d, const rl_node_conf *s)
{
    int bad = 0;
    memset(d, 0, sizeof(*d));
#define COPY_TLS(f) bad |= tls_conf_copy(&d->f, &s->f);
    RL_NODE_CONF_FIELDS(COPY)
    if (bad) {
        rl_node_conf_free(d);
        return -1;
    }
    return 0;
}
#undef COPY_STR
#undef COPY_SECRET
#undef COPY_INT
#undef COPY_TLS
#undef COPY

static void put_int(rl_conf_put_fn put, void *ctx, const char *name, int v)
{
    char buf[16];
    int n = snprintf(buf, sizeof(buf), "%d", v);
    put(ctx, name, buf, (size_t)n, 0);
}

#define PUT_STR(f) put(ctx, P #f, c->f, c->f ? strlen(c->f) : 0, 0);
#define PUT_SECRET(f) put(ctx, P #f, c->f, c->f ? strlen(c->f) : 0, 1);
#define PUT_INT(f) put_int(put, ctx, P #f, c->f);
#define PUT(kind, f) PUT_##kind(f)
static void tls_conf_identity(const rl_tls_conf *c, rl_conf_put_fn put, void *ctx)
{
#define P "tls_conf."
    RL_TLS_CONF_FIELDS(PUT)
#undef P
}

void rl_node_conf_identity(const rl_node_conf *c, rl_conf_put_fn put, void *ctx)
{
#define P ""
#define PUT_TLS(f) tls_conf_identity(&c->f, put, ctx);
    RL_NODE_CONF_FIELDS(PUT)
#undef P
}
#undef PUT_STR
#undef PUT_SECRET
#undef PUT_INT
#undef PUT_TLS
#undef PUT

size_t rl_node_conf_name(const rl_node_conf *conf, char *buf, size_t buflen)
{
    int n;
    if (conf->socket)
        n = snprintf(buf, buflen, "unix:%s", conf->socket);
    else if (conf->host && strchr(conf->host, ':'))
        n = snprintf(buf, buflen, "[%s]:%d", conf->host, conf->port);
    else
        n = snprintf(buf, buflen, "%s:%d", conf->host ? conf->host : "", conf->port);
    if (n < 0) return 0;
    return (size_t)n < buflen ? (size_t)n : buflen - 1;
}

/* ---- a node's address: what a connect dials (net/rl_dial.c, resolved once
 * per connection), what the watchdog resolves and hands over ---- */
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

/* ---- do two node entries reach the same server? ---- */

#define SAME_MAX_ADDRS 16

typedef struct node_addrs {
    int resolved; /* 1: addr[] holds the host's addresses */
    int n;
    struct sockaddr_in6 addr[SAME_MAX_ADDRS]; /* IPv4 as v4-mapped IPv6, port included */
    int have_stat;                            /* unix socket that exists: compare the file, not the path */
    dev_t dev;
    ino_t ino;
} node_addrs;

static void resolve_node(const rl_node_conf *c, node_addrs *out)
{
    memset(out, 0, sizeof(*out));
    if (c->socket) {
        struct stat st;
        if (stat(c->socket, &st) == 0) {
            out->have_stat = 1;
            out->dev = st.st_dev;
            out->ino = st.st_ino;
        }
        return;
    }
    if (!c->host) return;
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(c->host, NULL, &hints, &ai) != 0 || !ai) return;
    for (struct addrinfo *p = ai; p && out->n < SAME_MAX_ADDRS; p = p->ai_next) {
        struct sockaddr_in6 *a = &out->addr[out->n];
        memset(a, 0, sizeof(*a));
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)c->port);
        if (p->ai_family == AF_INET6) {
            const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)p->ai_addr;
            a->sin6_addr = s6->sin6_addr;
            a->sin6_scope_id = s6->sin6_scope_id;
        } else if (p->ai_family == AF_INET) {
            const struct sockaddr_in *s4 = (const struct sockaddr_in *)p->ai_addr;
            a->sin6_addr.s6_addr[10] = 0xff;
            a->sin6_addr.s6_addr[11] = 0xff;
            memcpy(&a->sin6_addr.s6_addr[12], &s4->sin_addr, 4);
        } else {
            continue;
        }
        out->n++;
    }
    out->resolved = out->n > 0;
    freeaddrinfo(ai);
}

static int addrs_same(const rl_node_conf *a, const node_addrs *ra, const rl_node_conf *b, const node_addrs *rb)
{
    if (a->socket || b->socket) {
        if (!a->socket || !b->socket) return 0; /* TCP vs unix: only the server can tell (run_id) */
        if (ra->have_stat && rb->have_stat) return ra->dev == rb->dev && ra->ino == rb->ino;
        return strcmp(a->socket, b->socket) == 0;
    }
    if (a->port != b->port) return 0;
    if (strcasecmp(a->host, b->host) == 0) return 1;
    if (!ra->resolved || !rb->resolved) return 0; /* a name that does not resolve: by string only */
    for (int i = 0; i < ra->n; i++)
        for (int j = 0; j < rb->n; j++)
            if (memcmp(&ra->addr[i].sin6_addr, &rb->addr[j].sin6_addr, sizeof(struct in6_addr)) == 0 &&
                ra->addr[i].sin6_scope_id == rb->addr[j].sin6_scope_id)
                return 1;
    return 0;
}

/* Whether resolving could change the answer for this pair (saves lookups). */
static int needs_resolve(const rl_node_conf *a, const rl_node_conf *b)
{
    if (a->socket || b->socket) return a->socket && b->socket;
    return a->port == b->port && strcasecmp(a->host, b->host) != 0;
}

int rl_node_conf_same_server(const rl_node_conf *a, const rl_node_conf *b)
{
    node_addrs ra, rb;
    memset(&ra, 0, sizeof(ra));
    memset(&rb, 0, sizeof(rb));
    if (needs_resolve(a, b)) {
        resolve_node(a, &ra);
        resolve_node(b, &rb);
    }
    return addrs_same(a, &ra, b, &rb);
}

int rl_node_confs_find_same_server(const rl_node_conf *confs, int n, int *first, int *second)
{
    node_addrs *r = n > 0 ? calloc((size_t)n, sizeof(*r)) : NULL;
    unsigned char *done = n > 0 ? calloc((size_t)n, 1) : NULL;
    int found = 0;
    if (n > 0 && (!r || !done)) {
        free(r);
        free(done);
        return -1;
    }
    for (int j = 1; j < n && !found; j++) {
        for (int i = 0; i < j; i++) {
            if (needs_resolve(&confs[i], &confs[j])) {
                /* each node is resolved at most once, and only when a pair needs it */
                for (int k = 0; k < 2; k++) {
                    int x = k ? j : i;
                    if (!done[x]) {
                        resolve_node(&confs[x], &r[x]);
                        done[x] = 1;
                    }
                }
            }
            if (addrs_same(&confs[i], &r[i], &confs[j], &r[j])) {
                *first = i;
                *second = j;
                found = 1;
                break;
            }
        }
    }
    free(r);
    free(done);
    return found;
}
