/* redlock_options.c -- the options: their table, INI defaults and validators, the options-array parser, TLS settings. */
#include "php_redlock_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "main/fopen_wrappers.h"
#include "zend_smart_str.h"

const php_redlock_opt_def php_redlock_opt_defs[REDLOCK_OPT_COUNT] = {
#define X(n, t, w, ini, lo, hi)                                                                                  \
    [REDLOCK_OPT_##n] = {.name = #n, .type = REDLOCK_##t, .where = REDLOCK_WHERE_##w,                           \
                         .offset = offsetof(php_redlock_opts, n), .min = (lo), .max = (hi)},
    REDLOCK_OPTIONS(X)
#undef X
};

_Static_assert(REDLOCK_OPT_COUNT <= 32, "options are tracked in a 32-bit mask");

#define REDLOCK_FROM_INI_LONG(to, n) (to) = REDLOCK_G(n)
#define REDLOCK_FROM_INI_DOUBLE(to, n) (to) = REDLOCK_G(n)
#define REDLOCK_FROM_INI_BOOL(to, n) (to) = REDLOCK_G(n)
#define REDLOCK_FROM_INI_STRING(to, n)                                                                         \
    (to) = zend_string_init(REDLOCK_G(n) ? REDLOCK_G(n) : "", REDLOCK_G(n) ? strlen(REDLOCK_G(n)) : 0, 0)
#define REDLOCK_FROM_INI_TLS(to, n) (to) = NULL /* no INI entry */
#define REDLOCK_FROM_INI_GRACE(to, n) (to) = REDLOCK_G(n)
#define REDLOCK_FROM_INI_LOST(to, n)                                                                           \
    if (REDLOCK_G(n))                                                                                          \
        ZVAL_TRUE(&(to));                                                                                      \
    else                                                                                                       \
        ZVAL_UNDEF(&(to)) /* not given: synchronized() may choose */
/* a PERCALL option (no INI entry): unset */
#define REDLOCK_UNSET_LONG(to) (to) = 0
#define REDLOCK_UNSET_DOUBLE(to) (to) = 0
#define REDLOCK_UNSET_BOOL(to) (to) = false
#define REDLOCK_UNSET_STRING(to) (to) = ZSTR_EMPTY_ALLOC()
#define REDLOCK_DEFAULT_CALL(t, to, n) REDLOCK_FROM_INI_##t(to, n)
#define REDLOCK_DEFAULT_CTOR(t, to, n) REDLOCK_FROM_INI_##t(to, n)
#define REDLOCK_DEFAULT_PERCALL(t, to, n) REDLOCK_UNSET_##t(to)

void php_redlock_opts_from_ini(php_redlock_opts *o)
{
#define X(n, t, w, ini, lo, hi) REDLOCK_DEFAULT_##w(t, o->n, n);
    REDLOCK_OPTIONS(X)
#undef X
}

#define REDLOCK_COPY_LONG(v)
#define REDLOCK_COPY_DOUBLE(v)
#define REDLOCK_COPY_BOOL(v)
#define REDLOCK_COPY_STRING(v) zend_string_copy(v)
#define REDLOCK_COPY_TLS(v)                                                                                    \
    if (v) GC_ADDREF(v)
#define REDLOCK_COPY_LOST(v) Z_TRY_ADDREF(v)
#define REDLOCK_COPY_GRACE(v)
#define REDLOCK_FREE_GRACE(v)
#define REDLOCK_FREE_LOST(v) zval_ptr_dtor(&(v))
#define REDLOCK_FREE_LONG(v)
#define REDLOCK_FREE_DOUBLE(v)
#define REDLOCK_FREE_BOOL(v)
#define REDLOCK_FREE_STRING(v) zend_string_release(v)
#define REDLOCK_FREE_TLS(v) php_redlock_tls_release(v)

void php_redlock_opts_copy(php_redlock_opts *to, const php_redlock_opts *from)
{
    *to = *from;
#define X(n, t, w, ini, lo, hi) REDLOCK_COPY_##t(to->n);
    REDLOCK_OPTIONS(X)
#undef X
}

void php_redlock_opts_free(php_redlock_opts *o)
{
#define X(n, t, w, ini, lo, hi) REDLOCK_FREE_##t(o->n);
    REDLOCK_OPTIONS(X)
#undef X
}

