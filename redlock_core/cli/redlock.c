/* redlock.c -- redlock(1): flock(1) across hosts. Runs a command while holding a RedLock on several
 * Redis masters, kept alive by the core's watchdog; built from redlock_core/ alone (no PHP). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#define DEFAULT_TTL_MS 30000
#define DEFAULT_KILL_GRACE_MS 5000
#define NODE_TIMEOUT_MS 50 /* connect and round trip, per node: the extension's defaults */
#define MAX_RESOURCE 512   /* as the extension */
#define MAX_PREFIX 512
#define TICK_MS 50 /* how often the lock's state is looked at while COMMAND runs */

typedef struct cli {
    const char *nodes; /* -n or $REDLOCK_NODES */
    const char *nodes_from;
    long ttl_ms, wait_ms, conflict_exit, max_hold_ms, kill_grace_ms;
    int quiet, fencing, check;
    const char *prefix;
    const char *tls_cafile, *tls_cert, *tls_key;
    int tls_no_verify;
    const char *resource;
    char **command;
    rl_node_conf confs[RL_MAX_NODES];
    int n;
} cli;

static void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("redlock: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void usage(FILE *f)
{
    fputs("usage: redlock [options] RESOURCE -- COMMAND [ARG...]\n"
          "       redlock [options] --check RESOURCE   (exit 0 when locked by anyone, 1 when not)\n"
          "\n"
          "  -n, --nodes LIST          comma-separated node URIs (default: $REDLOCK_NODES):\n"
          "                            redis://[user:password@]host[:port][/db], rediss://..., unix:///path, host:port\n"
          "  -t, --ttl MS              lock TTL, extended every third of it while COMMAND runs (30000)\n"
          "  -w, --wait MS             keep trying for up to MS (0: one attempt)\n"
          "  -E, --conflict-exit CODE  exit status when the lock is held elsewhere (1)\n"
          "  -q, --quiet               no message on conflict\n"
          "      --prefix STR          key prefix (the Redis key is PREFIX RESOURCE)\n"
          "      --fencing             take a fencing token, passed to COMMAND as REDLOCK_FENCE\n"
          "      --max-hold MS         stop extending after MS; the lock then expires by its TTL (0: no limit)\n"
          "      --kill-grace MS       on lock loss: SIGTERM to COMMAND's process group, SIGKILL after MS (5000)\n"
          "      --tls-cafile FILE, --tls-cert FILE, --tls-key FILE, --tls-no-verify\n"
          "                            TLS settings for rediss:// nodes\n"
          "  -h, --help                this help\n"
          "      --version             the version (the same as the PHP extension's)\n"
          "\n"
          "Passwords may come from the URI or $REDLOCK_PASSWORD (for nodes whose URI has none).\n"
          "COMMAND's environment has REDLOCK_RESOURCE, REDLOCK_TOKEN (and REDLOCK_FENCE), no\n"
          "REDLOCK_PASSWORD, and REDLOCK_NODES without the passwords of its URIs (not at all when\n"
          "an entry of it does not read as a node).\n"
          "COMMAND runs in a process group of its own, with the terminal when redlock has it.\n"
          "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are passed on to it (before it runs,\n"
          "they end redlock: 128+N). When COMMAND stops (Ctrl-Z), redlock stops too; continued, it\n"
          "extends the lock before COMMAND goes on, and kills COMMAND when the lock is gone. When\n"
          "redlock dies, COMMAND's process group is killed.\n"
          "Exit status: COMMAND's (128+N when it died of signal N); the --conflict-exit code on a\n"
          "conflict; 69 when no quorum of nodes could be reached; 64 on a usage error; 70 when the\n"
          "lock was lost while COMMAND ran. See redlock(1).\n",
          f);
}

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("redlock: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'redlock -h' for more information.\n", stderr);
    va_end(ap);
    return EX_USAGE;
}

/* a whole decimal number (digits only) in [min, max]; *ok = 0 when it is not */
static long parse_num(const char *s, long min, long max, int *ok)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    *ok = *s >= '0' && *s <= '9' && !*end && errno == 0 && v >= min && v <= max;
    return v;
}

/* ---- nodes ---- */

/* REDLOCK_PASSWORD for a URI naming a user but no password
 * ("redis://user@host"): the URI again with the password, percent-encoded,
 * in memory only (never on a command line). NULL when not that form. */
