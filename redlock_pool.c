/* redlock_pool.c -- the connection pool of this worker: its one owner. A group
 * takes its connections here (php_redlock_pool_get, _get_sub); request end
 * flushes it (php_redlock_pool_flush); stats() and phpinfo() read it through
 * php_redlock_pool_each() and php_redlock_pool_counts(); its connections'
 * figures go into the metrics table from here (php_redlock_pool_report). No
 * other file touches REDLOCK_G(pool). */
#include "php_redlock_int.h"

#include "ext/standard/md5.h"
#include "ext/hash/php_hash.h"
#include "ext/hash/php_hash_sha.h"
#include "zend_smart_str.h"

#define POOL (&REDLOCK_G(pool))

void php_redlock_pool_ginit(HashTable *pool) { zend_hash_init(pool, 8, NULL, php_redlock_pooled_dtor, 1); }

void php_redlock_pool_gshutdown(HashTable *pool) { zend_hash_destroy(pool); }

/* ---------- the connection pool of this worker ---------- */

void php_redlock_pooled_dtor(zval *zv)
{
    php_redlock_pooled *p = Z_PTR_P(zv);
    rl_conn_free(p->conn);
    free(p->ident);
    free(p);
}

/* The key of the pool keys' keyed hash: random per process, drawn once in
 * MINIT (before any thread of a ZTS build exists), read-only after. */
static unsigned char pool_hash_key[32];

zend_result php_redlock_pool_key_init(void)
{
    return rl_random_system.fill(rl_random_system.ctx, pool_hash_key, sizeof(pool_hash_key)) == 0 ? SUCCESS : FAILURE;
}

/* HMAC-SHA256 (RFC 2104) of a secret under pool_hash_key, in hex: the pool
 * key never holds a secret, nor a plain hash of one that a core dump would
 * let anyone test guesses against offline */
static void append_secret_hash(smart_str *s, const char *secret)
{
    PHP_SHA256_CTX ctx;
    unsigned char pad[64], digest[32];
    char hex[65];
    for (int outer = 0; outer < 2; outer++) {
        memset(pad, outer ? 0x5c : 0x36, sizeof(pad));
        for (size_t i = 0; i < sizeof(pool_hash_key); i++) pad[i] ^= pool_hash_key[i];
        PHP_SHA256Init(&ctx);
        PHP_SHA256Update(&ctx, pad, sizeof(pad));
        if (outer)
            PHP_SHA256Update(&ctx, digest, sizeof(digest));
        else
            PHP_SHA256Update(&ctx, (const unsigned char *)secret, strlen(secret));
        PHP_SHA256Final(digest, &ctx);
    }
    make_digest_ex(hex, digest, 32);
    smart_str_appendl(s, hex, 64);
    ZEND_SECURE_ZERO(&ctx, sizeof(ctx));
    ZEND_SECURE_ZERO(pad, sizeof(pad));
}

/* one setting of the identity: "|name=<length>:<value>" (a path may contain any
 * byte but NUL), "|name=-" when not set, a secret as its keyed hash */
static void put_setting(void *ctx, const char *name, const char *v, size_t len, int secret)
{
    smart_str *s = ctx;
    smart_str_appendc(s, '|');
    smart_str_appends(s, name);
    smart_str_appendc(s, '=');
    if (!v) {
        smart_str_appendc(s, '-');
    } else if (secret) {
        append_secret_hash(s, v); /* a keyed hash of the secret, never the secret */
    } else {
        smart_str_append_unsigned(s, len);
        smart_str_appendc(s, ':');
        smart_str_appendl(s, v, len);
    }
}

/* every connection setting is part of the identity (rl_node_conf_identity:
 * each field of RL_NODE_CONF_FIELDS): another CA, client certificate, peer
 * name or password is another connection */
static void pool_identity(smart_str *s, const rl_node_conf *c, bool persistent)
{
    rl_node_conf_identity(c, put_setting, s);
    smart_str_appends(s, persistent ? "|p" : "|np"); /* (a subscriber's: then "|sub", php_redlock_pool_get_sub) */
    smart_str_0(s);
}

/* The pooled connection of key, made with conf (and like's TLS context) when
 * there is none yet. */
static php_redlock_pooled *pool_get_key(zend_string *key, const rl_node_conf *conf, bool persistent, bool sub,
                                        const rl_conn *like)
{
    /* str variants: the persistent table makes its own persistent key copy */
    php_redlock_pooled *p = zend_hash_str_find_ptr(POOL, ZSTR_VAL(key), ZSTR_LEN(key));
    if (p) return p;
    p = calloc(1, sizeof(*p));
    if (p) p->conn = sub ? rl_conn_new_subscriber(conf) : rl_conn_new(conf);
    if (p) p->ident = strndup(ZSTR_VAL(key), ZSTR_LEN(key));
    if (!p || !p->conn || !p->ident) {
        if (p) rl_conn_free(p->conn);
        if (p) free(p->ident);
        free(p);
        return NULL;
    }
    if (like) rl_conn_tls_share(p->conn, like);
    p->persistent = persistent;
    p->sub = sub;
    rl_node_conf_name(conf, p->name, sizeof(p->name));
    if (!sub) php_redlock_metrics_track(p);
    zend_hash_str_add_new_ptr(POOL, ZSTR_VAL(key), ZSTR_LEN(key), p);
    return p;
}

