/*
 * delayproxy — a tiny TCP delay proxy for the redlock benchmark (loopback only).
 *
 *   delayproxy [-d DELAY_US] [-r READY_FILE] LISTEN_PORT:UPSTREAM_HOST:UPSTREAM_PORT ...
 *
 * Listens on 127.0.0.1:LISTEN_PORT (0 = pick a free port) for every mapping and
 * forwards each accepted connection to UPSTREAM_HOST:UPSTREAM_PORT, holding every
 * chunk of data for DELAY_US microseconds in each direction (so the round trip
 * grows by 2*DELAY_US).  One thread, epoll + one timerfd armed on the earliest
 * deadline; each direction of each connection has its own timestamped FIFO, so
 * unrelated connections never wait for one another.  Buffers are bounded: a
 * direction holding more than MAX_QUEUED bytes stops reading its source until it
 * drains.  Half-close (EOF) is forwarded after the same delay.
 *
 * When every listener is bound, writes "READY port1 port2 ...\n" to READY_FILE
 * (or stdout).  SIGTERM/SIGINT end it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_MAPS 64
#define MAX_CONNS 4096
#define MAX_QUEUED (1u << 20) /* bytes buffered per direction before reading pauses */
#define READ_CHUNK 65536

typedef struct chunk {
	struct chunk *next;
	uint64_t due_ns;
	size_t len, off; /* len == 0: EOF marker */
	char data[];
} chunk;

struct conn;

typedef struct dir {
	struct conn *c;
	int from, to;           /* fds */
	chunk *head, *tail;
	size_t queued;
	int eof_read;           /* source hit EOF (marker queued) */
	int shut;               /* EOF forwarded to 'to' */
	int blocked;            /* waiting for EPOLLOUT on 'to' */
} dir;

typedef struct conn {
	int cfd, ufd;
	int connected;          /* upstream connect() completed */
	int dead;
	dir up, down;           /* up: client -> upstream; down: upstream -> client */
	struct conn *next_active, *prev_active;
} conn;

typedef struct {
	int lfd;
	int lport;
	struct sockaddr_storage up;
	socklen_t uplen;
} mapping;

/* epoll tags: low 2 bits of the pointer say what it is */
enum { TAG_LISTEN = 1, TAG_CLIENT = 2, TAG_UPSTREAM = 3 };

static int ep, tfd;
static uint64_t delay_ns = 1000000;
static mapping maps[MAX_MAPS];
static int nmaps;
static conn *active;     /* all live connections */
static int nconns;
static volatile sig_atomic_t stop;
static uint64_t armed_ns;  /* currently armed deadline (0 = none) */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void *tag(void *p, int t) { return (void *)((uintptr_t)p | (uintptr_t)t); }

static void update_events(conn *c)
{
	/* client fd: read if up-dir not paused; write if down-dir blocked */
	struct epoll_event ev;
	if (c->dead)
		return;
	ev.events = 0;
	if (!c->up.eof_read && c->up.queued < MAX_QUEUED)
		ev.events |= EPOLLIN;
	if (c->down.blocked)
		ev.events |= EPOLLOUT;
	ev.data.ptr = tag(c, TAG_CLIENT);
	epoll_ctl(ep, EPOLL_CTL_MOD, c->cfd, &ev);

	ev.events = 0;
	if (!c->connected)
		ev.events |= EPOLLOUT;
	else {
		if (!c->down.eof_read && c->down.queued < MAX_QUEUED)
			ev.events |= EPOLLIN;
		if (c->up.blocked)
			ev.events |= EPOLLOUT;
	}
	ev.data.ptr = tag(c, TAG_UPSTREAM);
	epoll_ctl(ep, EPOLL_CTL_MOD, c->ufd, &ev);
}

static void free_queue(dir *d)
{
	chunk *ch = d->head;
	while (ch) {
		chunk *n = ch->next;
		free(ch);
		ch = n;
	}
	d->head = d->tail = NULL;
	d->queued = 0;
}

static void kill_conn(conn *c)
{
	if (c->dead)
		return;
	c->dead = 1;
	epoll_ctl(ep, EPOLL_CTL_DEL, c->cfd, NULL);
	epoll_ctl(ep, EPOLL_CTL_DEL, c->ufd, NULL);
	close(c->cfd);
	close(c->ufd);
	free_queue(&c->up);
	free_queue(&c->down);
	/* unlinked and freed by reap() so pointers in the current epoll batch stay valid */
}

static void reap(void)
{
	conn *c = active;
	while (c) {
		conn *n = c->next_active;
		if (c->dead) {
			if (c->prev_active)
				c->prev_active->next_active = n;
			else
				active = n;
			if (n)
				n->prev_active = c->prev_active;
			free(c);
			nconns--;
		}
		c = n;
	}
}

