/* rl_tls_stub.c -- TEMPORARY stand-in until the core's OpenSSL layer lands (branch tls11 only). */
#include "rl.h"

int rl_tls_available(void)
{
    return 0;
}

const char *rl_tls_version(void)
{
    return NULL;
}
