/* uri_tests.c -- a node's URI and settings (rl_uri.c): the URIs accepted and
 * rejected, every field of rl_node_conf compared, copied, freed and part of
 * the identity, secrets never copied through vector registers nor shown in an
 * error, the node's name. A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/unit_tests.h"

#include <stdlib.h>
#include <string.h>

typedef struct uri_ok {
    const char *uri;
    const char *host, *socket, *user, *password;
    int port, db, tls;
} uri_ok;

static int str_eq_null(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static void test_uri_accepted(void)
{
    static const uri_ok cases[] = {
        {"redis://localhost", "localhost", NULL, NULL, NULL, 6379, 0, 0},
        {"redis://127.0.0.1:7000", "127.0.0.1", NULL, NULL, NULL, 7000, 0, 0},
        {"redis://127.0.0.1:7000/3", "127.0.0.1", NULL, NULL, NULL, 7000, 3, 0},
        {"redis://h/", "h", NULL, NULL, NULL, 6379, 0, 0},
        {"redis://h/1000000", "h", NULL, NULL, NULL, 6379, 1000000, 0},
        {"rediss://secure.example:6380", "secure.example", NULL, NULL, NULL, 6380, 0, 1},
        {"rediss://h", "h", NULL, NULL, NULL, 6379, 0, 1},
        {"unix:///var/run/redis.sock", NULL, "/var/run/redis.sock", NULL, NULL, 0, 0, 0},
        {"unix:///x", NULL, "/x", NULL, NULL, 0, 0, 0},
        {"host:1234", "host", NULL, NULL, NULL, 1234, 0, 0},
        {"10.0.0.1", "10.0.0.1", NULL, NULL, NULL, 6379, 0, 0},
        {"my-host_1.local", "my-host_1.local", NULL, NULL, NULL, 6379, 0, 0},
        {"h:1", "h", NULL, NULL, NULL, 1, 0, 0},
        {"h:65535", "h", NULL, NULL, NULL, 65535, 0, 0},
        {"[::1]:6380", "::1", NULL, NULL, NULL, 6380, 0, 0},
        {"[::1]", "::1", NULL, NULL, NULL, 6379, 0, 0},
        {"redis://[fe80::1:2]:7001/2", "fe80::1:2", NULL, NULL, NULL, 7001, 2, 0},
        {"redis://user:pass@h:1/5", "h", NULL, "user", "pass", 1, 5, 0},
        {"redis://:pass@h", "h", NULL, NULL, "pass", 6379, 0, 0},
        {"redis://:p%40ss%3Aw%2F0rd@h", "h", NULL, NULL, "p@ss:w/0rd", 6379, 0, 0},
        {"redis://us%65r%20x:pa%25ss@h", "h", NULL, "user x", "pa%ss", 6379, 0, 0},
        {"redis://u:a@b@h:2", "h", NULL, "u", "a@b", 2, 0, 0},
        {"redis://u:p:q@h", "h", NULL, "u", "p:q", 6379, 0, 0},
        {"rediss://default:s3cret@[::1]:6390/1", "::1", NULL, "default", "s3cret", 6390, 1, 1},
        {"redis://:@h", "h", NULL, NULL, NULL, 6379, 0, 0}, /* empty password = none */
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const uri_ok *c = &cases[k];
        rl_node_conf conf;
        char err[128] = "";
        memset(&conf, 0, sizeof(conf));
        conf.connect_timeout_ms = 123;
        conf.timeout_ms = 456;
        int rc = rl_uri_parse(c->uri, strlen(c->uri), &conf, err, sizeof(err));
        if (rc != 0) {
            check_failf(__FILE__, __LINE__, "%s rejected: %s", c->uri, err);
            continue;
        }
        if (!str_eq_null(conf.host, c->host) || !str_eq_null(conf.socket, c->socket) ||
            !str_eq_null(conf.user, c->user) || !str_eq_null(conf.password, c->password) || conf.port != c->port ||
            conf.database != c->db || conf.tls != c->tls)
            check_failf(__FILE__, __LINE__, "%s: host=%s socket=%s user=%s pass=%s port=%d db=%d tls=%d", c->uri,
                        conf.host ? conf.host : "-", conf.socket ? conf.socket : "-", conf.user ? conf.user : "-",
                        conf.password ? conf.password : "-", conf.port, conf.database, conf.tls);
        CHECK_EQ(conf.connect_timeout_ms, 123); /* timeouts left untouched */
        CHECK_EQ(conf.timeout_ms, 456);
        rl_node_conf_free(&conf);
        CHECK(conf.host == NULL && conf.password == NULL);
    }
    /* length, not NUL: a longer buffer is cut where the caller says */
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    CHECK_EQ(rl_uri_parse("h:99XYZ", 4, &conf, NULL, 0), 0);
    CHECK_STR(conf.host, "h");
    CHECK_EQ(conf.port, 99);
    rl_node_conf_free(&conf);
}