static const php_redlock_opt_def *opt_find(zend_string *key)
{
    for (size_t i = 0; i < REDLOCK_OPT_COUNT; i++) {
        if (zend_string_equals_cstr(key, php_redlock_opt_defs[i].name, strlen(php_redlock_opt_defs[i].name)))
            return &php_redlock_opt_defs[i];
    }
    return NULL;
}

/* One option's value into its field; throws and returns FAILURE when it does not fit. */
static zend_result opt_set(const php_redlock_opt_def *d, void *field, zval *v, uint32_t argn)
{
    switch (d->type) {
    case REDLOCK_LONG:
        if (Z_TYPE_P(v) != IS_LONG) {
            zend_argument_type_error(argn, "\"%s\" must be of type int, %s given", d->name, zend_zval_type_name(v));
            return FAILURE;
        }
        if (Z_LVAL_P(v) < d->min || Z_LVAL_P(v) > d->max) {
            zend_argument_value_error(argn, "\"%s\" must be between " ZEND_LONG_FMT " and " ZEND_LONG_FMT, d->name,
                                      d->min, d->max);
            return FAILURE;
        }
        *(zend_long *)field = Z_LVAL_P(v);
        return SUCCESS;
    case REDLOCK_DOUBLE: {
        double dv;
        if (Z_TYPE_P(v) == IS_DOUBLE)
            dv = Z_DVAL_P(v);
        else if (Z_TYPE_P(v) == IS_LONG)
            dv = (double)Z_LVAL_P(v);
        else {
            zend_argument_type_error(argn, "\"%s\" must be of type float, %s given", d->name, zend_zval_type_name(v));
            return FAILURE;
        }
        if (!(dv >= (double)d->min && dv < (double)d->max)) { /* also refuses NAN */
            zend_argument_value_error(argn, "\"%s\" must be a finite number in [" ZEND_LONG_FMT ", " ZEND_LONG_FMT ")",
                                      d->name, d->min, d->max);
            return FAILURE;
        }
        *(double *)field = dv;
        return SUCCESS;
    }
    case REDLOCK_BOOL:
        if (Z_TYPE_P(v) != IS_TRUE && Z_TYPE_P(v) != IS_FALSE) {
            zend_argument_type_error(argn, "\"%s\" must be of type bool, %s given", d->name, zend_zval_type_name(v));
            return FAILURE;
        }
        *(bool *)field = Z_TYPE_P(v) == IS_TRUE;
        return SUCCESS;
    case REDLOCK_STRING:
        if (Z_TYPE_P(v) != IS_STRING) {
            zend_argument_type_error(argn, "\"%s\" must be of type string, %s given", d->name, zend_zval_type_name(v));
            return FAILURE;
        }
        if (Z_STRLEN_P(v) > (size_t)d->max || Z_STRLEN_P(v) < (size_t)d->min) {
            if (d->min > 0)
                zend_argument_value_error(argn, "\"%s\" must be between " ZEND_LONG_FMT " and " ZEND_LONG_FMT " bytes long",
                                          d->name, d->min, d->max);
            else
                zend_argument_value_error(argn, "\"%s\" must be at most " ZEND_LONG_FMT " bytes", d->name, d->max);
            return FAILURE;
        }
        if (memchr(Z_STRVAL_P(v), '\0', Z_STRLEN_P(v))) {
            zend_argument_value_error(argn, "\"%s\" must not contain NUL bytes", d->name);
            return FAILURE;
        }
        zend_string_release(*(zend_string **)field);
        *(zend_string **)field = zend_string_copy(Z_STR_P(v));
        return SUCCESS;
    case REDLOCK_LOST: {
        zval *f = field;
        if (Z_TYPE_P(v) == IS_STRING) {
            /* never a function name: 'throw' is the only string */
            if (!zend_string_equals_literal(Z_STR_P(v), "throw")) {
                zend_argument_value_error(argn, "\"%s\" must be 'throw', a callable or null", d->name);
                return FAILURE;
            }
            zval_ptr_dtor(f);
            ZVAL_TRUE(f);
            return SUCCESS;
        }
        if (Z_TYPE_P(v) != IS_NULL && !zend_is_callable(v, 0, NULL)) {
            zend_argument_type_error(argn, "\"%s\" must be 'throw', a callable or null, %s given", d->name,
                                     zend_zval_type_name(v));
            return FAILURE;
        }
        zval_ptr_dtor(f);
        ZVAL_COPY(f, v);
        return SUCCESS;
    }
    case REDLOCK_GRACE:
        /* docs/api.md "Restarted nodes": ms (0: off), or 'auto' */
        if (Z_TYPE_P(v) == IS_STRING && zend_string_equals_literal(Z_STR_P(v), "auto")) {
            *(zend_long *)field = RL_GRACE_AUTO;
            return SUCCESS;
        }
        if (Z_TYPE_P(v) != IS_LONG || Z_LVAL_P(v) < d->min || Z_LVAL_P(v) > d->max) {
            zend_argument_value_error(argn, "\"%s\" must be 'auto' or an int between " ZEND_LONG_FMT " and " ZEND_LONG_FMT
                                      " (ms)", d->name, d->min, d->max);
            return FAILURE;
        }
        *(zend_long *)field = Z_LVAL_P(v);
        return SUCCESS;
    case REDLOCK_TLS: {
        if (Z_TYPE_P(v) != IS_ARRAY) {
            zend_argument_type_error(argn, "\"%s\" must be of type array, %s given", d->name, zend_zval_type_name(v));
            return FAILURE;
        }
        HashTable *t = php_redlock_tls_parse(Z_ARRVAL_P(v), argn, "\"tls\"");
        if (!t) return FAILURE;
        php_redlock_tls_release(*(HashTable **)field);
        *(HashTable **)field = t;
        return SUCCESS;
    }
    }
    return FAILURE;
}