/* Deliver every due chunk of one direction. Returns -1 if the connection died. */
static int flush_dir(dir *d, uint64_t now)
{
	conn *c = d->c;
	if (d->to == c->ufd && !c->connected)
		return 0;
	int was_paused = d->queued >= MAX_QUEUED;
	while (d->head && d->head->due_ns <= now) {
		chunk *ch = d->head;
		if (ch->len == 0) { /* EOF marker */
			shutdown(d->to, SHUT_WR);
			d->shut = 1;
		} else {
			while (ch->off < ch->len) {
				ssize_t w = send(d->to, ch->data + ch->off, ch->len - ch->off, MSG_NOSIGNAL);
				if (w < 0) {
					if (errno == EINTR)
						continue;
					if (errno == EAGAIN || errno == EWOULDBLOCK) {
						if (!d->blocked) {
							d->blocked = 1;
							update_events(c);
						}
						return 0;
					}
					kill_conn(c);
					return -1;
				}
				ch->off += (size_t)w;
				d->queued -= (size_t)w;
			}
		}
		d->head = ch->next;
		if (!d->head)
			d->tail = NULL;
		free(ch);
	}
	if (d->blocked || (was_paused && d->queued < MAX_QUEUED)) {
		d->blocked = 0;
		update_events(c);
	}
	if (c->up.shut && c->down.shut)
		kill_conn(c);
	return 0;
}

static void enqueue(dir *d, const char *buf, size_t len, uint64_t due)
{
	chunk *ch = malloc(sizeof(chunk) + len);
	if (!ch)
		die("malloc");
	ch->next = NULL;
	ch->due_ns = due;
	ch->len = len;
	ch->off = 0;
	if (len)
		memcpy(ch->data, buf, len);
	if (d->tail)
		d->tail->next = ch;
	else
		d->head = ch;
	d->tail = ch;
	d->queued += len;
}

static void read_side(dir *d)
{
	static char buf[READ_CHUNK];
	conn *c = d->c;
	int rounds = 0;
	while (!d->eof_read && d->queued < MAX_QUEUED && rounds++ < 16) {
		ssize_t r = recv(d->from, buf, sizeof buf, 0);
		if (r > 0) {
			enqueue(d, buf, (size_t)r, now_ns() + delay_ns);
			continue;
		}
		if (r == 0) {
			d->eof_read = 1;
			enqueue(d, NULL, 0, now_ns() + delay_ns);
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		kill_conn(c);
		return;
	}
	update_events(c);
}

static void arm_timer(void)
{
	uint64_t next = 0;
	for (conn *c = active; c; c = c->next_active) {
		if (c->dead)
			continue;
		dir *ds[2] = {&c->up, &c->down};
		for (int i = 0; i < 2; i++) {
			dir *d = ds[i];
			if (!d->head || d->blocked)
				continue;
			if (d->to == c->ufd && !c->connected)
				continue;
			if (!next || d->head->due_ns < next)
				next = d->head->due_ns;
		}
	}
	if (next == armed_ns)
		return;
	struct itimerspec its;
	memset(&its, 0, sizeof its);
	if (next) {
		its.it_value.tv_sec = (time_t)(next / 1000000000ull);
		its.it_value.tv_nsec = (long)(next % 1000000000ull);
	}
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		die("timerfd_settime");
	armed_ns = next;
}

static void accept_on(mapping *m)
{
	for (int i = 0; i < 64; i++) {
		int cfd = accept4(m->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0)
			return;
		if (nconns >= MAX_CONNS) {
			close(cfd);
			continue;
		}
		int ufd = socket(m->up.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (ufd < 0) {
			close(cfd);
			continue;
		}
		int one = 1;
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		int rc = connect(ufd, (struct sockaddr *)&m->up, m->uplen);
		if (rc < 0 && errno != EINPROGRESS) {
			close(cfd); /* upstream refuses: the client sees a closed connection */
			close(ufd);
			continue;
		}
		conn *c = calloc(1, sizeof *c);
		if (!c)
			die("calloc");
		c->cfd = cfd;
		c->ufd = ufd;
		c->connected = (rc == 0);
		c->up = (dir){.c = c, .from = cfd, .to = ufd};
		c->down = (dir){.c = c, .from = ufd, .to = cfd};
		c->next_active = active;
		if (active)
			active->prev_active = c;
		active = c;
		nconns++;
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = tag(c, TAG_CLIENT)};
		epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
		ev.events = EPOLLOUT;
		ev.data.ptr = tag(c, TAG_UPSTREAM);
		epoll_ctl(ep, EPOLL_CTL_ADD, ufd, &ev);
		update_events(c);
	}
}

static void on_upstream_connected(conn *c)
{
	int err = 0;
	socklen_t el = sizeof err;
	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
		kill_conn(c);
		return;
	}
	c->connected = 1;
	update_events(c);
}

static void on_sig(int s)
{
	(void)s;
	stop = 1;
}