/* ---- a node's settings, field by field (RL_NODE_CONF_FIELDS): every field is
 * compared, copied, freed and part of the identity ---- */
typedef struct ident_buf {
    char s[2048];
    size_t n;
    int secrets; /* fields that came as secrets */
} ident_buf;

static void ident_put(void *ctx, const char *name, const char *v, size_t len, int secret)
{
    ident_buf *b = ctx;
    char h[16];
    if (secret) { /* as the extension does, a hash of it (here a plain FNV-1a) */
        b->secrets++;
        if (v) {
            snprintf(h, sizeof(h), "h%08x", (unsigned)rl_hash(RL_HASH_INIT, v, len));
            v = h;
            len = strlen(h);
        }
    }
    b->n += (size_t)snprintf(b->s + b->n, sizeof(b->s) - b->n, "|%s=%.*s", name, v ? (int)len : 1, v ? v : "-");
}

static void conf_ident(const rl_node_conf *c, ident_buf *b)
{
    memset(b, 0, sizeof(*b));
    rl_node_conf_identity(c, ident_put, b);
}

/* a conf with every string of the node's own fields set (to name + "-" + tag)
 * and every int to tag; the TLS fields zeroed */
static void conf_fill(rl_node_conf *c, int tag)
{
    char v[64];
    memset(c, 0, sizeof(*c));
#define FILL_STR(f) snprintf(v, sizeof(v), "%s-%d", #f, tag), c->f = strdup(v);
#define FILL_SECRET(f) FILL_STR(f)
#define FILL_INT(f) c->f = tag;
#define FILL_TLS(f)
#define FILL(kind, f) FILL_##kind(f)
    RL_NODE_CONF_FIELDS(FILL)
}

/* The vector registers (zmm0-31 with AVX-512, else ymm0-15), for
 * secret_copy_no_simd: cleared (out NULL), or their contents into out; the
 * bytes read, 0 without AVX (the test then checks nothing). */
#if defined(__x86_64__)
#define VREGS_MAX (32 * 64)
#define VREGS_LO(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define VREGS_HI(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define VREG_ZERO(n) "vpxorq %%zmm" #n ", %%zmm" #n ", %%zmm" #n "\n\t"
#define VREG_YMM(n) "vmovdqu %%ymm" #n ", " #n "*32(%0)\n\t"
#define VREG_ZMM(n) "vmovdqu64 %%zmm" #n ", " #n "*64(%0)\n\t"
static size_t vregs_read(unsigned char *out)
{
    int avx512 = __builtin_cpu_supports("avx512f");
    if (!avx512 && !__builtin_cpu_supports("avx")) return 0;
    if (!out) {
        /* zmm16-31: the EVEX forms of memcpy() use them (no vzeroupper needed) */
        if (avx512) __asm__ volatile(VREGS_HI(VREG_ZERO)::: "memory");
        __asm__ volatile("vzeroall" ::: "memory");
        return 0;
    }
    if (!avx512) {
        __asm__ volatile(VREGS_LO(VREG_YMM) : : "r"(out) : "memory");
        return 16 * 32;
    }
    __asm__ volatile(VREGS_LO(VREG_ZMM) VREGS_HI(VREG_ZMM) : : "r"(out) : "memory");
    return 32 * 64;
}

/* how many 8-byte pieces of secret[0..n) the registers hold */
static int vregs_pieces(const char *secret, size_t n)
{
    unsigned char regs[VREGS_MAX];
    size_t len = vregs_read(regs);
    int found = 0;
    for (size_t i = 0; i + 8 <= n; i++) found += memmem(regs, len, secret + i, 8) != NULL;
    return found;
}
#endif

/* A node's secrets are copied byte by byte, never through the vector
 * registers (whose contents the dynamic linker's lazy binding, or a signal,
 * later saves on the stack where no wipe reaches): the registers are
 * cleared, the settings copied (rl_node_conf_copy: the connections', the
 * watchdog's, the subscribers' copies) or a secret duplicated
 * (rl_secret_dup: the CLI's, the extension's), then read. With strdup()
 * (574973c's rl_node_conf_copy) they held pieces of the password. */