/* ---------- TLS settings: the "tls" option and a node's "tls" array ---------- */

typedef enum { TLS_FILE, TLS_DIR, TLS_SECRET, TLS_NAME, TLS_NOT } tls_type;

static const struct tls_setting {
    const char *name;
    tls_type type;
    size_t offset; /* in rl_tls_conf: char * for strings, int (negated) for NOT */
} tls_settings[] = {
#define X(n, t, field) {.name = #n, .type = TLS_##t, .offset = offsetof(rl_tls_conf, field)},
    REDLOCK_TLS_SETTINGS(X)
#undef X
};
#define TLS_SETTINGS_COUNT (sizeof(tls_settings) / sizeof(tls_settings[0]))
/* every field of the core's rl_tls_conf (RL_TLS_CONF_FIELDS) has its PHP setting
 * here (each entry names its own field): a TLS field added there without one
 * fails the build */
#define ONE_FIELD(kind, f) +1
#define ONE_SETTING(n, t, field) +1
_Static_assert((0 RL_TLS_CONF_FIELDS(ONE_FIELD)) == (0 REDLOCK_TLS_SETTINGS(ONE_SETTING)),
               "a field of RL_TLS_CONF_FIELDS has no entry in REDLOCK_TLS_SETTINGS (php_redlock.h)");
#undef ONE_FIELD
#undef ONE_SETTING
#define TLS_MAX_PATH 4095   /* PATH_MAX less its NUL */
#define TLS_MAX_SECRET 1023 /* OpenSSL's PEM passphrase buffer (PEM_BUFSIZE) less its NUL */
#define TLS_MAX_NAME 255

static const struct tls_setting *tls_find(zend_string *k)
{
    for (size_t i = 0; i < TLS_SETTINGS_COUNT; i++)
        if (zend_string_equals_cstr(k, tls_settings[i].name, strlen(tls_settings[i].name))) return &tls_settings[i];
    return NULL;
}

/* "cafile, capath, ..." */
static void tls_names(smart_str *s)
{
    for (size_t i = 0; i < TLS_SETTINGS_COUNT; i++) {
        if (i) smart_str_appends(s, ", ");
        smart_str_appends(s, tls_settings[i].name);
    }
    smart_str_0(s);
}

/* A FILE or DIR setting: absolute (relative to the current directory now, not
 * at connect time, which may be in another request), inside open_basedir, and
 * readable by this process right now. Throws and returns NULL otherwise. */
