/* redlock_options.c -- the options: their table, INI defaults and validators, the options-array parser. */
#include "php_redlock_int.h"

const php_redlock_opt_def php_redlock_opt_defs[REDLOCK_OPT_COUNT] = {
#define X(n, t, w, ini, lo, hi)                                                                                  \
    [REDLOCK_OPT_##n] = {.name = #n, .type = REDLOCK_##t, .where = REDLOCK_WHERE_##w,                           \
                         .offset = offsetof(php_redlock_opts, n), .min = (lo), .max = (hi)},
    REDLOCK_OPTIONS(X)
#undef X
};

_Static_assert(REDLOCK_OPT_COUNT <= 32, "options are tracked in a 32-bit mask");

#define REDLOCK_FROM_INI_LONG(to, from) (to) = (from)
#define REDLOCK_FROM_INI_DOUBLE(to, from) (to) = (from)
#define REDLOCK_FROM_INI_BOOL(to, from) (to) = (from)
#define REDLOCK_FROM_INI_STRING(to, from) (to) = zend_string_init((from) ? (from) : "", (from) ? strlen(from) : 0, 0)
/* a PERCALL option (no INI entry): unset */
#define REDLOCK_UNSET_LONG(to) (to) = 0
#define REDLOCK_UNSET_DOUBLE(to) (to) = 0
#define REDLOCK_UNSET_BOOL(to) (to) = false
#define REDLOCK_UNSET_STRING(to) (to) = ZSTR_EMPTY_ALLOC()
#define REDLOCK_DEFAULT_CALL(t, to, n) REDLOCK_FROM_INI_##t(to, REDLOCK_G(n))
#define REDLOCK_DEFAULT_CTOR(t, to, n) REDLOCK_FROM_INI_##t(to, REDLOCK_G(n))
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
#define REDLOCK_FREE_LONG(v)
#define REDLOCK_FREE_DOUBLE(v)
#define REDLOCK_FREE_BOOL(v)
#define REDLOCK_FREE_STRING(v) zend_string_release(v)

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
    }
    return FAILURE;
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
    return OnUpdateString(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}
