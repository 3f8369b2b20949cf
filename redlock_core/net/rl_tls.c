/* rl_tls.c -- the OpenSSL I/O table: a non-blocking TLS session over the connection's socket,
 * its handshake driven by the fan-out's poll() (WANT_READ/WANT_WRITE), like hiredis' ssl.c.
 * Its state is the connection's rl_sess; it never sees struct rl_conn. */
#include "rl_net_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#ifndef RL_HAVE_TLS

int rl_tls_available(void) { return 0; }
const char *rl_tls_version(void) { return NULL; }

#else

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

int rl_tls_available(void) { return 1; }
const char *rl_tls_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

/* the first queued OpenSSL error, or what went wrong otherwise; the
 * certificate's verify result says why a peer was refused */
static void tls_why(rl_sess *s, const char *what, char *why, size_t whylen)
{
    unsigned long e = ERR_peek_last_error();
    char buf[160] = "";
    SSL *ssl = s->tls;
    long vr = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
    if (e) ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    if (vr != X509_V_OK)
        snprintf(why, whylen, "%s: certificate verify failed (%s)", what, X509_verify_cert_error_string(vr));
    else if (buf[0]) {
        /* "error:0A000086:SSL routines::certificate verify failed": keep the reason */
        const char *r = strrchr(buf, ':');
        snprintf(why, whylen, "%s: %s", what, r && r[1] ? r + 1 : buf);
    } else
        snprintf(why, whylen, "%s: %s", what, errno ? strerror(errno) : "connection closed");
}

/* A session that fails before it delivered anything: with TLS 1.3 the server
 * checks our certificate only after our side of the handshake is done, so a
 * missing one shows up here, often as a bare reset: say what to look at. */
static void tls_session_failed(rl_sess *s)
{
    int e = errno;
    tls_why(s, "TLS", s->err, sizeof(s->err));
    if (!s->read_any && !s->cert) {
        size_t l = strlen(s->err);
        snprintf(s->err + l, sizeof(s->err) - l, " (server wants a client certificate? local_cert)");
    }
    errno = e ? e : EPROTO;
}

static int passphrase_cb(char *buf, int size, int rwflag, void *u)
{
    (void)rwflag;
    const char *p = u;
    if (!p) return 0;
    int n = (int)strlen(p);
    if (n > size) n = size;
    memcpy(buf, p, (size_t)n);
    return n;
}

/* A session to resume on the next connect, whenever the server hands one
 * out. With TLS 1.3 that is after the handshake (its tickets come with the
 * first records read), so a session taken when SSL_connect returns cannot be
 * resumed; OpenSSL calls this once a session is usable, under TLS 1.2 and 1.3
 * alike. A copy is kept, never a session an SSL uses: SSL_free of a
 * connection closed without close_notify (we never write one, see
 * tls_close) marks that one not resumable. 0: OpenSSL keeps its reference. */
static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
    rl_sess *s = SSL_get_app_data(ssl);
    SSL_SESSION *copy = s ? SSL_SESSION_dup(sess) : NULL;
    if (copy) {
        if (s->tls_sess) SSL_SESSION_free(s->tls_sess);
        s->tls_sess = copy;
    }
    return 0;
}

/* Once the key is loaded, nothing needs the passphrase: this object's later
 * connections reuse its context, and a connection made from this one takes
 * the context along (rl_conn_tls_share). So it is wiped, not kept for the
 * life of a pooled connection. Not from a connection whose settings other
 * threads compare (keep_secret: the watchdog's, conf_shared). */
static void drop_passphrase(rl_node_conf *conf, int keep_secret)
{
    char **p = &conf->tls_conf.passphrase;
    if (!*p || keep_secret) return;
    OPENSSL_cleanse(*p, strlen(*p));
    free(*p);
    *p = NULL;
}

/* Built once per connection object from its settings (loading the CA store
 * is the costly part), kept across reconnects. */
static SSL_CTX *tls_ctx(rl_sess *s, rl_node_conf *conf, int keep_secret, char *why, size_t whylen)
{
    if (s->tls_ctx) return s->tls_ctx;
    const rl_tls_conf *t = &conf->tls_conf;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        tls_why(s, "TLS setup failed", why, whylen);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* (no internal store: each connection keeps its own session, on_new_session) */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    if (!t->no_verify_peer) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        int ok = t->cafile || t->capath ? SSL_CTX_load_verify_locations(ctx, t->cafile, t->capath)
                                        : SSL_CTX_set_default_verify_paths(ctx);
        if (ok != 1) {
            tls_why(s, "TLS CA store", why, whylen);
            SSL_CTX_free(ctx);
            return NULL;
        }
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    if (t->local_cert) {
        SSL_CTX_set_default_passwd_cb(ctx, passphrase_cb);
        SSL_CTX_set_default_passwd_cb_userdata(ctx, t->passphrase);
        if (SSL_CTX_use_certificate_chain_file(ctx, t->local_cert) != 1 ||
            SSL_CTX_use_PrivateKey_file(ctx, t->local_pk ? t->local_pk : t->local_cert, SSL_FILETYPE_PEM) != 1 ||
            SSL_CTX_check_private_key(ctx) != 1) {
            tls_why(s, "TLS client certificate", why, whylen);
            SSL_CTX_free(ctx);
            return NULL;
        }
        /* the key is loaded: the passphrase is not needed any more */
        SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
        drop_passphrase(conf, keep_secret);
    }
    s->tls_ctx = ctx;
    return ctx;
}