static char *uri_with_password(const char *uri, size_t len, const char *pw)
{
    const char *scheme_end = NULL;
    if (len > 8 && memcmp(uri, "redis://", 8) == 0) scheme_end = uri + 8;
    if (len > 9 && memcmp(uri, "rediss://", 9) == 0) scheme_end = uri + 9;
    if (!scheme_end) return NULL;
    const char *end = uri + len, *at = NULL;
    for (const char *p = scheme_end; p < end; p++)
        if (*p == '@') at = p;
    if (!at || at == scheme_end || memchr(scheme_end, ':', (size_t)(at - scheme_end))) return NULL;
    size_t pwlen = strlen(pw);
    char *out = malloc(len + 3 * pwlen + 2);
    if (!out) return NULL;
    size_t o = (size_t)(at - uri);
    memcpy(out, uri, o);
    out[o++] = ':';
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < pwlen; i++) {
        unsigned char ch = (unsigned char)pw[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr("-._~", ch)) {
            out[o++] = (char)ch;
        } else {
            out[o++] = '%';
            out[o++] = hex[ch >> 4];
            out[o++] = hex[ch & 15];
        }
    }
    memcpy(out + o, at, (size_t)(end - at));
    o += (size_t)(end - at);
    out[o] = '\0';
    return out;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int parse_nodes(cli *c)
{
    const char *pw = getenv("REDLOCK_PASSWORD");
    if (pw && !*pw) pw = NULL;
    if (pw && strlen(pw) > RL_PASSWORD_MAX)
        return usage_error("REDLOCK_PASSWORD is longer than %d bytes", RL_PASSWORD_MAX);
    const char *s = c->nodes;
    int idx = 0;
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        /* surrounding blanks are not part of a URI */
        const char *b = s;
        size_t l = len;
        while (l && (*b == ' ' || *b == '\t')) b++, l--;
        while (l && (b[l - 1] == ' ' || b[l - 1] == '\t')) l--;
        idx++;
        if (l == 0) return usage_error("node %d of %s is empty", idx, c->nodes_from);
        if (c->n == RL_MAX_NODES) return usage_error("at most %d nodes", RL_MAX_NODES);
        rl_node_conf *conf = &c->confs[c->n];
        char err[160];
        memset(conf, 0, sizeof(*conf));
        conf->connect_timeout_ms = NODE_TIMEOUT_MS;
        conf->timeout_ms = NODE_TIMEOUT_MS;
        char *with_pw = pw ? uri_with_password(b, l, pw) : NULL;
        int rc = with_pw ? rl_uri_parse(with_pw, strlen(with_pw), conf, err, sizeof(err))
                         : rl_uri_parse(b, l, conf, err, sizeof(err));
        rl_secret_free(with_pw); /* the password in it: wiped, by a wipe the compiler keeps */
        /* the message names the node by its place: the URI may hold a password */
        if (rc != 0) return usage_error("node %d of %s: %s", idx, c->nodes_from, err);
        c->n++;
        if (!conf->password && pw) {
            conf->password = rl_secret_dup(pw, strlen(pw));
            if (!conf->password) return usage_error("out of memory");
        }
        if (conf->tls) {
            conf->tls_conf.cafile = dup_or_null(c->tls_cafile);
            conf->tls_conf.local_cert = dup_or_null(c->tls_cert);
            conf->tls_conf.local_pk = dup_or_null(c->tls_key);
            conf->tls_conf.no_verify_peer = c->tls_no_verify;
            conf->tls_conf.no_verify_peer_name = c->tls_no_verify;
        }
        s += len;
        if (*s == ',') s++;
    }
    if (c->n == 0) return usage_error("no nodes in %s", c->nodes_from);
    int first, second;
    int dup = rl_node_confs_find_same_server(c->confs, c->n, &first, &second);
    if (dup < 0) return usage_error("out of memory");
    if (dup) {
        char a[128], b2[128];
        rl_node_conf_name(&c->confs[first], a, sizeof(a));
        rl_node_conf_name(&c->confs[second], b2, sizeof(b2));
        return usage_error("nodes %d (%s) and %d (%s) are the same server (a server may appear only once)",
                           first + 1, a, second + 1, b2);
    }
    for (int i = 0; i < c->n; i++) {
        if (c->confs[i].tls && !rl_tls_available()) {
            /* never sent in clear instead */
            char name[128];
            rl_node_conf_name(&c->confs[i], name, sizeof(name));
            msg("node %d (%s) uses TLS (rediss://), which this build of redlock does not support (built without OpenSSL)",
                i + 1, name);
            return EX_UNAVAILABLE;
        }
    }
    return 0;
}

/* ---- signals ---- */

/* All the signals redlock acts on are blocked from the start (the watchdog
 * thread blocks every signal) and taken with sigtimedwait, at the points
 * below; one the caller ignores (as nohup does) stays ignored: it is neither
 * blocked nor passed on.
 * - forwarded: to COMMAND's process group while it runs; before it runs
 *   (the lock being taken, --wait) one of them ends redlock: 128+N, what an
 *   attempt may have set is released, COMMAND is not run;
 * - stops (SIGTSTP, SIGTTIN, SIGTTOU): to COMMAND's group, whose stop stops
 *   redlock (job_stopped); before COMMAND runs they stop redlock;
 * - SIGCONT: COMMAND goes on, under a lock confirmed then (job_continue);
 * - SIGCHLD wakes the wait for COMMAND.
 * SIGPIPE is blocked only: a write to the guard's pipe after the guard is
 * gone must fail, not kill redlock. COMMAND gets the caller's mask back. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
static const int stops[] = {SIGTSTP, SIGTTIN, SIGTTOU};
#define N_FORWARDED ((int)(sizeof(forwarded) / sizeof(forwarded[0])))
#define N_STOPS ((int)(sizeof(stops) / sizeof(stops[0])))
static sigset_t wait_set, orig_mask;
static int got_sig; /* a forwarded signal taken before COMMAND runs */

static int caller_ignores(int sig)
{
    struct sigaction sa;
    sigaction(sig, NULL, &sa);
    return sa.sa_handler == SIG_IGN;
}

static void block_signals(void)
{
    sigemptyset(&wait_set);
    sigaddset(&wait_set, SIGCHLD);
    sigaddset(&wait_set, SIGCONT);
    for (int i = 0; i < N_FORWARDED; i++)
        if (!caller_ignores(forwarded[i])) sigaddset(&wait_set, forwarded[i]);
    for (int i = 0; i < N_STOPS; i++)
        if (!caller_ignores(stops[i])) sigaddset(&wait_set, stops[i]);
    /* a caller that ignores SIGCHLD would make the child unwaitable */
    signal(SIGCHLD, SIG_DFL);
    sigset_t block = wait_set;
    sigaddset(&block, SIGPIPE);
    /* before the watchdog thread exists (it blocks all signals anyway) */
    sigprocmask(SIG_BLOCK, &block, &orig_mask);
}

static int in_set(int sig, const int *set, int n)
{
    for (int i = 0; i < n; i++)
        if (set[i] == sig) return 1;
    return 0;
}