static zend_string *tls_path(const char *path, bool dir, uint32_t argn, const char *what, const char *name)
{
    char *abs = expand_filepath(path, NULL);
    if (!abs) {
        zend_argument_value_error(argn, "%s setting \"%s\" cannot be resolved: %s", what, name, path);
        return NULL;
    }
    if (php_check_open_basedir_ex(abs, 0) != 0) {
        zend_argument_value_error(argn, "%s setting \"%s\" is outside open_basedir: %s", what, name, abs);
        efree(abs);
        return NULL;
    }
    int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        zend_argument_value_error(argn, "%s setting \"%s\" cannot be read: %s (%s)", what, name, abs, strerror(e));
        efree(abs);
        return NULL;
    }
    close(fd);
    if (!dir && !S_ISREG(st.st_mode)) {
        zend_argument_value_error(argn, "%s setting \"%s\" is not a regular file: %s", what, name, abs);
        efree(abs);
        return NULL;
    }
    zend_string *r = zend_string_init(abs, strlen(abs), 0);
    efree(abs);
    return r;
}

HashTable *php_redlock_tls_parse(HashTable *in, uint32_t argn, const char *what)
{
    HashTable *out = zend_new_array(TLS_SETTINGS_COUNT);
    zend_string *k;
    zend_ulong idx;
    zval *v;
    ZEND_HASH_FOREACH_KEY_VAL(in, idx, k, v) {
        const struct tls_setting *ts = k ? tls_find(k) : NULL;
        if (!ts) {
            smart_str names = {0};
            tls_names(&names);
            if (k)
                zend_argument_value_error(argn, "%s has an unknown setting \"%s\" (known: %s)", what, ZSTR_VAL(k),
                                          ZSTR_VAL(names.s));
            else
                zend_argument_value_error(argn, "%s settings must have string keys (%s), key " ZEND_ULONG_FMT " given",
                                          what, ZSTR_VAL(names.s), idx);
            smart_str_free(&names);
            goto fail;
        }
        const char *name = ts->name;
        zval val;
        ZVAL_DEREF(v);
        if (ts->type == TLS_NOT) {
            if (Z_TYPE_P(v) != IS_TRUE && Z_TYPE_P(v) != IS_FALSE) {
                zend_argument_value_error(argn, "%s setting \"%s\" must be of type bool, %s given", what, name,
                                          zend_zval_type_name(v));
                goto fail;
            }
            ZVAL_BOOL(&val, Z_TYPE_P(v) == IS_TRUE);
        } else if (Z_TYPE_P(v) == IS_NULL) {
            ZVAL_NULL(&val); /* not set: the default, also over the option's value */
        } else if (Z_TYPE_P(v) != IS_STRING) {
            zend_argument_value_error(argn, "%s setting \"%s\" must be of type ?string, %s given", what, name,
                                      zend_zval_type_name(v));
            goto fail;
        } else if (memchr(Z_STRVAL_P(v), '\0', Z_STRLEN_P(v))) {
            zend_argument_value_error(argn, "%s setting \"%s\" must not contain NUL bytes", what, name);
            goto fail;
        } else {
            size_t len = Z_STRLEN_P(v);
            switch (ts->type) {
            case TLS_SECRET:
                if (len > TLS_MAX_SECRET) {
                    zend_argument_value_error(argn, "%s setting \"%s\" must be at most %d bytes", what, name,
                                              TLS_MAX_SECRET);
                    goto fail;
                }
                /* a string of our own, wiped when released (never the caller's),
                 * copied as the core copies a secret (rl_secret_copy) */
                if (len == 0) {
                    ZVAL_NULL(&val);
                } else {
                    zend_string *secret = zend_string_alloc(len, 0);
                    rl_secret_copy(ZSTR_VAL(secret), Z_STRVAL_P(v), len);
                    ZSTR_VAL(secret)[len] = '\0';
                    ZVAL_STR(&val, secret);
                }
                break;
            case TLS_NAME:
                if (len < 1 || len > TLS_MAX_NAME) {
                    zend_argument_value_error(argn, "%s setting \"%s\" must be between 1 and %d bytes", what, name,
                                              TLS_MAX_NAME);
                    goto fail;
                }
                ZVAL_STR_COPY(&val, Z_STR_P(v));
                break;
            default: { /* TLS_FILE, TLS_DIR */
                if (len < 1 || len > TLS_MAX_PATH) {
                    zend_argument_value_error(argn, "%s setting \"%s\" must be a path of 1 to %d bytes", what, name,
                                              TLS_MAX_PATH);
                    goto fail;
                }
                zend_string *p = tls_path(Z_STRVAL_P(v), ts->type == TLS_DIR, argn, what, name);
                if (!p) goto fail;
                ZVAL_STR(&val, p);
                break;
            }
            }
        }
        zend_hash_str_update(out, name, strlen(name), &val);
    } ZEND_HASH_FOREACH_END();
    return out;
fail:
    php_redlock_tls_release(out);
    return NULL;
}