static void test_secret_copy_no_simd(void)
{
#if defined(__x86_64__)
    /* static: its own initialisation copies nothing through the registers */
    static const char pw[] = "Simd-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789abcdefghijk"
                             "lmnopqrstuvwxyzABCDEFGHIJ";
    static const char pp[] = "Pass-zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA-9876543210";
    rl_node_conf src, dst;
    memset(&src, 0, sizeof(src));
    src.host = (char *)"h";
    src.port = 1;
    src.user = (char *)"u";
    src.password = (char *)pw;
    src.tls = 1;
    src.tls_conf.passphrase = (char *)pp;
    vregs_read(NULL);
    int rc = rl_node_conf_copy(&dst, &src);
    int in_regs = vregs_pieces(pw, sizeof(pw) - 1) + vregs_pieces(pp, sizeof(pp) - 1);
    CHECK_EQ(rc, 0);
    CHECK_EQ(in_regs, 0);
    if (rc == 0) {
        CHECK_STR(dst.password, pw);
        CHECK_STR(dst.tls_conf.passphrase, pp);
        rl_node_conf_free(&dst);
    }
    vregs_read(NULL);
    char *d = rl_secret_dup(pw, sizeof(pw) - 1);
    in_regs = vregs_pieces(pw, sizeof(pw) - 1);
    CHECK(d != NULL);
    CHECK_EQ(in_regs, 0);
    if (d) CHECK_STR(d, pw);
    rl_secret_free(d);
#endif
}

