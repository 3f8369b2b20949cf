/* redlock_metrics_text.c -- RedLock::metrics(): the metrics table in the Prometheus text format 0.0.4, and its
 * rows in phpinfo() (README "RedLock::metrics()").
 *
 * The reader trusts nothing it reads from the table (any process sharing it
 * can write it, a bug or a stray write can damage it): a node's name is
 * read up to RLM_NAME_LEN - 1 bytes, a prefix's length is clamped to
 * RLM_PREFIX_LEN, both copied before use, and a label is built in a fixed
 * buffer that is never grown (sized for the longest clamped name).
 *
 * rlm_render() uses no PHP API: tests/metrics/table_test.c compiles it (RLM_TABLE_ONLY) with the table. */
#include "redlock_metrics_table.h"
#ifndef RLM_TABLE_ONLY
#include "ext/standard/info.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the exposition (malloc'd, grown as needed) or a caller's fixed buffer (a label:
 * fixed set, never grown; what does not fit sets oom and is left out) */
typedef struct rlm_buf {
    char *s;
    size_t len, cap;
    int oom, fixed;
} rlm_buf;

static void buf_put(rlm_buf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        if (b->fixed) {
            b->oom = 1;
            return;
        }
        size_t cap = b->cap ? b->cap : 16384;
        while (cap < b->len + n + 1) cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_str(rlm_buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static void buf_u64(rlm_buf *b, uint64_t v)
{
    char tmp[24];
    buf_put(b, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v));
}

/* µs as decimal seconds, exactly: 2500 -> "0.0025", 1000000 -> "1" */
static void buf_seconds(rlm_buf *b, uint64_t us)
{
    char tmp[40];
    int n = snprintf(tmp, sizeof(tmp), "%llu.%06llu", (unsigned long long)(us / 1000000),
                     (unsigned long long)(us % 1000000));
    while (tmp[n - 1] == '0') n--;
    if (tmp[n - 1] == '.') n--;
    buf_put(b, tmp, (size_t)n);
}

/* length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, surrogate */
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0; /* overlong, > U+10FFFF */
    return len;
}

/* a label value: \ " and newline escaped; a socket path that is not UTF-8 gets U+FFFD for each bad byte */
static void buf_label(rlm_buf *b, const char *v)
{
    const unsigned char *s = (const unsigned char *)v;
    size_t n = strlen(v);
    while (n > 0) {
        size_t l = utf8_len(s, n);
        if (l == 0) {
            buf_str(b, "\xef\xbf\xbd");
            l = 1;
        } else if (*s == '\\') {
            buf_str(b, "\\\\");
        } else if (*s == '"') {
            buf_str(b, "\\\"");
        } else if (*s == '\n') {
            buf_str(b, "\\n");
        } else {
            buf_put(b, (const char *)s, l);
        }
        s += l;
        n -= l;
    }
}

/* A resource prefix as a label value, binary-safe and one-to-one (two prefixes never share a
 * label): a backslash and a double quote escaped as the format says; '%', control bytes
 * (newline too) and every byte that is not part of valid UTF-8 as %XX (upper-case hex), so
 * that each '%' of the value starts such an escape and the prefix's bytes can be read back. */
static void buf_prefix(rlm_buf *b, const char *v, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)v;
    while (n > 0) {
        size_t l = utf8_len(s, n);
        if (l == 0 || *s < 0x20 || *s == 0x7f || *s == '%') {
            char e[3] = {'%', hex[*s >> 4], hex[*s & 15]};
            buf_put(b, e, 3);
            l = 1;
        } else if (*s == '\\') {
            buf_str(b, "\\\\");
        } else if (*s == '"') {
            buf_str(b, "\\\"");
        } else {
            buf_put(b, (const char *)s, l);
        }
        s += l;
        n -= l;
    }
}

