/* tls_tests.c -- TLS connections (rl_tls.c) to nodes of tests/nodes.sh
 * (run-tls): session resumption, the passphrase wiped once the key is loaded.
 * A suite of build/unit_tests; empty in a build without TLS (make TLS=0). */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/nodes_fixture.h"
#include "tests/unit_tests.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef RL_HAVE_TLS
#include <openssl/ssl.h>
#endif

#ifdef RL_HAVE_TLS
/* A TLS node of tests/nodes.sh (run-tls KIND: tls, mtls), on certificates of
 * its own in g_dir/tls, and a fan-out of one connection to it. */
typedef struct tls_node {
    pid_t pid;
    int port;
    char certs[96], logf[96];
    tnet t;
} tls_node;

static void tls_file(const tls_node *n, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", n->certs, name);
}

static int tls_node_start(tls_node *n, const char *kind)
{
    char portbuf[16];
    int st = 0;
    memset(n, 0, sizeof(*n));
    snprintf(n->certs, sizeof(n->certs), "%s/tls", g_dir);
    snprintf(n->logf, sizeof(n->logf), "%s/tls.log", g_dir);
    const char *mk[] = {"certs", n->certs, NULL};
    pid_t p = spawn_nodes_sh(n->logf, mk);
    if (p <= 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
    n->port = free_node_port();
    snprintf(portbuf, sizeof(portbuf), "%d", n->port);
    const char *run[] = {"run-tls", portbuf, g_dir, "tlsnode", n->certs, kind, NULL};
    n->pid = spawn_nodes_sh(n->logf, run);
    return n->pid > 0 ? 0 : -1;
}

/* n->t over one connection with conf (TLS to the node, trusting its CA) */
static int tls_node_conn(tls_node *n, rl_node_conf *conf)
{
    char uri[64], err[128], ca[128];
    memset(conf, 0, sizeof(*conf));
    snprintf(uri, sizeof(uri), "rediss://127.0.0.1:%d", n->port);
    tls_file(n, "ca.crt", ca, sizeof(ca));
    if (rl_uri_parse(uri, strlen(uri), conf, err, sizeof(err)) != 0) return -1;
    conf->tls_conf.cafile = strdup(ca);
    conf->connect_timeout_ms = 2000;
    conf->timeout_ms = 2000;
    return 0;
}

static void tls_net(tnet *t, rl_conn *c)
{
    memset(t, 0, sizeof(*t));
    t->conns[0] = c;
    t->n = 1;
    t->net = (rl_net){.conns = t->conns, .n = 1, .clock = &rl_clock_monotonic};
}

/* ECHO until the node answers (it is starting: refused, back-off, then up) */
static int tls_wait_up(tnet *t)
{
    rl_result res[1];
    for (int k = 0; k < 100; k++) {
        if (echo_all(t, "hello", res) == 1) return 0;
        msleep(100);
    }
    return -1;
}

static void tls_node_stop(tls_node *n)
{
    char cmd[400];
    if (n->pid > 0) {
        kill(n->pid, SIGKILL);
        waitpid(n->pid, NULL, 0);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s/tlsnode.log'", n->certs, n->logf, g_dir);
    if (system(cmd) != 0) {}
}

/* TLS session resumption: a connection opened again resumes the session of
 * the one before (no full handshake), also under TLS 1.3, whose tickets come
 * after the handshake. */
static void test_net_tls_resumption(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    tls_node n;
    rl_node_conf conf;
    REQUIRE(tls_node_start(&n, "tls") == 0);
    REQUIRE(tls_node_conn(&n, &conf) == 0);
    tnet t;
    tls_net(&t, rl_conn_new(&conf));
    rl_node_conf_free(&conf);
    REQUIRE(t.conns[0] != NULL);
    REQUIRE(tls_wait_up(&t) == 0);
    rl_result res[1];
    rl_conn *c = t.conns[0];
    CHECK_EQ(SSL_session_reused((SSL *)c->sess.tls), 0); /* the first: a full handshake */
    /* TLS 1.3, then 1.2 (CONFIG SET: for the connections after it) */
    const char *protos[2] = {"TLSv1.3", "TLSv1.2"};
    for (int v = 0; v < 2; v++) {
        if (v == 1) {
            rl_cmd cfg;
            memset(&cfg, 0, sizeof(cfg));
            const char *a[4] = {"CONFIG", "SET", "tls-protocols", "TLSv1.2"};
            cfg.argc = 4;
            for (int k = 0; k < 4; k++) cfg.argv[k] = a[k], cfg.argvlen[k] = strlen(a[k]);
            REQUIRE(rl_net_fanout(&t.net, &cfg, res, 1, NULL, NULL) == 0 && reply_is(&res[0], RL_REPLY_STATUS, "OK"));
            rl_conn_close(c);
            CHECK_EQ(echo_all(&t, "v1.2", res), 1); /* a 1.3 session does not resume 1.2: a full handshake */
        }
        uint64_t connects = c->st.connects;
        for (int round = 1; round <= 2; round++) {
            /* closed as a fork child or a stale check closes it: no close_notify */
            rl_conn_close(c);
            CHECK_EQ(echo_all(&t, "again", res), 1);
            CHECK_EQ(c->st.connects, connects + (uint64_t)round);
            CHECK_EQ(c->sess.tls ? SSL_session_reused((SSL *)c->sess.tls) : -1, 1);
            if (c->sess.tls) CHECK_STR(SSL_get_version((SSL *)c->sess.tls), protos[v]);
        }
    }
    tnet_close(&t);
    tls_node_stop(&n);
}

/* A connection wipes its TLS passphrase once its client key is loaded (a
 * pooled connection lives as long as the worker); a connection made later
 * from its settings takes its TLS context along (rl_conn_tls_share), since
 * it could not open the key itself. Against a node that wants client
 * certificates (mtls), with the passphrase-protected key. */
static void test_net_tls_passphrase_dropped(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    tls_node n;
    rl_node_conf conf;
    char cert[128], key[128];
    REQUIRE(tls_node_start(&n, "mtls") == 0);
    REQUIRE(tls_node_conn(&n, &conf) == 0);
    tls_file(&n, "client.crt", cert, sizeof(cert));
    tls_file(&n, "client-enc.key", key, sizeof(key));
    conf.tls_conf.local_cert = strdup(cert);
    conf.tls_conf.local_pk = strdup(key);
    conf.tls_conf.passphrase = strdup("tls-key-passphrase"); /* tests/nodes.sh TLS_PASSPHRASE */
    tnet a, b, c;
    tls_net(&a, rl_conn_new(&conf));
    rl_node_conf_free(&conf);
    REQUIRE(a.conns[0] != NULL);
    CHECK(rl_conn_conf(a.conns[0])->tls_conf.passphrase != NULL); /* not needed yet: kept */
    REQUIRE(tls_wait_up(&a) == 0);
    CHECK(rl_conn_conf(a.conns[0])->tls_conf.passphrase == NULL); /* the key is loaded: wiped */
    /* the same connection connects again (its context kept) */
    rl_result res[1];
    rl_conn_close(a.conns[0]);
    CHECK_EQ(echo_all(&a, "again", res), 1);
    /* a copy of its settings, with its context: connects; without: cannot load the key */
    tls_net(&b, rl_conn_new(rl_conn_conf(a.conns[0])));
    rl_conn_tls_share(b.conns[0], a.conns[0]);
    CHECK_EQ(echo_all(&b, "shared", res), 1);
    tls_net(&c, rl_conn_new(rl_conn_conf(a.conns[0])));
    CHECK_EQ(echo_all(&c, "alone", res), 0);
    CHECK(contains(res[0].reason, "client certificate"));
    tnet_close(&a);
    CHECK_EQ(echo_all(&b, "after", res), 1); /* the context outlives the connection it came from */
    tnet_close(&b);
    tnet_close(&c);
    tls_node_stop(&n);
}

static const test_case tests[] = {
    {"net_tls_resumption", test_net_tls_resumption},
    {"net_tls_passphrase_dropped", test_net_tls_passphrase_dropped},
};

const test_suite tls_suite = {tests, N_TESTS(tests)};
#else
const test_suite tls_suite = {NULL, 0};
#endif