/* Stop redlock itself with sig, as its shell expects of a job whose
 * command stopped. 1 once continued (its SIGCONT taken here); 0 when it did
 * not stop: the caller ignores sig, or redlock's process group is orphaned
 * (no job control: the kernel drops SIGTSTP, SIGTTIN and SIGTTOU then). */
static int stop_self(int sig)
{
    sigset_t one, cont;
    struct timespec zero = {0, 0};
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigemptyset(&cont);
    sigaddset(&cont, SIGCONT);
    while (sigtimedwait(&cont, NULL, &zero) == SIGCONT) {} /* an earlier SIGCONT does not end this stop */
    kill(getpid(), sig);                                   /* pending: blocked in every thread */
    /* taken here, with its default action: every thread stops until SIGCONT */
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    pthread_sigmask(SIG_BLOCK, &one, NULL);
    return sigtimedwait(&cont, NULL, &zero) == SIGCONT;
}

static uint64_t now_us(void) { return rl_clock_monotonic.now_us(NULL); }
static uint64_t now_ms(void) { return now_us() / 1000u; }

/* Before COMMAND runs: wait up to us for a signal. A forwarded one is kept
 * in got_sig and ends the wait; a stop stops redlock (no COMMAND to stop
 * yet); the others are dropped. us = 0: what is pending only. */
static void acquire_signals(uint64_t us)
{
    uint64_t end = now_us() + us;
    while (!got_sig) {
        uint64_t now = now_us(), left = end > now ? end - now : 0;
        struct timespec ts = {(time_t)(left / 1000000u), (long)(left % 1000000u) * 1000L};
        int sig = sigtimedwait(&wait_set, NULL, &ts);
        if (sig < 0 && errno == EINTR) continue;
        if (sig < 0) break; /* the time is up */
        if (in_set(sig, forwarded, N_FORWARDED))
            got_sig = sig;
        else if (in_set(sig, stops, N_STOPS))
            stop_self(sig);
    }
}

/* The clock and the transport of rl_acquire: a retry's sleep ends at once
 * on a signal that ends redlock, and once one came no SET is sent any more
 * (rl_acquire then returns RL_ERROR at once; main releases what an earlier
 * attempt may have set). No core change: the clock and the transport are
 * the core's injection points. */
static uint64_t cli_now_us(void *ctx)
{
    (void)ctx;
    return now_us();
}
static void cli_sleep_us(void *ctx, uint64_t us)
{
    (void)ctx;
    acquire_signals(us);
}
static const rl_clock cli_clock = {cli_now_us, cli_sleep_us, NULL};

static int cli_fanout(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud)
{
    if (cmd->op == RL_OP_SET) {
        acquire_signals(0);
        if (got_sig) return -1;
    }
    return rl_net_fanout(ctx, cmd, res, n, decide, ud);
}

/* ---- the connections of this program (the watchdog has its own) ---- */

typedef struct nodes {
    rl_conn *conns[RL_MAX_NODES];
    rl_net net;
    rl_transport tp;
    rl_ctx ctx;
    rl_restart rs; /* docs/api.md "Restarted nodes" with 'auto': the CLI counts no node restarted empty */
    char maxttl_key[RL_MAX_KEY + RL_MAXTTL_SUFFIX_LEN];
    int n;
} nodes;

static int nodes_open(nodes *t, const cli *c)
{
    memset(t, 0, sizeof(*t));
    for (int i = 0; i < c->n; i++) {
        t->conns[i] = rl_conn_new(&c->confs[i]);
        if (!t->conns[i]) return -1;
        t->n = i + 1;
    }
    t->net = (rl_net){.conns = t->conns, .n = c->n, .clock = &rl_clock_monotonic};
    t->tp = (rl_transport){.fanout = cli_fanout, .ctx = &t->net};
    t->ctx = (rl_ctx){.tp = &t->tp, .clock = &cli_clock, .rnd = &rl_random_system, .n = c->n};
    /* the restart check of the PHP API's default (restart_grace 'auto'): the
     * same maxttl key (PREFIX . "\0redlock:maxttl"), so PHP workers and this
     * program judge a restarted node alike */
    size_t pl = strlen(c->prefix);
    if (pl <= RL_MAX_KEY) {
        memcpy(t->maxttl_key, c->prefix, pl);
        memcpy(t->maxttl_key + pl, RL_MAXTTL_SUFFIX, RL_MAXTTL_SUFFIX_LEN);
        t->rs.grace_ms = RL_GRACE_AUTO;
        t->rs.maxttl_key = t->maxttl_key;
        t->rs.maxttl_keylen = pl + RL_MAXTTL_SUFFIX_LEN;
        t->ctx.rs = &t->rs;
    }
    return 0;
}

static void nodes_close(nodes *t)
{
    for (int i = 0; i < t->n; i++) rl_conn_free(t->conns[i]);
    t->n = 0;
}

/* "could not reach a quorum (3 of 5 nodes needed, 2 answered): host:port why; ..."
 * (the core words it, as for the extension: rl_quorum_message) */
static void quorum_message(const char *what, const cli *c, const nodes *t, const rl_call *call)
{
    char names[RL_MAX_NODES][128];
    const char *np[RL_MAX_NODES];
    for (int i = 0; i < c->n; i++) {
        rl_node_conf_name(rl_conn_conf(t->conns[i]), names[i], sizeof(names[i]));
        np[i] = names[i];
    }
    size_t len = rl_quorum_message(NULL, 0, what, call, c->n, np);
    char *m = malloc(len + 1);
    if (m) rl_quorum_message(m, len + 1, what, call, c->n, np);
    msg("%s", m ? m : "could not reach a quorum (out of memory for the reasons)");
    free(m);
}