void php_redlock_tls_release(HashTable *settings)
{
    if (!settings || GC_DELREF(settings) > 0) return;
    zval *pp = zend_hash_str_find(settings, "passphrase", sizeof("passphrase") - 1);
    if (pp && Z_TYPE_P(pp) == IS_STRING && !ZSTR_IS_INTERNED(Z_STR_P(pp)) && GC_REFCOUNT(Z_STR_P(pp)) == 1)
        ZEND_SECURE_ZERO(Z_STRVAL_P(pp), Z_STRLEN_P(pp));
    zend_array_destroy(settings);
}

zend_result php_redlock_tls_apply(rl_tls_conf *t, HashTable *settings)
{
    if (!settings) return SUCCESS;
    for (size_t i = 0; i < TLS_SETTINGS_COUNT; i++) {
        const struct tls_setting *ts = &tls_settings[i];
        zval *v = zend_hash_str_find(settings, ts->name, strlen(ts->name));
        if (!v) continue;
        if (ts->type == TLS_NOT) {
            *(int *)((char *)t + ts->offset) = Z_TYPE_P(v) != IS_TRUE; /* no_verify_*: 1 for false */
            continue;
        }
        char **f = (char **)((char *)t + ts->offset);
        if (ts->type == TLS_SECRET) {
            rl_secret_free(*f);
            *f = NULL;
            if (Z_TYPE_P(v) == IS_STRING && !(*f = rl_secret_dup(Z_STRVAL_P(v), Z_STRLEN_P(v)))) return FAILURE;
            continue;
        }
        free(*f);
        *f = NULL;
        if (Z_TYPE_P(v) == IS_STRING && !(*f = strndup(Z_STRVAL_P(v), Z_STRLEN_P(v)))) return FAILURE;
    }
    return SUCCESS;
}

zend_result php_redlock_opts_apply(php_redlock_opts *o, HashTable *ht, uint32_t argn, int where)
{
    zend_string *key;
    zend_ulong idx;
    zval *v;
    uint32_t seen = 0;

    ZEND_HASH_FOREACH_KEY_VAL(ht, idx, key, v) {
        if (!key) {
            zend_argument_value_error(argn, "must be an array with string keys, key " ZEND_ULONG_FMT " given", idx);
            return FAILURE;
        }
        const php_redlock_opt_def *d = opt_find(key);
        if (!d && zend_string_equals_literal(key, "shared")) {
            /* (lock(), lockAll() and synchronized() take it out before) */
            zend_argument_value_error(argn, "\"shared\" is a per-call option (lock(), lockAll(), synchronized()) and cannot be set in the constructor");
            return FAILURE;
        }
        if (!d) {
            zend_argument_value_error(argn, "contains unknown option \"%s\"", ZSTR_VAL(key));
            return FAILURE;
        }
        if (!(d->where & where)) {
            if (where == REDLOCK_IN_CALL)
                zend_argument_value_error(argn, "\"%s\" is a constructor option and cannot be set per call", d->name);
            else
                zend_argument_value_error(argn, "\"%s\" is a per-call option (lock(), synchronized()) and cannot be set in the constructor",
                                          d->name);
            return FAILURE;
        }
        ZVAL_DEREF(v);
        if (opt_set(d, (char *)o + d->offset, v, argn) != SUCCESS) return FAILURE;
        seen |= 1u << (d - php_redlock_opt_defs);
    } ZEND_HASH_FOREACH_END();

    const uint32_t both = (1u << REDLOCK_OPT_wait) | (1u << REDLOCK_OPT_retry_count);
    if ((seen & both) == both && o->wait > 0) { /* wait => 0 means "no wait" */
        /* two stopping rules at once: refuse rather than guess which wins
         * (with a wait from the constructor or INI, a per-call retry_count is ignored) */
        zend_argument_value_error(argn, "\"wait\" and \"retry_count\" cannot be given together");
        return FAILURE;
    }
    return SUCCESS;
}

