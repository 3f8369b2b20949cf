dnl config.m4 -- configure the redlock extension: the Zend glue plus the PHP-free core in redlock_core/.
dnl config.w32 is kept parallel to this file.

PHP_ARG_ENABLE([redlock],
  [whether to enable the redlock distributed lock extension],
  [AS_HELP_STRING([--enable-redlock], [Enable redlock support])],
  [yes])

PHP_ARG_WITH([hiredis],
  [for the hiredis library],
  [AS_HELP_STRING([[--with-hiredis[=DIR]]], [redlock: hiredis install prefix (default: found with pkg-config)])],
  [yes], [no])

PHP_ARG_ENABLE([redlock-tls],
  [whether to build redlock with TLS (rediss://, OpenSSL)],
  [AS_HELP_STRING([--disable-redlock-tls], [redlock: build without TLS even when OpenSSL is found])],
  [yes], [no])

if test "$PHP_REDLOCK" != "no"; then
  HIREDIS_FOUND=no
  if test "$PHP_HIREDIS" != "yes" && test "$PHP_HIREDIS" != "no"; then
    dnl an explicit prefix wins over pkg-config
    if test -r "$PHP_HIREDIS/include/hiredis/read.h"; then
      PHP_ADD_INCLUDE([$PHP_HIREDIS/include])
      PHP_ADD_LIBRARY_WITH_PATH([hiredis], [$PHP_HIREDIS/$PHP_LIBDIR], [REDLOCK_SHARED_LIBADD])
      HIREDIS_FOUND=yes
    else
      AC_MSG_ERROR([hiredis not found under $PHP_HIREDIS (no include/hiredis/read.h)])
    fi
  else
    PKG_CHECK_MODULES([HIREDIS], [hiredis >= 0.13], [
      PHP_EVAL_INCLINE([$HIREDIS_CFLAGS])
      PHP_EVAL_LIBLINE([$HIREDIS_LIBS], [REDLOCK_SHARED_LIBADD])
      HIREDIS_FOUND=yes
    ], [
      AC_MSG_ERROR([hiredis not found: install libhiredis-dev (Debian/Ubuntu), hiredis-dev (Alpine) or hiredis-devel (RHEL/Fedora), or pass --with-hiredis=DIR])
    ])
  fi

  PHP_ADD_LIBRARY([pthread], [1], [REDLOCK_SHARED_LIBADD])

  dnl TLS by default when OpenSSL is found (pkg-config); the core tests RL_HAVE_TLS
  REDLOCK_TLS_CFLAGS=""
  if test "$PHP_REDLOCK_TLS" != "no"; then
    PKG_CHECK_MODULES([REDLOCK_OPENSSL], [openssl >= 1.1.1], [
      PHP_EVAL_INCLINE([$REDLOCK_OPENSSL_CFLAGS])
      PHP_EVAL_LIBLINE([$REDLOCK_OPENSSL_LIBS], [REDLOCK_SHARED_LIBADD])
      REDLOCK_TLS_CFLAGS="-DRL_HAVE_TLS"
      AC_MSG_NOTICE([redlock: TLS with OpenSSL])
    ], [
      AC_MSG_WARN([redlock: OpenSSL not found (install libssl-dev): building without TLS])
    ])
  fi

  PHP_NEW_EXTENSION([redlock],
    [redlock.c redlock_options.c redlock_pool.c redlock_nodes.c redlock_class.c redlock_acquire.c redlock_keys.c redlock_lock.c redlock_watch.c redlock_metrics.c redlock_metrics_table.c redlock_metrics_text.c redlock_core/rl_sys.c redlock_core/net/rl_resp.c redlock_core/net/rl_uri.c redlock_core/net/rl_conn.c redlock_core/net/rl_dial.c redlock_core/net/rl_read.c redlock_core/net/rl_node.c redlock_core/net/rl_sub.c redlock_core/net/rl_fanout.c redlock_core/net/rl_io.c redlock_core/net/rl_tls.c redlock_core/net/rl_wait.c redlock_core/lock/rl_keys.c redlock_core/lock/rl_quorum.c redlock_core/lock/rl_restart.c redlock_core/lock/rl_cmd.c redlock_core/lock/rl_retry.c redlock_core/lock/rl_acquire.c redlock_core/lock/rl_permit.c redlock_core/lock/rl_release.c redlock_core/lock/rl_fence.c redlock_core/lock/rl_stats.c redlock_core/lock/rl_watch.c redlock_core/lock/rl_watchdog.c redlock_core/lock/rl_scripts_gen.c],
    [$ext_shared], [], [-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -DZEND_ENABLE_STATIC_TSRMLS_CACHE=1 $REDLOCK_TLS_CFLAGS])
  PHP_ADD_BUILD_DIR([$ext_builddir/redlock_core])
  PHP_ADD_BUILD_DIR([$ext_builddir/redlock_core/lock])
  PHP_ADD_BUILD_DIR([$ext_builddir/redlock_core/net])
  dnl the core's folders include each other's headers by name (redlock_core/Makefile INC)
  PHP_ADD_INCLUDE([$ext_srcdir/redlock_core])
  PHP_ADD_INCLUDE([$ext_srcdir/redlock_core/net])
  PHP_ADD_INCLUDE([$ext_srcdir/redlock_core/lock])
  PHP_SUBST([REDLOCK_SHARED_LIBADD])
fi
