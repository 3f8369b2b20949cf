/* tests/reply_diff.h -- the fan-out's reply fast path (rlc_take_simple) against
 * hiredis alone, on one byte stream: node_read_ex (rl_read.c) takes simple replies from
 * the front of each read and feeds the rest to hiredis; that must give the
 * same replies, in the same order, as hiredis given everything. Used by
 * tests/resp_tests.c (fixed and seeded random streams) and fuzz/fuzz_feed.c.
 * Needs rl_conn_struct.h and rl_conn_test.h. */
#ifndef RL_TESTS_REPLY_DIFF_H
#define RL_TESTS_REPLY_DIFF_H

#include <string.h>

#define RD_MAX 64

typedef struct rd_seq {
    int n, err; /* replies, and whether the parser failed after them */
    rl_reply r[RD_MAX];
    int fast; /* of them, taken by the fast path */
} rd_seq;

static rl_conn *rd_conn(void)
{
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    conf.socket = (char *)"/nonexistent";
    return rl_conn_new(&conf);
}

static void rd_drain(rl_conn *c, rd_seq *s)
{
    for (;;) {
        int r = rlc_next_reply(c);
        if (r < 0) {
            s->err = 1;
            return;
        }
        if (r == 0 || s->n == RD_MAX) return;
        s->r[s->n++] = c->slot;
    }
}

/* the stream cut into reads of chunk bytes (0: one read); fast: as node_read_ex */
static int rd_parse(const char *buf, size_t len, size_t chunk, int fast, rd_seq *s)
{
    memset(s, 0, sizeof(*s));
    rl_conn *c = rd_conn();
    if (!c) return -1;
    for (size_t at = 0; at < len && !s->err && s->n < RD_MAX;) {
        size_t n = chunk && len - at > chunk ? chunk : len - at;
        size_t off = 0, used;
        while (fast && off < n && s->n < RD_MAX && (used = rlc_take_simple(c, buf + at + off, n - off)) > 0) {
            off += used;
            s->r[s->n++] = c->slot;
            s->fast++;
        }
        if (off < n) {
            if (rlc_feed(c, buf + at + off, n - off) != 0)
                s->err = 1;
            else
                rd_drain(c, s);
        }
        at += n;
    }
    rl_conn_free(c);
    return 0;
}

static int rd_same_reply(const rl_reply *a, const rl_reply *b)
{
    if (a->type != b->type || a->naux != b->naux) return 0;
    if (a->type == RL_REPLY_INTEGER || a->type == RL_REPLY_ARRAY) return a->integer == b->integer;
    if (a->type == RL_REPLY_NIL) return 1;
    return a->len == b->len && strcmp(a->str, b->str) == 0 &&
           memcmp(a->str, b->str, a->len < sizeof(a->str) ? a->len : sizeof(a->str) - 1) == 0;
}

/* 1: both ways agree (replies, order; a parser error after the same replies
 * or, with the fast path, no earlier than hiredis's); *fast: how many the fast
 * path took */
static int rd_agree(const char *buf, size_t len, size_t chunk, int *fast)
{
    rd_seq a, b;
    if (rd_parse(buf, len, chunk, 0, &a) != 0 || rd_parse(buf, len, chunk, 1, &b) != 0) return -1;
    if (fast) *fast = b.fast;
    if (a.n != b.n || a.err != b.err) return 0;
    for (int i = 0; i < a.n; i++)
        if (!rd_same_reply(&a.r[i], &b.r[i])) return 0;
    return 1;
}

#endif