/* k="v" then tail, into the caller's buffer out of cap bytes, never grown; v escaped as a
 * resource prefix of n bytes (buf_prefix), or, with n RLM_NODE_LABEL, as a NUL-terminated
 * node name (buf_label). 0 when it does not fit: rlm_render sizes out for the longest
 * clamped name, so only a bug gets there, and the series is left out rather than cut. */
#define RLM_NODE_LABEL SIZE_MAX
static int label_of(char *out, size_t cap, const char *k, const char *v, size_t n, const char *tail)
{
    rlm_buf lb = {out, 0, cap, 0, 1};
    out[0] = '\0';
    buf_str(&lb, k);
    buf_str(&lb, "=\"");
    if (n == RLM_NODE_LABEL)
        buf_label(&lb, v);
    else
        buf_prefix(&lb, v, n);
    buf_str(&lb, "\"");
    buf_str(&lb, tail);
    return !lb.oom;
}

static void buf_head(rlm_buf *b, const char *name, const char *type, const char *help)
{
    buf_str(b, "# HELP ");
    buf_str(b, name);
    buf_str(b, " ");
    buf_str(b, help);
    buf_str(b, "\n# TYPE ");
    buf_str(b, name);
    buf_str(b, " ");
    buf_str(b, type);
    buf_str(b, "\n");
}

/* name{labels} value: labels is "" or `k="v",` pairs already escaped, without braces */
static void buf_sample(rlm_buf *b, const char *name, const char *labels, uint64_t v)
{
    buf_str(b, name);
    if (labels[0]) {
        buf_str(b, "{");
        buf_str(b, labels);
        buf_str(b, "}");
    }
    buf_str(b, " ");
    buf_u64(b, v);
    buf_str(b, "\n");
}

/* a histogram's values read once (so its buckets, +Inf and _count agree) */
typedef struct rlm_hist_snap {
    uint64_t bucket[RLM_HIST_MAX], sum_us;
} rlm_hist_snap;

static void hist_read(rlm_hist_snap *into, const rlm_hist *h, int add)
{
    if (!add) memset(into, 0, sizeof(*into));
    for (int i = 0; i < RLM_HIST_MAX; i++) into->bucket[i] += atomic_load_explicit(&h->bucket[i], memory_order_relaxed);
    into->sum_us += atomic_load_explicit(&h->sum_us, memory_order_relaxed);
}

/* name_bucket{labels,le="..."} cumulative, +Inf last, then name_sum and name_count; labels escaped, may be "" */
static void buf_hist(rlm_buf *b, const char *name, const char *labels, const rlm_bounds *bd, const rlm_hist_snap *h)
{
    uint64_t cum = 0;
    for (int i = 0; i <= bd->n; i++) {
        cum += h->bucket[i];
        buf_str(b, name);
        buf_str(b, "_bucket{");
        if (labels[0]) {
            buf_str(b, labels);
            buf_str(b, ",");
        }
        buf_str(b, "le=\"");
        if (i < bd->n)
            buf_seconds(b, bd->le_us[i]);
        else
            buf_str(b, "+Inf");
        buf_str(b, "\"} ");
        buf_u64(b, cum);
        buf_str(b, "\n");
    }
    buf_str(b, name);
    buf_str(b, "_sum");
    if (labels[0]) {
        buf_str(b, "{");
        buf_str(b, labels);
        buf_str(b, "}");
    }
    buf_str(b, " ");
    buf_seconds(b, h->sum_us);
    buf_str(b, "\n");
    char cname[96];
    snprintf(cname, sizeof(cname), "%s_count", name);
    buf_sample(b, cname, labels, cum);
}

/* the nodes of the table, one entry per name (slots of one name added up) */
typedef struct rlm_node_snap {
    char name[RLM_NAME_LEN]; /* a copy, NUL-terminated whatever the slot holds */
    uint64_t req[RLM_REQ_COUNT];
    rlm_hist_snap lat;
} rlm_node_snap;