static void test_conf_fields(void)
{
    rl_node_conf base, copy, other;
    ident_buf bi, ci;
    int fields = 0, secrets = 0;
    conf_fill(&base, 1);
    /* the TLS fields too */
#define TFILL_STR(f) base.tls_conf.f = strdup(#f "-1");
#define TFILL_SECRET(f) TFILL_STR(f)
#define TFILL_INT(f) base.tls_conf.f = 1;
#define TFILL(kind, f) TFILL_##kind(f)
    RL_TLS_CONF_FIELDS(TFILL)
    CHECK_EQ(rl_node_conf_copy(&copy, &base), 0);
    CHECK(rl_node_conf_eq(&base, &copy));
    conf_ident(&base, &bi);
    conf_ident(&copy, &ci);
    CHECK_STR(bi.s, ci.s);
    CHECK(strstr(bi.s, "password-1") == NULL && strstr(bi.s, "passphrase-1") == NULL);
    /* one field changed at a time: not equal, another identity; a string set to
     * NULL as well */
#define VARY_STR(f, obj)                                                                                       \
    for (int pass = 0; pass < 2; pass++) {                                                                     \
        CHECK_EQ(rl_node_conf_copy(&other, &base), 0);                                                         \
        free(obj.f);                                                                                           \
        obj.f = pass ? NULL : strdup(#f "-2");                                                                 \
        conf_ident(&other, &ci);                                                                               \
        if (rl_node_conf_eq(&base, &other)) check_failf(__FILE__, __LINE__, "%s: another value is equal", #f); \
        if (!strcmp(bi.s, ci.s)) check_failf(__FILE__, __LINE__, "%s: not in the identity", #f);               \
        rl_node_conf_free(&other);                                                                             \
    }                                                                                                          \
    fields++;
#define VARY_SECRET(f, obj) VARY_STR(f, obj) secrets++;
#define VARY_INT(f, obj)                                                                                   \
    CHECK_EQ(rl_node_conf_copy(&other, &base), 0);                                                         \
    obj.f = 2;                                                                                             \
    conf_ident(&other, &ci);                                                                               \
    if (rl_node_conf_eq(&base, &other)) check_failf(__FILE__, __LINE__, "%s: another value is equal", #f); \
    if (!strcmp(bi.s, ci.s)) check_failf(__FILE__, __LINE__, "%s: not in the identity", #f);               \
    rl_node_conf_free(&other);                                                                             \
    fields++;
#define VARY_TLS(f, obj)
#define VARY_NODE(kind, f) VARY_##kind(f, other)
#define VARY_TLSF(kind, f) VARY_##kind(f, other.tls_conf)
    RL_NODE_CONF_FIELDS(VARY_NODE)
    RL_TLS_CONF_FIELDS(VARY_TLSF)
    CHECK_EQ(bi.secrets, secrets);
    CHECK_EQ(secrets, 2); /* the password and the TLS passphrase */
    CHECK(fields >= 17);
    /* free leaves nothing */
    rl_node_conf_free(&copy);
    rl_node_conf_free(&base);
#define NULLED_STR(f) CHECK(base.f == NULL);
#define NULLED_SECRET(f) CHECK(base.f == NULL);
#define NULLED_INT(f)
#define NULLED_TLS(f)
#define NULLED(kind, f) NULLED_##kind(f)
#define TNULLED(kind, f) NULLED_##kind(tls_conf.f)
    RL_NODE_CONF_FIELDS(NULLED)
    RL_TLS_CONF_FIELDS(TNULLED)
}

static void test_uri_rejected(void)
{
    static const struct {
        const char *uri;
        size_t len; /* 0: strlen */
    } bad[] = {
        {"", 0},
        {"h\0st:1", 6},
        {"redis://h:0", 0},
        {"redis://h:65536", 0},
        {"redis://h:abc", 0},
        {"redis://h:", 0},
        {"h:0", 0},
        {"h:65536", 0},
        {"h:-1", 0},
        {"h:99999999999", 0},
        {"http://h:1", 0},
        {"tcp://h", 0},
        {"redis+tls://h", 0},
        {"redis://h?db=1", 0},
        {"redis://h#x", 0},
        {"redis://user@h", 0},
        {"redis://:p%4@h", 0},
        {"redis://:p%zz@h", 0},
        {"redis://:p%@h", 0},
        {"redis://:p%00@h", 0},
        {"redis://us%0@h", 0},
        {"redis://u%00:p@h", 0},
        {"redis://", 0},
        {"redis://:pw@", 0},
        {"redis://h/abc", 0},
        {"redis://h/1000001", 0},
        {"redis://h/-1", 0},
        {"unix://", 0},
        {"unix://relative.sock", 0},
        {"[::1", 0},
        {"[::1]x", 0},
        {"[zz::1]:1", 0},
        {"[]:1", 0},
        {"h st", 0},
        {"h/1", 0},
        {":6379", 0},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        rl_node_conf conf;
        char err[128];
        memset(&conf, 0, sizeof(conf));
        memset(err, 0, sizeof(err));
        size_t len = bad[k].len ? bad[k].len : strlen(bad[k].uri);
        if (rl_uri_parse(bad[k].uri, len, &conf, err, sizeof(err)) == 0) {
            check_failf(__FILE__, __LINE__, "accepted: \"%s\"", bad[k].uri);
            rl_node_conf_free(&conf);
            continue;
        }
        CHECK(err[0] != '\0');
        CHECK(conf.host == NULL && conf.socket == NULL && conf.user == NULL && conf.password == NULL);
    }
    /* a socket path too long for sun_path */
    char longp[200] = "unix:///";
    memset(longp + 8, 'a', 150);
    longp[158] = '\0';
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    CHECK_EQ(rl_uri_parse(longp, strlen(longp), &conf, NULL, 0), -1);
    /* a host too long */
    char longh[400];
    memset(longh, 'h', 300);
    longh[300] = '\0';
    CHECK_EQ(rl_uri_parse(longh, strlen(longh), &conf, NULL, 0), -1);
    /* tiny error buffer: truncated, terminated */
    char e4[4] = "zzz";
    CHECK_EQ(rl_uri_parse("", 0, &conf, e4, sizeof(e4)), -1);
    CHECK(strlen(e4) <= 3);
    /* user and password within their limits (rl_node_limits), once decoded */
    size_t big = 3 * (size_t)RL_PASSWORD_MAX + 64;
    char *u = malloc(big), err[160];
    CHECK(u != NULL);
    if (!u) return;
    for (int k = 0; k < 5; k++) {
        /* 0 password at the limit, 1 one past it, 2 one past it in %41s, 3 user past it, 4 user at it */
        size_t plen = k == 0 ? RL_PASSWORD_MAX : k <= 2 ? RL_PASSWORD_MAX + 1 : 1;
        size_t ulen = k == 3 ? RL_USER_MAX + 1 : k == 4 ? RL_USER_MAX : 1;
        size_t o = (size_t)snprintf(u, big, "redis://");
        memset(u + o, 'u', ulen);
        o += ulen;
        u[o++] = ':';
        for (size_t i = 0; i < plen; i++) o += (size_t)(k == 2 ? snprintf(u + o, big - o, "%%41") : (u[o] = 'p', 1));
        o += (size_t)snprintf(u + o, big - o, "@h:1");
        memset(&conf, 0, sizeof(conf));
        err[0] = '\0';
        int rc = rl_uri_parse(u, o, &conf, err, sizeof(err));
        CHECK_EQ(rc, k == 0 || k == 4 ? 0 : -1);
        if (rc == 0) {
            CHECK_EQ(strlen(conf.password), plen);
            rl_node_conf_free(&conf);
        } else {
            CHECK_STR(err, k == 3 ? "user is longer than 4096 bytes" : "password is longer than 65536 bytes");
        }
    }
    free(u);
    CHECK_EQ(rl_node_check(RL_FIELD_PASSWORD, 0, "x", RL_PASSWORD_MAX + 1), RL_LIMIT_RANGE);
    CHECK_EQ(rl_node_check(RL_FIELD_USER, 0, "", 0), RL_LIMIT_OK);
}

/* No error message ever contains the password (raw or decoded), and none
 * contains the user's secret-ish parts either. */
static void test_uri_error_never_has_password(void)
{
    static const char *bad[] = {
        "redis://:Sup3rSecret@h:0",
        "redis://:Sup3rSecret@h:65536",
        "redis://:Sup3rSecret@h:port",
        "redis://:Sup3rSecret@",
        "redis://:Sup3rSecret@h/notadb",
        "redis://:Sup3rSecret@h?x=1",
        "redis://:Sup3rSecret%zz@h",
        "redis://:Sup3rSecret%00@h",
        "redis://usr:Sup3rSecret@[zz]:1",
        "redis://usr:Sup3rSecret@h st",
        "redis://%zz:Sup3rSecret@h",
        "redis://usr:Sup3rSecret@[::1",
        "redis://usr:Sup3rSecret@h:1/1000001",
        "redis://Sup3rSecret@h", /* a password mistaken for a user */
        "rediss://usr:Sup3rSecret@[::1]junk",
        "redis://usr:Sup%33rSecret@h:0",
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        rl_node_conf conf;
        char err[512];
        memset(&conf, 0, sizeof(conf));
        memset(err, 0, sizeof(err));
        int rc = rl_uri_parse(bad[k], strlen(bad[k]), &conf, err, sizeof(err));
        CHECK_EQ(rc, -1);
        if (rc == 0) rl_node_conf_free(&conf);
        if (strstr(err, "Sup3rSecret") || strstr(err, "Sup3") || strstr(err, "Secret"))
            check_failf(__FILE__, __LINE__, "error for %s leaks the password: %s", bad[k], err);
    }
}

static void test_node_conf_name(void)
{
    char buf[64];
    rl_node_conf c;
    memset(&c, 0, sizeof(c));
    CHECK_EQ(rl_uri_parse("[::1]:6380", 10, &c, NULL, 0), 0);
    CHECK_EQ(rl_node_conf_name(&c, buf, sizeof(buf)), strlen("[::1]:6380"));
    CHECK_STR(buf, "[::1]:6380");
    rl_node_conf_free(&c);
    CHECK_EQ(rl_uri_parse("redis://:pw@h:7", strlen("redis://:pw@h:7"), &c, NULL, 0), 0);
    rl_node_conf_name(&c, buf, sizeof(buf));
    CHECK_STR(buf, "h:7"); /* never the password */
    /* truncated into a small buffer */
    CHECK_EQ(rl_node_conf_name(&c, buf, 3), 2);
    CHECK_STR(buf, "h:");
    rl_node_conf_free(&c);
    CHECK_EQ(rl_uri_parse("unix:///tmp/r.sock", 18, &c, NULL, 0), 0);
    rl_node_conf_name(&c, buf, sizeof(buf));
    CHECK_STR(buf, "unix:/tmp/r.sock");
    rl_node_conf_free(&c);
}

static const test_case tests[] = {
    {"uri_accepted", test_uri_accepted},
    {"uri_rejected", test_uri_rejected},
    {"conf_fields", test_conf_fields},
    {"secret_copy_no_simd", test_secret_copy_no_simd},
    {"uri_error_never_has_password", test_uri_error_never_has_password},
    {"node_conf_name", test_node_conf_name},
};

const test_suite uri_suite = {tests, N_TESTS(tests)};