php_redlock_pooled *php_redlock_pool_get(const rl_node_conf *conf, bool persistent)
{
    smart_str key = {0};
    pool_identity(&key, conf, persistent);
    php_redlock_pooled *p = pool_get_key(key.s, conf, persistent, false, NULL);
    smart_str_free(&key);
    return p;
}

/* The subscriber connection next to command connection cmd: its identity
 * plus "|sub" (the command connection's settings may have lost their TLS
 * passphrase once its key was loaded: the subscriber takes its TLS context). */
php_redlock_pooled *php_redlock_pool_get_sub(const php_redlock_pooled *cmd)
{
    smart_str key = {0};
    smart_str_appends(&key, cmd->ident);
    smart_str_appends(&key, "|sub");
    smart_str_0(&key);
    php_redlock_pooled *p = pool_get_key(key.s, rl_conn_conf(cmd->conn), cmd->persistent, true, cmd->conn);
    smart_str_free(&key);
    return p;
}

void php_redlock_pool_each(php_redlock_pool_fn fn, void *ctx)
{
    php_redlock_pooled *p;
    ZEND_HASH_FOREACH_PTR(POOL, p) {
        fn(p, ctx);
    } ZEND_HASH_FOREACH_END();
}

/* (subscribers carry no lock command: the metrics table has no slot of theirs) */
void php_redlock_pool_report(void)
{
    php_redlock_pooled *p;
    ZEND_HASH_FOREACH_PTR(POOL, p) {
        if (!p->sub) php_redlock_metrics_report(p);
    } ZEND_HASH_FOREACH_END();
    php_redlock_metrics_report_watchdog();
}

void php_redlock_pool_retrack(void)
{
    php_redlock_pooled *p;
    ZEND_HASH_FOREACH_PTR(POOL, p) {
        if (!p->sub) php_redlock_metrics_retrack(p);
    } ZEND_HASH_FOREACH_END();
}

uint32_t php_redlock_pool_size(void) { return zend_hash_num_elements(POOL); }

void php_redlock_pool_counts(uint32_t *pooled, uint32_t *open)
{
    php_redlock_pooled *p;
    *pooled = zend_hash_num_elements(POOL);
    *open = 0;
    ZEND_HASH_FOREACH_PTR(POOL, p) {
        if (rl_conn_is_open(p->conn)) (*open)++;
    } ZEND_HASH_FOREACH_END();
}

void php_redlock_pool_flush(void)
{
    /* Before the process moves on (a CLI job may make no further call):
     * - what is still unwritten goes out now: a SET or release held behind a
     *   connect or an AUTH/SELECT gate, or behind a full socket;
     * - releases answered late may have met a NOSCRIPT (SCRIPT FLUSH): their
     *   retry goes out in this request;
     * - a non-persistent connection is closed only once nothing of ours is in
     *   flight on it: closing earlier could drop a release, or let an older
     *   SET still queued at the node land after it. Until then it stays (and
     *   is settled at a later request end).
     * Bounded by the nodes' own timeouts (at most 1 s). */
    php_redlock_pooled *p;
    /* every connection of the pool, however many (more than a call's
     * RL_MAX_NODES: several RedLock objects, databases, subscribers) */
    uint32_t cap = zend_hash_num_elements(POOL);
    rl_conn **busy = cap ? emalloc(sizeof(*busy) * cap) : NULL;
    int nbusy = 0, wait_ms = 20;
    ZEND_HASH_FOREACH_PTR(POOL, p) {
        rl_conn *c = p->conn;
        if (rl_conn_unsent(c) || rl_conn_late_scripts(c) || (!p->persistent && rl_conn_busy(c))) {
            busy[nbusy++] = c;
            int t = rl_conn_conf(c)->timeout_ms;
            if (t > wait_ms) wait_ms = t;
        }
    } ZEND_HASH_FOREACH_END();
    if (nbusy) {
        rl_net net = {.conns = busy, .n = nbusy, .clock = &rl_clock_monotonic};
        rl_net_drain(&net, (uint64_t)(wait_ms < 1000 ? wait_ms : 1000) * 1000u);
    }
    if (busy) efree(busy);
    ZEND_HASH_FOREACH_PTR(POOL, p) {
        if (!p->persistent && !rl_conn_busy(p->conn)) rl_conn_close(p->conn);
    } ZEND_HASH_FOREACH_END();
    /* replies read by the drain, the watchdog's extensions: into the pool's metrics */
    php_redlock_pool_report();
}