static int nodes_read(const rlm_table *t, rlm_node_snap *out)
{
    int n = 0;
    for (int i = 0; i <= RLM_NODE_SLOTS; i++) {
        const rlm_node *s = &t->node[i];
        char name[RLM_NAME_LEN] = "other";
        if (i < RLM_NODE_SLOTS) {
            if (atomic_load_explicit(&s->state, memory_order_acquire) != RLM_READY) continue;
            /* at most RLM_NAME_LEN - 1 bytes, terminated here: the slot's own NUL is not trusted */
            size_t len = strnlen(s->name, RLM_NAME_LEN - 1);
            memcpy(name, s->name, len);
            name[len] = '\0';
        }
        rlm_node_snap *e = NULL;
        for (int j = 0; j < n && !e; j++)
            if (strcmp(out[j].name, name) == 0) e = &out[j];
        int add = e != NULL;
        if (!e) {
            e = &out[n];
            memset(e, 0, sizeof(*e));
            memcpy(e->name, name, sizeof(name));
        }
        uint64_t any = 0;
        for (int r = 0; r < RLM_REQ_COUNT; r++) {
            uint64_t v = atomic_load_explicit(&s->req[r], memory_order_relaxed);
            e->req[r] += v;
            any |= v;
        }
        hist_read(&e->lat, &s->lat, add);
        for (int k = 0; k < RLM_HIST_MAX; k++) any |= e->lat.bucket[k];
        /* "other" only once a node went there */
        if (!add && (i < RLM_NODE_SLOTS || any)) n++;
    }
    return n;
}

/* the resource prefixes of the table, one entry per prefix (slots of one prefix added up; a
 * prefix named "other" is counted with the bucket of that name) */
typedef struct rlm_res_snap {
    char name[RLM_PREFIX_LEN]; /* a copy of len bytes */
    size_t len;
    uint64_t c[RLM_RES_COUNT], hold_us;
} rlm_res_snap;

static int res_read(const rlm_table *t, rlm_res_snap *out)
{
    int n = 0;
    for (int i = 0; i <= RLM_RES_SLOTS; i++) {
        const rlm_res *s = &t->res[i];
        const char *name = "other";
        size_t len = 5;
        if (i < RLM_RES_SLOTS) {
            if (atomic_load_explicit(&s->state, memory_order_acquire) != RLM_READY) continue;
            name = s->name;
            len = s->len;
            if (len > RLM_PREFIX_LEN) len = RLM_PREFIX_LEN; /* damaged: never past the name */
        }
        uint64_t v[RLM_RES_COUNT + 1], any = 0;
        for (int c = 0; c < RLM_RES_COUNT; c++) any |= v[c] = atomic_load_explicit(&s->c[c], memory_order_relaxed);
        any |= v[RLM_RES_COUNT] = atomic_load_explicit(&s->hold_us, memory_order_relaxed);
        if (i == RLM_RES_OTHER && !any) continue; /* "other" only once a prefix went there */
        rlm_res_snap *e = NULL;
        for (int j = 0; j < n && !e; j++)
            if (out[j].len == len && memcmp(out[j].name, name, len) == 0) e = &out[j];
        if (!e) {
            e = &out[n++];
            memset(e, 0, sizeof(*e));
            memcpy(e->name, name, len);
            e->len = len;
        }
        for (int c = 0; c < RLM_RES_COUNT; c++) e->c[c] += v[c];
        e->hold_us += v[RLM_RES_COUNT];
    }
    return n;
}

