/* asan_nodeepbind.c -- preload shim for the ASan run: PHP dlopen()s extensions with
 * RTLD_DEEPBIND, which the sanitizer runtime refuses; strip that flag and pass on. */
#define _GNU_SOURCE
#include <dlfcn.h>

void *dlopen(const char *file, int mode)
{
    static void *(*real)(const char *, int);
    if (!real) real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    return real(file, mode & ~RTLD_DEEPBIND);
}
