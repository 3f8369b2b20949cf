/*
 * raw_cycle — the raw limit: the same N-node parallel lock+release cycle as the
 * extension, driven through the core (redlock_core/rl.h) directly, no PHP.
 *
 *   raw_cycle --nodes=h:p,h:p,... [--cycles=N] [--seconds=S] [--warmup=W]
 *             [--prefix=P] [--start-at=UNIX_TS] [--no-lat]
 *
 * Same protocol as bench/impl/common.php: prints one JSON object
 *   {"impl":"raw","ok":true,"cycles":..,"failed":..,"wall_s":..,"lat_us":[..]}
 * Timeouts 50 ms (connect and round trip), retry_count 0, TTL 10 s.
 */
#define _GNU_SOURCE
#include "rl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define TTL_MS 10000
#define MAX_CYCLES 10000000L

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *arg(const char *a, const char *name)
{
	size_t l = strlen(name);
	return strncmp(a, name, l) == 0 ? a + l : NULL;
}

static void skip(const char *why)
{
	printf("{\"impl\":\"raw\",\"ok\":false,\"skipped\":true,\"note\":\"%s\"}\n", why);
	exit(0);
}

int main(int argc, char **argv)
{
	const char *nodes = NULL, *v;
	long cycles = 1000, warmup = 50;
	double seconds = 10, start_at = 0;
	int record = 1;
	char prefix[128];
	snprintf(prefix, sizeof prefix, "bench:raw:%d:", (int)getpid());

	for (int i = 1; i < argc; i++) {
		if ((v = arg(argv[i], "--nodes=")))
			nodes = v;
		else if ((v = arg(argv[i], "--cycles=")))
			cycles = atol(v);
		else if ((v = arg(argv[i], "--seconds=")))
			seconds = atof(v);
		else if ((v = arg(argv[i], "--warmup=")))
			warmup = atol(v);
		else if ((v = arg(argv[i], "--prefix=")))
			snprintf(prefix, sizeof prefix, "%s", v);
		else if ((v = arg(argv[i], "--start-at=")))
			start_at = atof(v);
		else if (strcmp(argv[i], "--no-lat") == 0)
			record = 0;
		else {
			fprintf(stderr, "raw_cycle: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (!nodes) {
		fprintf(stderr, "raw_cycle: missing --nodes\n");
		return 2;
	}
	if (cycles < 1)
		cycles = 1;
	if (cycles > MAX_CYCLES)
		cycles = MAX_CYCLES;
	if (seconds <= 0 || seconds > 600)
		seconds = 10;
	if (warmup < 0 || warmup > 100000)
		warmup = 50;

	/* nodes */
	rl_conn *conns[RL_MAX_NODES];
	int n = 0;
	char *list = strdup(nodes);
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == RL_MAX_NODES)
			skip("too many nodes");
		rl_node_conf conf;
		char err[256];
		memset(&conf, 0, sizeof conf);
		if (rl_uri_parse(tok, strlen(tok), &conf, err, sizeof err) != 0) {
			fprintf(stderr, "raw_cycle: %s: %s\n", tok, err);
			return 2;
		}
		conf.connect_timeout_ms = 50;
		conf.timeout_ms = 50;
		conns[n] = rl_conn_new(&conf);
		rl_node_conf_free(&conf);
		if (!conns[n]) {
			fprintf(stderr, "raw_cycle: rl_conn_new failed\n");
			return 2;
		}
		n++;
	}
	free(list);

	rl_net net = {.conns = conns, .n = n, .clock = &rl_clock_monotonic};
	rl_transport tp = {.fanout = rl_net_fanout, .ctx = &net};
	rl_ctx ctx = {.tp = &tp, .clock = &rl_clock_monotonic, .rnd = &rl_random_system, .n = n};
	rl_opts o = {.retry_count = 0, .retry_delay_ms = 200, .retry_jitter_ms = 100, .wait_ms = 0, .drift_factor = 0.01};
	static rl_call call;
	rl_lock_info info;
	char key[RL_MAX_KEY];

	for (long i = 0; i < warmup; i++) {
		int kl = snprintf(key, sizeof key, "%sw%ld", prefix, i);
		if (rl_acquire(&ctx, key, (size_t)kl, TTL_MS, &o, &info, &call) == RL_ACQUIRED)
			rl_release(&ctx, key, (size_t)kl, info.token, &call);
	}
	if (start_at > 0) {
		struct timeval tv;
		gettimeofday(&tv, NULL);
		double d = start_at - ((double)tv.tv_sec + tv.tv_usec / 1e6);
		if (d > 0 && d < 60)
			usleep((useconds_t)(d * 1e6));
	}

	uint32_t *lat = record ? malloc(sizeof(uint32_t) * (size_t)cycles) : NULL;
	if (record && !lat)
		skip("out of memory");
	long done = 0, failed = 0;
	uint64_t t0 = mono_ns(), deadline = t0 + (uint64_t)(seconds * 1e9);
	for (long i = 0; i < cycles; i++) {
		int kl = snprintf(key, sizeof key, "%s%ld", prefix, i);
		uint64_t t = mono_ns();
		int ok = rl_acquire(&ctx, key, (size_t)kl, TTL_MS, &o, &info, &call) == RL_ACQUIRED &&
		         rl_release(&ctx, key, (size_t)kl, info.token, &call) == RL_RELEASED;
		uint64_t e = mono_ns();
		if (!ok)
			failed++;
		if (lat)
			lat[i] = (uint32_t)((e - t) / 1000);
		done++;
		if (e >= deadline)
			break;
	}
	double wall = (double)(mono_ns() - t0) / 1e9;

	printf("{\"impl\":\"raw\",\"ok\":true,\"cycles\":%ld,\"failed\":%ld,\"wall_s\":%.6f,\"lat_us\":[", done,
	       failed, wall);
	if (lat)
		for (long i = 0; i < done; i++)
			printf(i ? ",%u" : "%u", lat[i]);
	printf("]}\n");
	free(lat);
	rl_net_drain(&net, 100000);
	/* connects per node on stderr: a node reconnected over and over costs time */
	for (int i = 0; i < n; i++)
		fprintf(stderr, "raw_cycle: node %d: %llu connects, %llu ok, %llu timeouts, %llu errors\n", i,
		        (unsigned long long)rl_conn_stats(conns[i])->connects, (unsigned long long)rl_conn_stats(conns[i])->ok,
		        (unsigned long long)rl_conn_stats(conns[i])->timeouts, (unsigned long long)rl_conn_stats(conns[i])->errors);
	for (int i = 0; i < n; i++)
		rl_conn_free(conns[i]);
	return 0;
}