/* by prefix, bytewise (a shorter one first): the same order from every worker */
static int res_cmp(const void *a, const void *b)
{
    const rlm_res_snap *x = a, *y = b;
    int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static uint64_t counter(const rlm_table *t, int c)
{
    return atomic_load_explicit(&t->counter[c], memory_order_relaxed);
}

char *rlm_render(const rlm_table *t, int shared, size_t *len)
{
    rlm_buf b = {0};
    rlm_node_snap *nodes = malloc(sizeof(*nodes) * (RLM_NODE_SLOTS + 1)); /* ~11 KiB: not on a thread's stack */
    rlm_res_snap *res = malloc(sizeof(*res) * (RLM_RES_SLOTS + 1));
    if (!nodes || !res) {
        free(nodes);
        free(res);
        return NULL;
    }
    int nn = nodes_read(t, nodes), nr = res_read(t, res);
    qsort(res, (size_t)nr, sizeof(*res), res_cmp);
    /* the longest label: a node name of RLM_NAME_LEN - 1 bytes, each 3 bytes escaped (U+FFFD), or a prefix
     * of RLM_PREFIX_LEN bytes each 3 (%XX); the fixed buffers below are never grown (rlm_buf.fixed) */
    char labels[(RLM_NAME_LEN - 1) * 3 + sizeof("node=\"\",result=\"timeout\"")];
    _Static_assert(RLM_PREFIX_LEN * 3 + sizeof("resource=\"\"") <= sizeof(labels), "a prefix label fits");

    buf_head(&b, "redlock_acquisitions_total", "counter",
             "Locks acquired by lock(), synchronized() and lockAll() (mode exclusive) and permits by "
             "semaphore() (mode permit); read locks (the option shared) count under mode shared.");
    buf_sample(&b, "redlock_acquisitions_total", "mode=\"exclusive\"", counter(t, REDLOCK_M_ACQ_EXCLUSIVE));
    buf_sample(&b, "redlock_acquisitions_total", "mode=\"shared\"", counter(t, REDLOCK_M_ACQ_SHARED));
    buf_sample(&b, "redlock_acquisitions_total", "mode=\"permit\"", counter(t, REDLOCK_M_ACQ_PERMIT));
    static const struct {
        const char *name, *help;
        int c;
    } plain[] = {
        {"redlock_conflicts_total",
         "lock() calls that returned null: another owner held the lock through every attempt, the validity came "
         "out <= 0, or the wait ran out.",
         REDLOCK_M_CONFLICTS},
        {"redlock_quorum_failures_total",
         "Calls that threw a QuorumException: fewer than a quorum of nodes answered (lock, isLocked, isHeld).",
         REDLOCK_M_QUORUM_FAILURES},
        {"redlock_lost_total",
         "auto_extend locks lost: a watchdog extension failed (counted when the request that held the lock ends).",
         REDLOCK_M_LOST},
        {"redlock_releases_total",
         "Releases a quorum confirmed: release(), synchronized() and request-end auto_release.", REDLOCK_M_RELEASES},
        {"redlock_attempts_total", "Acquisition attempts sent: the first of every lock() call and each retry.",
         REDLOCK_M_ATTEMPTS},
        {"redlock_wakeups_total",
         "Waits of lock() calls (wait, wake_on_release) that a release ended ahead of their retry timer, each sending "
         "the call to its next attempt.",
         REDLOCK_M_WAKEUPS},
    };
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        buf_head(&b, plain[i].name, "counter", plain[i].help);
        buf_sample(&b, plain[i].name, "", counter(t, plain[i].c));
    }
    buf_head(&b, "redlock_extensions_total", "counter",
             "Successful extensions: by=\"extend\" Lock::extend(), by=\"watchdog\" auto_extend (a worker reports "
             "its watchdog's at the end of each request, and when it calls metrics()).");
    buf_sample(&b, "redlock_extensions_total", "by=\"extend\"", counter(t, REDLOCK_M_EXTENSIONS));
    buf_sample(&b, "redlock_extensions_total", "by=\"watchdog\"", counter(t, REDLOCK_M_AUTO_EXTENSIONS));

    static const char *const results[RLM_REQ_COUNT] = {",result=\"ok\"", ",result=\"error\"", ",result=\"timeout\""};
    buf_head(&b, "redlock_node_requests_total", "counter",
             "Round trips to each node by result: ok, error (refused, i/o, authentication, error reply, back-off), "
             "timeout; what stats() counts, for the whole pool. node=\"other\": nodes beyond the table's 64.");
    for (int i = 0; i < nn; i++) {
        for (int r = 0; r < RLM_REQ_COUNT; r++) {
            if (label_of(labels, sizeof(labels), "node", nodes[i].name, RLM_NODE_LABEL, results[r]))
                buf_sample(&b, "redlock_node_requests_total", labels, nodes[i].req[r]);
        }
    }
    buf_head(&b, "redlock_node_latency_seconds", "histogram",
             "Round-trip time of the node answers a call waited for (a reply that comes after the call was decided "
             "counts as ok in redlock_node_requests_total, not here).");
    for (int i = 0; i < nn; i++) {
        if (label_of(labels, sizeof(labels), "node", nodes[i].name, RLM_NODE_LABEL, ""))
            buf_hist(&b, "redlock_node_latency_seconds", labels, &rlm_lat, &nodes[i].lat);
    }
    rlm_hist_snap h;
    buf_head(&b, "redlock_wait_seconds", "histogram",
             "Time from a lock() call to the acquisition, of the calls that acquired.");
    hist_read(&h, &t->wait, 0);
    buf_hist(&b, "redlock_wait_seconds", "", &rlm_wait, &h);
    buf_head(&b, "redlock_hold_seconds", "histogram",
             "Time from an acquisition to its release, of the releases a quorum confirmed.");
    hist_read(&h, &t->hold, 0);
    buf_hist(&b, "redlock_hold_seconds", "", &rlm_hold, &h);

    static const struct {
        const char *name, *help;
        int c;
    } per_res[] = {
        {"redlock_resource_acquisitions_total", "Locks acquired, by resource prefix (see redlock_acquisitions_total).",
         RLM_RES_ACQ},
        {"redlock_resource_conflicts_total", "lock() calls that returned null, by resource prefix.", RLM_RES_CONFLICT},
        {"redlock_resource_releases_total", "Releases a quorum confirmed, by resource prefix.", RLM_RES_RELEASE},
        {"redlock_resource_lost_total", "auto_extend and on_lost locks lost, by resource prefix.", RLM_RES_LOST},
        {"redlock_resource_hold_seconds_total",
         "Time from acquisition to release, summed over the releases a quorum confirmed of locks acquired by lock() "
         "(not restore()), by resource prefix.",
         -1},
    };
    for (size_t k = 0; k < sizeof(per_res) / sizeof(per_res[0]); k++) {
        char help[512];
        snprintf(help, sizeof(help),
                 "%s The prefix is the resource up to its first ':' (all of it without one; bytes that are not "
                 "UTF-8, control bytes and %% as %%XX); resource=\"other\": prefixes beyond the table's %d and "
                 "those over %d bytes.",
                 per_res[k].help, RLM_RES_SLOTS, RLM_PREFIX_LEN);
        buf_head(&b, per_res[k].name, "counter", help);
        for (int i = 0; i < nr; i++) {
            if (!label_of(labels, sizeof(labels), "resource", res[i].name, res[i].len, "")) continue;
            if (per_res[k].c >= 0) {
                buf_sample(&b, per_res[k].name, labels, res[i].c[per_res[k].c]);
            } else {
                buf_str(&b, per_res[k].name);
                buf_str(&b, "{");
                buf_str(&b, labels);
                buf_str(&b, "} ");
                buf_seconds(&b, res[i].hold_us);
                buf_str(&b, "\n");
            }
        }
    }

    uint64_t used = 0;
    for (int i = 0; i < RLM_NODE_SLOTS; i++)
        if (atomic_load_explicit(&t->node[i].state, memory_order_relaxed) != RLM_FREE) used++;
    buf_head(&b, "redlock_metrics_node_slots", "gauge",
             "Node slots of the metrics table in use, of 64 (nodes beyond are counted as node=\"other\"; a slot "
             "whose claim a stopped process left unfinished counts as in use).");
    buf_sample(&b, "redlock_metrics_node_slots", "", used);
    used = 0;
    for (int i = 0; i < RLM_RES_SLOTS; i++)
        if (atomic_load_explicit(&t->res[i].state, memory_order_relaxed) != RLM_FREE) used++;
    buf_head(&b, "redlock_metrics_resource_slots", "gauge",
             "Resource prefix slots of the metrics table in use, of 64 (prefixes beyond are counted as "
             "resource=\"other\").");
    buf_sample(&b, "redlock_metrics_resource_slots", "", used);
    buf_head(&b, "redlock_metrics_shared", "gauge",
             "1: the figures of every process sharing the table (the php-fpm workers that run as this user, or this "
             "process, its children and threads); 0: this process only (redlock.metrics=0, or no table to share).");
    buf_sample(&b, "redlock_metrics_shared", "", shared ? 1 : 0);
    free(nodes);
    free(res);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    *len = b.len;
    return b.s;
}