/* ---------- INI: one validator per type, the limits come from the option's table entry ---------- */

static const char *ini_keeping(zend_ini_entry *entry)
{
    return entry->value ? ZSTR_VAL(entry->value) : "the default";
}

ZEND_INI_MH(php_redlock_ini_update_LONG)
{
    const php_redlock_opt_def *d = mh_arg3;
    zend_long v = ZEND_STRTOL(ZSTR_VAL(new_value), NULL, 10);
    if (ZSTR_LEN(new_value) == 0 || strspn(ZSTR_VAL(new_value), "0123456789") != ZSTR_LEN(new_value) || v < d->min ||
        v > d->max) {
        php_error_docref(NULL, E_WARNING,
                         "%s must be an integer between " ZEND_LONG_FMT " and " ZEND_LONG_FMT ", keeping %s",
                         ZSTR_VAL(entry->name), d->min, d->max, ini_keeping(entry));
        return FAILURE;
    }
    return OnUpdateLong(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

ZEND_INI_MH(php_redlock_ini_update_DOUBLE)
{
    const php_redlock_opt_def *d = mh_arg3;
    char *end;
    double v = zend_strtod(ZSTR_VAL(new_value), (const char **)&end);
    if (end == ZSTR_VAL(new_value) || *end || !(v >= (double)d->min && v < (double)d->max)) {
        php_error_docref(NULL, E_WARNING, "%s must be a number in [" ZEND_LONG_FMT ", " ZEND_LONG_FMT "), keeping %s",
                         ZSTR_VAL(entry->name), d->min, d->max, ini_keeping(entry));
        return FAILURE;
    }
    return OnUpdateReal(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

ZEND_INI_MH(php_redlock_ini_update_STRING)
{
    const php_redlock_opt_def *d = mh_arg3;
    if (ZSTR_LEN(new_value) > (size_t)d->max) {
        php_error_docref(NULL, E_WARNING, "%s must be at most " ZEND_LONG_FMT " bytes", ZSTR_VAL(entry->name), d->max);
        return FAILURE;
    }
    /* the value is kept as a C string: what follows a NUL would be dropped
     * without a word ("a\0b" read as "a"), as the option refuses it */
    if (memchr(ZSTR_VAL(new_value), '\0', ZSTR_LEN(new_value))) {
        php_error_docref(NULL, E_WARNING, "%s must not contain NUL bytes, keeping \"%s\"", ZSTR_VAL(entry->name),
                         entry->value ? ZSTR_VAL(entry->value) : "");
        return FAILURE;
    }
    return OnUpdateString(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

ZEND_INI_MH(php_redlock_ini_update_LOST)
{
    /* 'throw' or nothing: a callable has no INI form */
    bool on = zend_string_equals_literal(new_value, "throw");
    if (!on && ZSTR_LEN(new_value) != 0) {
        php_error_docref(NULL, E_WARNING, "%s must be \"throw\" or empty, keeping %s", ZSTR_VAL(entry->name),
                         entry->value && ZSTR_LEN(entry->value) ? ZSTR_VAL(entry->value) : "empty");
        return FAILURE;
    }
    *(bool *)ZEND_INI_GET_ADDR() = on;
    return SUCCESS;
}

ZEND_INI_MH(php_redlock_ini_update_GRACE)
{
    /* 'auto' or ms between 0 and INT_MAX; anything else keeps the previous value */
    const php_redlock_opt_def *d = mh_arg3;
    zend_long v;
    if (zend_string_equals_literal(new_value, "auto")) {
        v = RL_GRACE_AUTO;
    } else {
        char *end;
        errno = 0;
        long long x = ZSTR_LEN(new_value) ? strtoll(ZSTR_VAL(new_value), &end, 10) : -1;
        if (!ZSTR_LEN(new_value) || *end || errno || x < d->min || x > d->max) {
            php_error_docref(NULL, E_WARNING, "%s must be \"auto\" or an int between " ZEND_LONG_FMT " and " ZEND_LONG_FMT
                             " (ms), keeping %s", ZSTR_VAL(entry->name), d->min, d->max, ini_keeping(entry));
            return FAILURE;
        }
        v = (zend_long)x;
    }
    *(zend_long *)ZEND_INI_GET_ADDR() = v;
    return SUCCESS;
}