static int parse_map(const char *arg, mapping *m)
{
	char host[256];
	int lport, uport;
	if (sscanf(arg, "%d:%255[^:]:%d", &lport, host, &uport) != 3 || lport < 0 || lport > 65535 ||
	    uport <= 0 || uport > 65535)
		return -1;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
	char ps[16];
	snprintf(ps, sizeof ps, "%d", uport);
	if (getaddrinfo(host, ps, &hints, &res) != 0)
		return -1;
	memcpy(&m->up, res->ai_addr, res->ai_addrlen);
	m->uplen = res->ai_addrlen;
	freeaddrinfo(res);

	m->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->lfd < 0)
		die("socket");
	int one = 1;
	setsockopt(m->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)lport)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(m->lfd, (struct sockaddr *)&sa, sizeof sa) < 0)
		die("bind");
	if (listen(m->lfd, 512) < 0)
		die("listen");
	socklen_t sl = sizeof sa;
	getsockname(m->lfd, (struct sockaddr *)&sa, &sl);
	m->lport = ntohs(sa.sin_port);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ready = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "d:r:")) != -1) {
		if (opt == 'd')
			delay_ns = (uint64_t)strtoull(optarg, NULL, 10) * 1000ull;
		else if (opt == 'r')
			ready = optarg;
		else {
			fprintf(stderr, "usage: %s [-d DELAY_US] [-r READY_FILE] LPORT:HOST:PORT ...\n", argv[0]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: %s [-d DELAY_US] [-r READY_FILE] LPORT:HOST:PORT ...\n", argv[0]);
		return 2;
	}
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* 1 ns slack: delays are sub-ms */
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = {.sa_handler = on_sig};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	ep = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ep < 0 || tfd < 0)
		die("epoll/timerfd");
	struct epoll_event tev = {.events = EPOLLIN, .data.ptr = NULL};
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &tev);

	for (int i = optind; i < argc && nmaps < MAX_MAPS; i++) {
		if (parse_map(argv[i], &maps[nmaps]) < 0) {
			fprintf(stderr, "delayproxy: bad mapping '%s'\n", argv[i]);
			return 2;
		}
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = tag(&maps[nmaps], TAG_LISTEN)};
		epoll_ctl(ep, EPOLL_CTL_ADD, maps[nmaps].lfd, &ev);
		nmaps++;
	}
	FILE *rf = stdout;
	char tmpname[4096];
	if (ready) {
		snprintf(tmpname, sizeof tmpname, "%s.tmp", ready);
		rf = fopen(tmpname, "w");
		if (!rf)
			die("ready file");
	}
	fprintf(rf, "READY");
	for (int i = 0; i < nmaps; i++)
		fprintf(rf, " %d", maps[i].lport);
	fprintf(rf, "\n");
	fflush(rf);
	if (ready) {
		fclose(rf);
		if (rename(tmpname, ready) < 0)
			die("rename");
	}

	struct epoll_event evs[128];
	while (!stop) {
		arm_timer();
		int n = epoll_wait(ep, evs, 128, 1000);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;
			if (!p) {
				uint64_t x;
				if (read(tfd, &x, sizeof x) < 0) { /* spurious */ }
				armed_ns = 0;
				continue;
			}
			int t = (int)((uintptr_t)p & 3);
			void *obj = (void *)((uintptr_t)p & ~(uintptr_t)3);
			if (t == TAG_LISTEN) {
				accept_on(obj);
				continue;
			}
			conn *c = obj;
			if (c->dead)
				continue;
			uint32_t e = evs[i].events;
			if (t == TAG_UPSTREAM && !c->connected) {
				if (e & (EPOLLOUT | EPOLLERR | EPOLLHUP))
					on_upstream_connected(c);
				continue;
			}
			if (e & EPOLLERR) {
				kill_conn(c);
				continue;
			}
			dir *rd = (t == TAG_CLIENT) ? &c->up : &c->down;   /* reads from this fd */
			dir *wd = (t == TAG_CLIENT) ? &c->down : &c->up;   /* writes to this fd */
			if ((e & EPOLLOUT) && wd->blocked) {
				wd->blocked = 0;
				if (flush_dir(wd, now_ns()) < 0)
					continue;
				update_events(c);
			}
			if ((e & (EPOLLIN | EPOLLHUP)) && !rd->eof_read)
				read_side(rd);
			else if ((e & EPOLLHUP) && rd->eof_read && wd->shut)
				kill_conn(c);
		}
		/* deliver whatever is due, on every connection */
		uint64_t now = now_ns();
		for (conn *c = active; c; c = c->next_active) {
			if (c->dead)
				continue;
			if (c->up.head && c->up.head->due_ns <= now && !c->up.blocked)
				if (flush_dir(&c->up, now) < 0)
					continue;
			if (!c->dead && c->down.head && c->down.head->due_ns <= now && !c->down.blocked)
				flush_dir(&c->down, now);
		}
		reap();
	}
	return 0;
}