#ifndef RLM_TABLE_ONLY
/* ---------- the extension ---------- */

void php_redlock_metrics_info(void)
{
    char buf[RLM_WHY_LEN + 32];
    bool shared;
    const char *why;
    const rlm_table *t = php_redlock_metrics_table(&shared, &why);
    php_redlock_pool_report();
    if (shared) {
        snprintf(buf, sizeof(buf), "shared by %s, %zu KiB", why, (sizeof(rlm_table) + 1023) / 1024);
    } else {
        snprintf(buf, sizeof(buf), "this process only (%s)", why);
    }
    php_info_print_table_row(2, "Metrics", buf);
    static const struct {
        const char *label;
        int c;
    } rows[] = {
        {"Metrics: acquisitions", REDLOCK_M_ACQ_EXCLUSIVE},
        {"Metrics: conflicts", REDLOCK_M_CONFLICTS},
        {"Metrics: quorum failures", REDLOCK_M_QUORUM_FAILURES},
        {"Metrics: releases", REDLOCK_M_RELEASES},
        {"Metrics: extensions", REDLOCK_M_EXTENSIONS},
        {"Metrics: watchdog extensions", REDLOCK_M_AUTO_EXTENSIONS},
        {"Metrics: lost locks", REDLOCK_M_LOST},
        {"Metrics: attempts", REDLOCK_M_ATTEMPTS},
        {"Metrics: wake-ups", REDLOCK_M_WAKEUPS},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint64_t v = counter(t, rows[i].c);
        if (rows[i].c == REDLOCK_M_ACQ_EXCLUSIVE)
            v += counter(t, REDLOCK_M_ACQ_SHARED) + counter(t, REDLOCK_M_ACQ_PERMIT);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
        php_info_print_table_row(2, rows[i].label, buf);
    }
    int used = 0;
    for (int i = 0; i < RLM_NODE_SLOTS; i++)
        if (atomic_load_explicit(&t->node[i].state, memory_order_relaxed) != RLM_FREE) used++;
    snprintf(buf, sizeof(buf), "%d of %d", used, RLM_NODE_SLOTS);
    php_info_print_table_row(2, "Metrics: node slots", buf);
    used = 0;
    for (int i = 0; i < RLM_RES_SLOTS; i++)
        if (atomic_load_explicit(&t->res[i].state, memory_order_relaxed) != RLM_FREE) used++;
    snprintf(buf, sizeof(buf), "%d of %d", used, RLM_RES_SLOTS);
    php_info_print_table_row(2, "Metrics: resource prefix slots", buf);
}

PHP_METHOD(RedLock, metrics)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_pool_report();
    size_t len = 0;
    bool shared;
    const char *why;
    const rlm_table *t = php_redlock_metrics_table(&shared, &why);
    char *s = rlm_render(t, shared, &len);
    if (!s) {
        zend_throw_error(NULL, "RedLock::metrics(): out of memory");
        RETURN_THROWS();
    }
    RETVAL_STRINGL(s, len);
    free(s);
}
#endif
