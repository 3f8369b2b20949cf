/* nodes_fixture.h -- the real redis-server nodes of build/unit_tests, and a
 * fan-out over them (nodes_fixture.c).
 *
 * NNODES servers on free 127.0.0.1 ports (and a unix socket each), started
 * through tests/nodes.sh's `run` (the first time a test calls nodes_up(),
 * through NET_REQUIRE_NODES) with PR_SET_PDEATHSIG so they never outlive the
 * test binary, and stopped by pid at the end. Every wait is bounded. */
#ifndef RL_NODES_FIXTURE_H
#define RL_NODES_FIXTURE_H

#include "rl_internal.h"
#include "tests/check.h"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#define NNODES 5
#define NET_TIMEOUT_MS 1000

typedef struct tnode {
    pid_t pid;
    int port;
    int paused;
    char pw[64]; /* requirepass currently set on it, for the admin connection */
} tnode;

extern tnode g_node[NNODES];
extern char g_dir[64]; /* the nodes' directory (sockets, logs), under /tmp */

uint64_t mono_us(void);
void msleep(int ms);
/* a fatal signal stops the nodes; the whole binary gets 240 s */
void net_setup_signals(void);

/* ---- the nodes ---- */
int nodes_up(void); /* starts them the first time: 1 when they are up */
void nodes_stop_all(void);
int node_start(int i, int port); /* port 0: a free one */
int nodes_start_together(int n, const int *port); /* nodes 0..n-1 on their ports, side by side */
void node_stop(int i, int sig);
void node_pause(int i); /* SIGSTOP */
void node_resume(int i);
void node_sock_path(int i, char *buf, size_t len);
int free_node_port(void); /* tests/ports.h's free_port(): one seed for the program */
pid_t spawn_nodes_sh(const char *logf, const char *const *args);

/* ---- an admin connection of our own to node i ---- */
redisReply *admin(int i, int db, const char *fmt, ...);
long long admin_int(int i, int db, const char *fmt, ...);
int admin_ok(int i, const char *fmt, const char *arg);
long long wait_dbsize_zero(int i, int db, int ms);

/* ---- a fan-out over some nodes ---- */
typedef struct tnet {
    rl_conn *conns[RL_MAX_NODES];
    rl_net net;
    rl_transport tp;
    rl_ctx ctx;
    int n;
} tnet;

int tnet_open_uris(tnet *t, int n, const char *const *uris, int timeout_ms);
int tnet_open_fmt(tnet *t, int first, int n, const char *fmt);
int tnet_open(tnet *t, int n);
void tnet_close(tnet *t);
int echo_all(tnet *t, const char *payload, rl_result *res);
int reply_is(const rl_result *r, int type, const char *s);
void describe(const char *what, const rl_result *res, int n);
void check_answers(const rl_call *call, int n, int type, long long integer, const char *what);
void arg_push(rl_cmd *cmd, const char *s);
int contains(const char *hay, const char *needle);

/* the options of most network tests: one attempt, no wait */
static const rl_opts ONE_TRY = {
    .retry_count = 0, .retry_delay_ms = 10, .retry_jitter_ms = 5, .wait_ms = 0, .drift_factor = 0.01};

#define NET_REQUIRE_NODES()                                   \
    do {                                                      \
        if (!nodes_up()) {                                    \
            check_failf(__FILE__, __LINE__, "no test nodes"); \
            return;                                           \
        }                                                     \
    } while (0)

/* ---- a scripted node: a thread on a unix socket sends, for the k-th
 * request it reads, the k-th canned answer (bytes chosen by the test) ---- */
typedef struct scripted {
    char path[108];
    int lfd;
    const char *const *answers;
    int nanswers;
    pthread_t th;
} scripted;

int scripted_start(scripted *s, const char *const *answers, int n);
void scripted_stop(scripted *s);

/* The answers to what every new connection sends first, then rest, into buf (cap
 * bytes; returns buf): INFO server and INFO persistence (the identity, also with one
 * node), refused here: the node votes unchecked; then one SCRIPT LOAD per script of
 * the table (rlc_queue_scripts). */
const char *hs_replies(char *buf, size_t cap, const char *rest);

#endif
