/* clockshift.c -- LD_PRELOAD library of the restart tests: shifts only the
 * wall clock (gettimeofday, clock_gettime(CLOCK_REALTIME*), time) of the
 * process by the signed 64-bit count of microseconds in the file named by
 * $RT_CLOCK_FILE (mapped: a write to the file takes effect at once). The
 * monotonic clocks are left alone. Built by clock_step.phpt. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile int64_t *shift;

static int64_t offset_us(void)
{
    if (!shift) {
        const char *f = getenv("RT_CLOCK_FILE");
        int fd = f ? open(f, O_RDONLY) : -1;
        void *p = fd >= 0 ? mmap(NULL, 8, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
        if (fd >= 0) close(fd);
        if (p == MAP_FAILED) return 0;
        shift = p;
    }
    return *shift;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + offset_us() * 1000;
        ts->tv_sec = ns / 1000000000;
        ts->tv_nsec = ns % 1000000000;
    }
    return r;
}

int gettimeofday(struct timeval *tv, void *tz)
{
    struct timespec ts;
    (void)tz;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