static int same_server_message(const char *what, const cli *c, const nodes *t, const rl_call *call)
{
    for (int i = 0; i < c->n; i++) {
        if (call->res[i].err != RL_E_SAME_SERVER) continue;
        char name[128];
        rl_node_conf_name(rl_conn_conf(t->conns[i]), name, sizeof(name));
        return usage_error("%s: node %d (%s) is the same Redis server as another node; a server may count only once",
                           what, i + 1, name);
    }
    return usage_error("%s: two nodes are the same Redis server; a server may count only once", what);
}

/* ---- options ---- */

enum { OPT_PREFIX = 256, OPT_FENCING, OPT_MAX_HOLD, OPT_KILL_GRACE, OPT_CHECK, OPT_VERSION, OPT_TLS_CAFILE,
       OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_NO_VERIFY };

static const struct option long_opts[] = {
    {"nodes", required_argument, NULL, 'n'},
    {"ttl", required_argument, NULL, 't'},
    {"wait", required_argument, NULL, 'w'},
    {"conflict-exit", required_argument, NULL, 'E'},
    {"quiet", no_argument, NULL, 'q'},
    {"prefix", required_argument, NULL, OPT_PREFIX},
    {"fencing", no_argument, NULL, OPT_FENCING},
    {"max-hold", required_argument, NULL, OPT_MAX_HOLD},
    {"kill-grace", required_argument, NULL, OPT_KILL_GRACE},
    {"check", no_argument, NULL, OPT_CHECK},
    {"tls-cafile", required_argument, NULL, OPT_TLS_CAFILE},
    {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
    {"tls-key", required_argument, NULL, OPT_TLS_KEY},
    {"tls-no-verify", no_argument, NULL, OPT_TLS_NO_VERIFY},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* A --tls-* file is read at the first connect: one that cannot be read is
 * named now, as the extension's TLS settings are, not reported then as a
 * TLS error of every node ("TLS CA store: system lib"). 0, or EX_USAGE. */
static int tls_file_check(const char *opt, const char *path)
{
    if (!path) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return usage_error("%s cannot be read: %s (%s)", opt, path, strerror(e));
    }
    close(fd);
    if (!S_ISREG(st.st_mode)) return usage_error("%s is not a regular file: %s", opt, path);
    return 0;
}

/* returns -1 to go on, else an exit status */
static int parse_args(cli *c, int argc, char **argv)
{
    int ok, o;
    c->ttl_ms = DEFAULT_TTL_MS;
    c->conflict_exit = 1;
    c->kill_grace_ms = DEFAULT_KILL_GRACE_MS;
    c->prefix = "";
    opterr = 0;
    /* '+': options end at RESOURCE (COMMAND's own options are its own) */
    while ((o = getopt_long(argc, argv, "+:n:t:w:E:qh", long_opts, NULL)) != -1) {
        switch (o) {
        case 'n': c->nodes = optarg; c->nodes_from = "--nodes"; break;
        case 't':
            c->ttl_ms = parse_num(optarg, 1, INT32_MAX, &ok);
            if (!ok) return usage_error("--ttl must be a number of ms between 1 and %d", INT32_MAX);
            break;
        case 'w':
            c->wait_ms = parse_num(optarg, 0, INT32_MAX, &ok);
            if (!ok) return usage_error("--wait must be a number of ms between 0 and %d", INT32_MAX);
            break;
        case 'E':
            c->conflict_exit = parse_num(optarg, 0, 255, &ok);
            if (!ok) return usage_error("--conflict-exit must be an exit status between 0 and 255");
            break;
        case 'q': c->quiet = 1; break;
        case OPT_PREFIX:
            c->prefix = optarg;
            if (strlen(optarg) > MAX_PREFIX) return usage_error("--prefix must be at most %d bytes", MAX_PREFIX);
            break;
        case OPT_FENCING: c->fencing = 1; break;
        case OPT_MAX_HOLD:
            c->max_hold_ms = parse_num(optarg, 0, LONG_MAX / 1000, &ok);
            if (!ok) return usage_error("--max-hold must be a number of ms >= 0");
            break;
        case OPT_KILL_GRACE:
            c->kill_grace_ms = parse_num(optarg, 0, LONG_MAX / 1000, &ok);
            if (!ok) return usage_error("--kill-grace must be a number of ms >= 0");
            break;
        case OPT_CHECK: c->check = 1; break;
        case OPT_TLS_CAFILE: c->tls_cafile = optarg; break;
        case OPT_TLS_CERT: c->tls_cert = optarg; break;
        case OPT_TLS_KEY: c->tls_key = optarg; break;
        case OPT_TLS_NO_VERIFY: c->tls_no_verify = 1; break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: printf("redlock %s\n", RL_VERSION); return 0;
        case ':': return usage_error("option %s needs a value", argv[optind - 1]);
        default:
            if (optopt) return usage_error("unknown option -%c", optopt);
            return usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    int rc;
    if ((rc = tls_file_check("--tls-cafile", c->tls_cafile)) || (rc = tls_file_check("--tls-cert", c->tls_cert)) ||
        (rc = tls_file_check("--tls-key", c->tls_key)))
        return rc;
    if (optind >= argc) return usage_error("missing RESOURCE");
    c->resource = argv[optind++];
    size_t rl = strlen(c->resource);
    if (rl < 1 || rl > MAX_RESOURCE) return usage_error("RESOURCE must be between 1 and %d bytes", MAX_RESOURCE);
    if (optind < argc && strcmp(argv[optind], "--") == 0) optind++;
    if (c->check) {
        if (optind < argc) return usage_error("--check takes no COMMAND");
    } else {
        if (optind >= argc) return usage_error("missing COMMAND (redlock [options] RESOURCE -- COMMAND [ARG...])");
        c->command = &argv[optind];
    }
    if (!c->nodes) {
        c->nodes = getenv("REDLOCK_NODES");
        c->nodes_from = "REDLOCK_NODES";
        if (!c->nodes || !*c->nodes) return usage_error("no nodes: give --nodes or set REDLOCK_NODES");
    }
    return -1;
}

/* ---- COMMAND's environment: no password (docs/cli.md) ---- */

/* A node list entry without its password: "redis://user:pw@h" ->
 * "redis://user@h" (a redlock inside COMMAND takes the password from its
 * own REDLOCK_PASSWORD), "redis://:pw@h" -> "redis://h"; others as they are.
 * Appended to out (room for len bytes); 0, or -1 when the result does not
 * read as a node without a password: the caller then drops the whole list. */
static int entry_without_password(const char *s, size_t len, char *out, size_t *o)
{
    size_t skip = len >= 8 && memcmp(s, "redis://", 8) == 0 ? 8 : len >= 9 && memcmp(s, "rediss://", 9) == 0 ? 9 : 0;
    const char *at = NULL, *colon = NULL;
    for (size_t i = skip; skip && i < len; i++)
        if (s[i] == '@') at = s + i; /* the URI parser's rule: the last '@' ends the user info */
    if (at) colon = memchr(s + skip, ':', (size_t)(at - (s + skip)));
    size_t start = *o;
    if (colon) {
        size_t user = (size_t)(colon - (s + skip));
        memcpy(out + *o, s, skip + user);
        *o += skip + user;
        if (user) out[(*o)++] = '@';
        memcpy(out + *o, at + 1, (size_t)(s + len - at - 1));
        *o += (size_t)(s + len - at - 1);
    } else {
        memcpy(out + *o, s, len);
        *o += len;
    }
    /* what goes on must parse as a node whose URI holds no password ("user@" is
     * read with a stand-in password, as parse_nodes does with REDLOCK_PASSWORD) */
    rl_node_conf conf;
    char err[160];
    memset(&conf, 0, sizeof(conf));
    char *with = uri_with_password(out + start, *o - start, "x");
    int rc = with ? rl_uri_parse(with, strlen(with), &conf, err, sizeof(err))
                  : rl_uri_parse(out + start, *o - start, &conf, err, sizeof(err));
    int ok = rc == 0 && (with || !conf.password);
    if (rc == 0) rl_node_conf_free(&conf);
    free(with);
    return ok ? 0 : -1;
}

/* Overwrite an environment string's value in place: its old bytes are also
 * gone from /proc/<redlock>/environ, which COMMAND (same user) could read. */
static void env_overwrite(char *value, const char *with)
{
    size_t old = strlen(value), n = strlen(with);
    memmove(value, with, n);
    memset(value + n, 0, old - n);
}

/* COMMAND's environment is redlock's (COMMAND is exec'ed with environ), so
 * the passwords go from redlock's: REDLOCK_PASSWORD is wiped and removed
 * (parse_nodes has its copy), REDLOCK_NODES keeps its nodes without their
 * passwords, or goes when an entry of it does not read as a node. */
static int env_without_passwords(void)
{
    char *pw = getenv("REDLOCK_PASSWORD");
    if (pw) {
        env_overwrite(pw, "");
        unsetenv("REDLOCK_PASSWORD");
    }
    char *list = getenv("REDLOCK_NODES");
    if (!list) return 0;
    size_t len = strlen(list), o = 0;
    char *out = malloc(len + 1);
    if (!out) return -1;
    int ok = 1;
    for (const char *s = list; ok && *s;) {
        const char *comma = strchr(s, ',');
        size_t l = comma ? (size_t)(comma - s) : strlen(s);
        const char *b = s;
        while (l && (*b == ' ' || *b == '\t')) b++, l--;
        while (l && (b[l - 1] == ' ' || b[l - 1] == '\t')) l--;
        if (o) out[o++] = ',';
        ok = entry_without_password(b, l, out, &o) == 0;
        s = comma ? comma + 1 : s + strlen(s);
    }
    out[o] = '\0';
    if (ok && strcmp(out, list) != 0) {
        env_overwrite(list, out); /* never longer: only blanks and passwords went */
    } else if (!ok) {
        env_overwrite(list, "");
        unsetenv("REDLOCK_NODES");
    }
    free(out);
    return 0;
}

/* ---- running COMMAND ---- */

#define DRIFT_FACTOR 0.01

static int exit_status_of(int st)
{
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return EX_SOFTWARE;
}

/* COMMAND and what keeps it from running without the lock:
 * - it leads a process group of its own (signals reach all it starts);
 * - when redlock holds the foreground of its controlling terminal, that
 *   group gets it: COMMAND may read the terminal, and Ctrl-C, Ctrl-Z and
 *   Ctrl-\ reach COMMAND's group (redlock follows: job_stopped);
 * - when redlock dies (SIGKILL, the OOM killer), COMMAND gets SIGKILL from
 *   the kernel (PR_SET_PDEATHSIG), and the rest of its group from the guard:
 *   a child of redlock in COMMAND's group that ignores every signal it can
 *   and waits on a pipe only redlock holds. When the pipe ends without a
 *   word from redlock, redlock is gone: the guard kills the group. Being in
 *   the group, it keeps the group's id from being reused meanwhile. */
typedef struct job {
    cli *c;
    nodes *t;
    rl_watch *w;
    const char *key;
    size_t keylen;
    const char *token;
    pid_t pid;   /* COMMAND, leader of its process group */
    pid_t guard; /* 0: none */
    int life_wr; /* the guard's pipe */
    int tty;     /* the controlling terminal, or -1 */
    int tty_handed;
    int stopped; /* COMMAND has stopped, and its group with it */
    int lost, killed;
    uint64_t term_at;
} job;

/* the child, up to exec: one thread (forked before the watchdog's exists) */
static void command_child(const cli *c, pid_t parent, int go_rd, int err_wr)
{
    setpgid(0, 0);
    /* killed when redlock dies. PR_SET_PDEATHSIG fires when the thread that
     * forked ends: this is redlock's main thread, which ends only with it.
     * Set after fork: redlock may be gone already, then getppid() differs. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    char b;
    ssize_t r;
    /* redlock says go once the watchdog runs and the group is set up;
     * without it (redlock gave up), no exec */
    while ((r = read(go_rd, &b, 1)) < 0 && errno == EINTR) {}
    if (r != 1) _exit(127);
    sigprocmask(SIG_SETMASK, &orig_mask, NULL);
    execvp(c->command[0], c->command);
    int e = errno;
    if (write(err_wr, &e, sizeof(e)) < 0) {}
    _exit(127);
}

static void close_all_but(int keep)
{
    if ((keep == 0 || close_range(0, (unsigned)keep - 1, 0) == 0) && close_range((unsigned)keep + 1, ~0u, 0) == 0)
        return;
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = 0; fd < max; fd++)
        if (fd != keep) close(fd);
}

static void guard_child(pid_t pgid, int life_rd)
{
    setpgid(0, pgid);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_IGN);
    close_all_but(life_rd); /* nothing of redlock's held open: its sockets, its stdout */
    prctl(PR_SET_NAME, "redlock-guard");
    char b;
    ssize_t r;
    while ((r = read(life_rd, &b, 1)) < 0 && errno == EINTR) {}
    /* SIGKILL: the lock may be gone, and COMMAND cannot be allowed to go on.
     * If the group was stopped, the kernel continues it when redlock's death
     * orphans it (SIGHUP, SIGCONT), so the guard gets here then too. */
    if (r == 0) kill(-pgid, SIGKILL);
    _exit(0);
}

/* redlock ends normally: the guard goes without killing anything */
static void guard_done(job *j)
{
    if (j->life_wr < 0) return;
    if (write(j->life_wr, "d", 1) < 0) {} /* EPIPE when it is gone (SIGPIPE blocked) */
    close(j->life_wr);
    j->life_wr = -1;
    if (j->guard <= 0) return;
    kill(j->guard, SIGCONT); /* when stopped with the group */
    for (int i = 0; i < 100 && waitpid(j->guard, NULL, WNOHANG) == 0; i++) usleep(10000);
}

/* the terminal to COMMAND's group, when redlock has its foreground */
static void tty_hand(job *j)
{
    if (j->tty >= 0 && tcgetpgrp(j->tty) == getpgrp() && tcsetpgrp(j->tty, j->pid) == 0) j->tty_handed = 1;
}

/* and back (SIGTTOU is blocked: allowed from the background) */
static void tty_take_back(job *j)
{
    if (!j->tty_handed) return;
    tcsetpgrp(j->tty, getpgrp());
    j->tty_handed = 0;
}

/* The lock is gone (or may be): COMMAND ends, as docs/cli.md says: SIGTERM to
 * its group, SIGKILL after --kill-grace; a stopped COMMAND gets SIGKILL at
 * once, as SIGTERM would have to continue it, without the lock, to act. */
static void job_lost(job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("redlock: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    j->lost = 1;
    if (j->stopped) {
        fputs("; COMMAND is stopped: SIGKILL\n", stderr);
        kill(-j->pid, SIGKILL);
        j->killed = 1;
    } else {
        fputs("; terminating COMMAND\n", stderr);
        kill(-j->pid, SIGTERM);
        j->term_at = now_ms();
    }
}

/* Is the lock still held? When not, COMMAND is ended (job_lost). */
static void check_lock(job *j)
{
    if (j->lost) return;
    rl_watch_status st;
    rl_watch_status_get(j->w, &st);
    int64_t left = rl_watch_remaining_ms(j->w);
    if (st.state == RL_WATCH_LOST)
        job_lost(j, "lost the lock on %s: %s", j->c->resource, st.reason);
    else if (left > 0)
        return;
    else if (st.state == RL_WATCH_MAX_HOLD)
        job_lost(j, "the lock on %s expired: --max-hold %ld ms reached", j->c->resource, j->c->max_hold_ms);
    else
        job_lost(j, "the lock on %s expired before it could be extended", j->c->resource);
}

/* COMMAND's group is stopped, and redlock maybe was, for any length of time:
 * it goes on only under a lock confirmed now, by an extension awaited here
 * (the watchdog held meanwhile; with --max-hold reached, none: the validity
 * left decides). */
static void job_continue(job *j)
{
    if (!j->stopped || j->killed) return;
    if (!j->lost) {
        rl_lock_info info;
        if (rl_watch_pause(j->w, &info) == RL_WATCH_ACTIVE) {
            for (int i = 0; i < j->t->n; i++) rl_conn_check(j->t->conns[i]); /* idle for long: stale ones reconnect */
            int rr = rl_extend(&j->t->ctx, j->key, j->keylen, j->token, (int)j->c->ttl_ms, DRIFT_FACTOR, &info, NULL);
            rl_watch_resume(j->w, rr, (int)j->c->ttl_ms, &info);
        }
        check_lock(j);
    }
    if (j->lost) {
        if (!j->killed) kill(-j->pid, SIGKILL);
        j->killed = 1;
        return;
    }
    tty_hand(j);
    kill(-j->pid, SIGCONT);
    j->stopped = 0;
}

/* COMMAND stopped: Ctrl-Z or SIGTSTP (from redlock, which forwards it),
 * SIGTTIN or SIGTTOU (the terminal used from the background), SIGSTOP. Its
 * whole group stops (SIGSTOP: also those that ignore the signal), then
 * redlock, so that its shell sees the job stopped; the lock is then not
 * extended and may expire, which job_continue checks. Where redlock cannot
 * stop (no job control), COMMAND stays stopped, its lock extended, until a
 * SIGCONT reaches redlock or COMMAND. */
static void job_resumed(job *j);

static void job_stopped(job *j, int sig)
{
    j->stopped = 1;
    if (j->lost) {
        if (!j->killed) kill(-j->pid, SIGKILL);
        j->killed = 1;
        return;
    }
    kill(-j->pid, SIGSTOP);
    tty_take_back(j);
    if (stop_self(sig == SIGSTOP ? SIGTSTP : sig)) job_resumed(j);
}

/* redlock was continued: what came meanwhile goes to COMMAND's group
 * before it is continued, so that it acts on it first, as after a shell's
 * "kill %1" (SIGTERM, then SIGCONT) */
static void job_resumed(job *j)
{
    struct timespec zero = {0, 0};
    int sig;
    while ((sig = sigtimedwait(&wait_set, NULL, &zero)) > 0)
        if (in_set(sig, forwarded, N_FORWARDED)) kill(-j->pid, sig);
    job_continue(j);
}

static void job_signal(job *j, int sig)
{
    if (in_set(sig, forwarded, N_FORWARDED)) {
        kill(-j->pid, sig); /* COMMAND's whole group, as a terminal would */
        /* a stopped COMMAND acts on it once continued, as a shell's kill does */
        if (j->stopped && sig != SIGUSR1 && sig != SIGUSR2) job_continue(j);
    } else if (in_set(sig, stops, N_STOPS)) {
        if (!j->stopped)
            kill(-j->pid, sig); /* COMMAND's stop stops redlock */
        else if (stop_self(sig))
            job_resumed(j);
    } else if (sig == SIGCONT) {
        job_continue(j);
    }
}

/* COMMAND has ended or was never run: no extension after this, then the release */
static void job_end(job *j, int report)
{
    rl_watch_stop(j->w);
    rl_watch_unref(j->w);
    tty_take_back(j);
    for (int i = 0; i < j->t->n; i++) rl_conn_check(j->t->conns[i]); /* idle for long: stale ones reconnect */
    rl_call call;
    int rr = rl_release(&j->t->ctx, j->key, j->keylen, j->token, &call);
    if (report && rr == RL_NO_QUORUM) quorum_message("release (the lock expires by its TTL)", j->c, j->t, &call);
    guard_done(j);
    if (j->tty >= 0) close(j->tty);
}

static int run(cli *c, nodes *t, const char *key, size_t keylen, const rl_lock_info *info)
{
    job jb = {.c = c, .t = t, .key = key, .keylen = keylen, .token = info->token, .life_wr = -1, .tty = -1};
    job *j = &jb;
    int go[2], err[2], life[2];
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(life, O_CLOEXEC) != 0) {
        msg("cannot run %s: pipe: %s; releasing", c->command[0], strerror(errno));
        rl_release(&t->ctx, key, keylen, info->token, NULL);
        return EX_OSERR;
    }
    /* forked before the watchdog's thread exists; exec'ed only once it runs */
    pid_t parent = getpid();
    j->pid = fork();
    if (j->pid == 0) command_child(c, parent, go[0], err[1]);
    int fork_errno = errno;
    if (j->pid > 0) {
        setpgid(j->pid, j->pid); /* also here: the group exists before the guard joins it */
        j->guard = fork();
        if (j->guard == 0) guard_child(j->pid, life[0]);
        fork_errno = errno;
    }
    close(go[0]);
    close(err[1]);
    close(life[0]);
    j->life_wr = life[1];
    j->tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    rl_watch_spec spec = {.confs = c->confs,
                          .conns = t->conns, /* their addresses and the run_ids the lock was taken on */
                          .n = c->n,
                          .key = key,
                          .keylen = keylen,
                          .token = info->token,
                          .ttl_ms = (int)c->ttl_ms,
                          .drift_factor = DRIFT_FACTOR,
                          .max_hold_ms = c->max_hold_ms,
                          .restart_grace = 1, /* as nodes_open: extensions raise and repair */
                          .prefix_len = strlen(c->prefix)};
    j->w = j->pid > 0 && j->guard > 0 ? rl_watch_start(&spec, info) : NULL;
    int rc = -1;
    if (j->pid < 0 || j->guard < 0) {
        msg("cannot run %s: fork: %s; releasing", c->command[0], strerror(fork_errno));
        rc = EX_OSERR;
    } else if (!j->w) {
        msg("could not start the watchdog (out of memory or no thread); releasing");
        rc = EX_OSERR;
    } else if (rl_watch_remaining_ms(j->w) <= 0) {
        /* redlock was held up (SIGSTOP) since it took the lock */
        msg("the lock on %s expired before COMMAND could start; releasing", c->resource);
        rc = EX_SOFTWARE;
    }
    if (rc < 0) {
        tty_hand(j);
        if (write(go[1], "g", 1) != 1) rc = EX_OSERR;
    }
    close(go[1]); /* without the go, the child exits */
    int e = 0;
    if (rc < 0 && read(err[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
        msg("cannot run %s: %s", c->command[0], strerror(e));
        rc = e == ENOENT ? 127 : 126;
    }
    close(err[0]);
    if (rc >= 0) {
        if (j->pid > 0) waitpid(j->pid, NULL, 0);
        if (j->w) {
            job_end(j, 0);
        } else {
            rl_release(&t->ctx, key, keylen, info->token, NULL);
            guard_done(j);
            if (j->tty >= 0) close(j->tty);
        }
        return rc;
    }

    int status = 0;
    for (;;) {
        int st;
        pid_t r = waitpid(j->pid, &st, WNOHANG | WUNTRACED | WCONTINUED);
        if (r == j->pid && WIFSTOPPED(st)) {
            if (!j->stopped) job_stopped(j, WSTOPSIG(st));
            continue;
        }
        if (r == j->pid && WIFCONTINUED(st)) {
            /* continued by someone else while redlock runs (the lock held):
             * the rest of its group goes on too */
            job_continue(j);
            continue;
        }
        if (r == j->pid) {
            status = st;
            break;
        }
        if (r < 0 && errno != EINTR) {
            status = 0;
            break;
        }
        if (!j->lost) {
            check_lock(j);
        } else if (!j->killed && now_ms() - j->term_at >= (uint64_t)c->kill_grace_ms) {
            msg("COMMAND still running %ld ms after SIGTERM: SIGKILL", c->kill_grace_ms);
            kill(-j->pid, SIGKILL);
            j->killed = 1;
        }
        long tick = TICK_MS;
        if (j->lost && !j->killed) {
            uint64_t due = j->term_at + (uint64_t)c->kill_grace_ms, now = now_ms();
            if (due > now && (long)(due - now) < tick) tick = (long)(due - now);
            if (due <= now) tick = 0;
        }
        struct timespec ts = {tick / 1000, (tick % 1000) * 1000000L};
        int sig = sigtimedwait(&wait_set, NULL, &ts);
        if (sig > 0) job_signal(j, sig);
    }
    job_end(j, !j->lost);
    return j->lost ? EX_SOFTWARE : exit_status_of(status);
}

int main(int argc, char **argv)
{
    cli c;
    memset(&c, 0, sizeof(c));
    int rc = parse_args(&c, argc, argv);
    if (rc >= 0) return rc;
    block_signals();
    rc = parse_nodes(&c);
    if (rc == 0 && env_without_passwords() != 0) {
        msg("out of memory");
        rc = EX_OSERR;
    }
    if (rc != 0) goto out;

    char key[MAX_PREFIX + MAX_RESOURCE + 1];
    size_t pl = strlen(c.prefix), rlen = strlen(c.resource);
    memcpy(key, c.prefix, pl);
    memcpy(key + pl, c.resource, rlen);
    size_t keylen = pl + rlen;

    nodes t;
    if (nodes_open(&t, &c) != 0) {
        msg("out of memory");
        rc = EX_OSERR;
        goto out;
    }
    rl_call call;
    if (c.check) {
        int r = rl_is_locked(&t.ctx, key, keylen, &call);
        if (r == RL_YES) rc = 0;
        else if (r == RL_NO) rc = 1;
        else if (r == RL_SAME_SERVER) rc = same_server_message("check", &c, &t, &call);
        else {
            quorum_message("check", &c, &t, &call);
            rc = EX_UNAVAILABLE;
        }
        nodes_close(&t);
        goto out;
    }

    /* the fence counter: one key per prefix, as the extension's */
    static const char fence_suffix[] = "\0redlock:fence";
    char fence_key[MAX_PREFIX + sizeof(fence_suffix)];
    memcpy(fence_key, c.prefix, pl);
    memcpy(fence_key + pl, fence_suffix, sizeof(fence_suffix) - 1);
    rl_opts o = {
        .retry_count = 0, /* --wait 0: one attempt */
        .retry_delay_ms = 200,
        .retry_jitter_ms = 100,
        .wait_ms = (int)c.wait_ms,
        .drift_factor = DRIFT_FACTOR,
        .fence_key = c.fencing ? fence_key : NULL,
        .fence_keylen = c.fencing ? pl + sizeof(fence_suffix) - 1 : 0,
    };
    rl_lock_info info;
    memset(&info, 0, sizeof(info));
    int r = rl_acquire(&t.ctx, key, keylen, (int)c.ttl_ms, &o, &info, &call);
    acquire_signals(0);
    if (got_sig) {
        /* a signal ended the wait, or came while the lock was being taken:
         * COMMAND does not run, and what a SET may have left goes (also
         * where an answer was not awaited: it may still land, before this) */
        if (info.token_len) rl_release(&t.ctx, key, keylen, info.token, NULL);
        rc = 128 + got_sig;
    } else if (r == RL_ACQUIRED) {
        char fence[24];
        setenv("REDLOCK_RESOURCE", c.resource, 1);
        setenv("REDLOCK_TOKEN", info.token, 1);
        if (c.fencing) {
            snprintf(fence, sizeof(fence), "%" PRId64, info.fence);
            setenv("REDLOCK_FENCE", fence, 1);
        } else {
            unsetenv("REDLOCK_FENCE"); /* an outer redlock's is not ours */
        }
        rc = run(&c, &t, key, keylen, &info);
    } else if (r == RL_CONFLICT) {
        if (!c.quiet) {
            if (c.wait_ms > 0)
                msg("%s is locked by another owner (waited %ld ms)", c.resource, c.wait_ms);
            else
                msg("%s is locked by another owner", c.resource);
        }
        rc = (int)c.conflict_exit;
    } else if (r == RL_NO_QUORUM) {
        quorum_message("lock", &c, &t, &call);
        rc = EX_UNAVAILABLE;
    } else if (r == RL_SAME_SERVER) {
        rc = same_server_message("lock", &c, &t, &call);
    } else {
        msg("internal error (out of memory or random source failed)");
        rc = EX_OSERR;
    }
    nodes_close(&t);
out:
    rl_watchdog_shutdown();
    for (int i = 0; i < c.n; i++) rl_node_conf_free(&c.confs[i]);
    return rc;
}