int rl_sess_share_ctx(rl_sess *dst, const rl_sess *src)
{
    if (!src->tls_ctx || dst->tls_ctx) return 0;
    if (SSL_CTX_up_ref(src->tls_ctx) != 1) return 0;
    dst->tls_ctx = src->tls_ctx;
    return 1;
}

static int is_ip(const char *s)
{
    unsigned char b[16];
    return s && (inet_pton(AF_INET, s, b) == 1 || inet_pton(AF_INET6, s, b) == 1);
}

/* 1 done, 0 in progress, -1 failed */
static int tls_connect(rl_sess *s, int fd, rl_node_conf *conf, int keep_secret, short *events, char *why, size_t whylen)
{
    SSL *ssl = s->tls;
    if (!ssl) {
        SSL_CTX *ctx = tls_ctx(s, conf, keep_secret, why, whylen);
        if (!ctx) return -1;
        ssl = SSL_new(ctx);
        if (!ssl || SSL_set_fd(ssl, fd) != 1) {
            if (ssl) SSL_free(ssl);
            tls_why(s, "TLS setup failed", why, whylen);
            return -1;
        }
        s->tls = ssl;
        SSL_set_app_data(ssl, s); /* for on_new_session */
        const rl_tls_conf *t = &conf->tls_conf;
        s->cert = t->local_cert != NULL;
        const char *name = t->peer_name ? t->peer_name : conf->host;
        /* SNI for a name, never for an address (RFC 6066) */
        if (name && !is_ip(name)) SSL_set_tlsext_host_name(ssl, name);
        if (name && !t->no_verify_peer && !t->no_verify_peer_name) {
            X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);
            X509_VERIFY_PARAM_set_hostflags(vp, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
            int ok = is_ip(name) ? X509_VERIFY_PARAM_set1_ip_asc(vp, name) : X509_VERIFY_PARAM_set1_host(vp, name, 0);
            if (ok != 1) {
                tls_why(s, "TLS peer name", why, whylen);
                return -1;
            }
        }
        if (s->tls_sess) {
            /* resume: no full handshake. The SSL gets a copy, so that ours
             * stays resumable when it is freed (a resumed TLS 1.2 session
             * brings no new one to on_new_session) */
            SSL_SESSION *copy = SSL_SESSION_dup(s->tls_sess);
            if (copy) {
                SSL_set_session(ssl, copy);
                SSL_SESSION_free(copy);
            }
        }
    }
    ERR_clear_error();
    errno = 0;
    int r = SSL_connect(ssl);
    if (r == 1) return 1; /* (the session to resume next time comes to on_new_session) */
    switch (SSL_get_error(ssl, r)) {
    case SSL_ERROR_WANT_READ: *events = POLLIN; return 0;
    case SSL_ERROR_WANT_WRITE: *events = POLLOUT; return 0;
    default: tls_why(s, "TLS handshake failed", why, whylen); return -1;
    }
}

static ssize_t tls_read(rl_sess *s, int fd, char *buf, size_t len)
{
    (void)fd; /* (the SSL has it) */
    ERR_clear_error();
    errno = 0;
    int r = SSL_read(s->tls, buf, (int)(len > 1 << 30 ? 1 << 30 : len));
    if (r > 0) {
        s->read_any = 1;
        return r;
    }
    switch (SSL_get_error(s->tls, r)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    case SSL_ERROR_SYSCALL:
        if (errno == 0 && ERR_peek_error() == 0) return 0; /* EOF without close_notify */
        /* fall through */
    default:
        /* e.g. TLS 1.3: the server refuses our certificate (or its absence)
         * only after our handshake is done; its alert arrives here */
        tls_session_failed(s);
        return -1;
    }
}

static ssize_t tls_write(rl_sess *s, int fd, const char *buf, size_t len)
{
    (void)fd;
    ERR_clear_error();
    errno = 0;
    int r = SSL_write(s->tls, buf, (int)(len > 1 << 30 ? 1 << 30 : len));
    if (r > 0) return r;
    switch (SSL_get_error(s->tls, r)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    default: tls_session_failed(s); return -1;
    }
}

/* An idle connection: records may arrive that carry no data for us (TLS 1.3
 * session tickets); only application data is "nobody asked for it". */
static int tls_peek(rl_sess *s, int fd)
{
    char b;
    (void)fd;
    ERR_clear_error();
    errno = 0;
    int r = SSL_peek(s->tls, &b, 1);
    if (r > 0) return 2;
    switch (SSL_get_error(s->tls, r)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: return 1;
    default: ERR_clear_error(); return 0;
    }
}

static int tls_pending(const rl_sess *s) { return s->tls ? SSL_pending(s->tls) : 0; }

/* Never SSL_shutdown: no close_notify is written, so a forked child that
 * drops an inherited connection leaves the parent's session untouched. */
static void tls_close(rl_sess *s)
{
    if (s->tls) {
        SSL_free(s->tls);
        s->tls = NULL;
    }
}

static void tls_free(rl_sess *s)
{
    if (s->tls_sess) SSL_SESSION_free(s->tls_sess);
    if (s->tls_ctx) SSL_CTX_free(s->tls_ctx);
    s->tls_sess = s->tls_ctx = NULL;
}

const rl_io rl_io_tls = {
    .name = "tls",
    .connect = tls_connect,
    .read = tls_read,
    .write = tls_write,
    .peek = tls_peek,
    .pending = tls_pending,
    .close = tls_close,
    .free = tls_free,
};

#endif
