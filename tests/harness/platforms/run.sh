#!/usr/bin/env bash
# tests/harness/platforms/run.sh -- the platform matrix (README "Tested platforms"): the extension built and
# tested where PHP runs besides this machine's PHP 8.2 (non-thread-safe):
#   trixie-redis    Debian 13 chroot (debootstrap --variant=minbase trixie; Debian's packages only):
#                   PHP 8.4, hiredis 1.2, OpenSSL 3.5; the C unit tests and the .phpt suite, Redis 8.0 nodes
#   trixie-valkey   the same chroot and build, the .phpt suite on Valkey 8.1 nodes (REDIS_SERVER=valkey-server)
#   zts-phpt        PHP 8.2 built ZTS + debug (+ embed) from Debian's source package: the .phpt suite
#                   (a debug build reports every leak and failed assertion into the output: any is a FAIL)
#   zts-threads     tests/harness/platforms/zts_threads.c: 8 threads x many requests in one process over the
#                   embed SAPI (the FrankenPHP model), under that ZTS build
#
#   bash tests/harness/platforms/run.sh [entry...]        (default: every entry)
#   bash tests/harness/platforms/run.sh --prepare         only make what the cache lacks (the chroot, the
#                                                 ZTS PHP) and stop (to warm the cache; the test
#                                                 command's scripts/suites/platforms.sh runs the
#                                                 chroot's entries and the ZTS ones as two run.sh
#                                                 side by side, each making its part of the cache)
#
# Each entry ends with a line "platform ENTRY: N passed, N failed, N skipped" (scripts/test.sh counts
# them), the run with "platforms: N passed, N failed, N skipped". An entry is skipped, saying why, only
# where it cannot run: not root (chroot, mount), no Debian mirror reachable; with CI=true a skip is a
# failure. Needs root.
#
# Cache (REDLOCK_PLATFORMS_CACHE, default /var/cache/redlock-platforms; outside the repo): the chroot,
# keyed by its package list, and the ZTS PHP, keyed by its version and configure line, so a repeat
# run only rebuilds the extension. A cold run also debootstraps and installs the chroot (6 minutes
# measured on a busy 2-core machine) and builds PHP (16 CPU-minutes: 37 minutes there, about 8 on
# an idle one), side by side, under nice. Then the entries run (see main).
set -uo pipefail
cd "$(dirname "$0")/../../.."
root=$(pwd)
cache=${REDLOCK_PLATFORMS_CACHE:-/var/cache/redlock-platforms}
ci=${CI:-false}
# the cold cache's builds and installs at a lower priority (REDLOCK_PLATFORMS_NICE, default 10);
# scripts/suites/platforms.sh gives the ZTS build the priority of the other suites: on a cold
# cache it is the longest step of the test command, and other lanes share the cores meanwhile
NICE=(nice -n "${REDLOCK_PLATFORMS_NICE:-10}")

SUITE=trixie
# Debian's packages only (the issue's list), plus what the build and the suites use:
# build-essential (phpize's compiler), redis-tools (redis-cli for tests/nodes.sh), strace
# (tests/nodes/same_server_check_remembered.phpt), git-free: the tree is copied in.
CHROOT_PKGS="php8.4-cli php8.4-dev libhiredis-dev redis-server redis-tools valkey-server make libssl-dev pkg-config procps openssl build-essential strace"
ZTS_PHP=php8.2
# the tests need pcntl (fork tests), posix, and openssl (the TLS tests' own raw TLS connections)
ZTS_CONFIGURE="--enable-zts --enable-debug --enable-embed --disable-all --disable-cgi --disable-phpdbg --without-pear --enable-pcntl --enable-posix --with-openssl"

prepare=0
if [ "${1:-}" = --prepare ]; then prepare=1; shift; fi
declare -A want=()
entries=(trixie-redis trixie-valkey zts-phpt zts-threads)
if [ $# -gt 0 ]; then for e in "$@"; do want[$e]=1; done; else for e in "${entries[@]}"; do want[$e]=1; done; fi

# every entry's line also goes to $results: the totals come from it
report() { # entry passed failed skipped [reason]
  [ -n "${5:-}" ] && echo "platform $1: skipped: $5"
  echo "platform $1: $2 passed, $3 failed, $4 skipped" | tee -a "$results"
}
# An entry that cannot run: a skip with its reason, a failure in CI.
cannot() { # entry reason
  if [ "$ci" = true ]; then echo "platform $1: cannot run in CI: $2"; report "$1" 0 1 0; else report "$1" 0 0 1 "$2"; fi
}
# run-tests.php's summary -> "passed failed skipped" (warned and borked are failures; nothing run, or
# a runner that failed without a failed test, is one); the failed tests' names on stderr
phpt_numbers() { # logfile rc [outdir: what each attempt printed, tests/config.inc REDLOCK_PHPT_OUTDIR]
  sed -n '/^\(FAILED\|WARNED\) TEST SUMMARY/,/^=====/p' "$1" | grep -vE '^(-----|=====|(FAILED|WARNED) TEST SUMMARY)' | head -n 20 | sed 's/^/    | /' >&2
  phpt_attempts "$1" "${3:-}" >&2
  awk -v rc="$2" '/^Tests (passed|failed|skipped|warned|borked) *:/ { n[$2] = $4 }
    END { p = n["passed"] + 0; f = n["failed"] + n["warned"] + n["borked"]
          if (p == 0 && f == 0 || rc != 0 && f == 0) f = 1
          print p, f, n["skipped"] + 0 }' "$1"
}
secs() { echo $(( $(date +%s) - $1 )); }
# shellcheck source=../../phpt_attempts.sh
. "$root/tests/phpt_attempts.sh"
log_dir=$(mktemp -d /tmp/redlock-platforms.XXXXXX)
results=$log_dir/results
: >"$results"
echo "platforms: logs in $log_dir, cache in $cache"

# ---- the Debian 13 chroot ------------------------------------------------------------------------
croot=""          # the chroot in use (mounted while set)
mounted=()
umount_all() {
  local m i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    m=${mounted[i]}
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "platforms: cannot unmount $m" >&2
  done
  mounted=()
}
# the chroot's nodes (started by the entries) stopped before /proc goes
stop_chroot_nodes() {
  [ -n "$croot" ] && [ -d "$croot/proc/1" ] || return 0
  local d
  for d in "$croot"/tmp/rl-nodes-*; do
    [ -d "$d" ] && in_chroot env REDLOCK_NODES_DIR="${d#"$croot"}" bash tests/nodes.sh stop >/dev/null 2>&1
  done
  return 0
}
cleanup() { stop_chroot_nodes; umount_all; }
trap cleanup EXIT
trap 'exit 130' INT TERM
# mounts under DIR (a chroot is never removed while /dev or /proc is mounted in it: rm -rf
# would go into the host's /dev)
mounts_under() { awk -v d="$1/" 'index($2 "/", d) == 1 { print $2 }' /proc/self/mounts; }
safe_rm() { # dir
  if [ -n "$(mounts_under "$1")" ]; then echo "platforms: refusing to remove $1: mounts inside" >&2; return 1; fi
  rm -rf --one-file-system "$1"
}
mount_chroot() { # dir
  mount -t proc proc "$1/proc" && mounted+=("$1/proc") || return 1
  mount --bind /dev "$1/dev" && mounted+=("$1/dev") || return 1
  # where / is shared (systemd), nothing mounted under the chroot's /dev may reach the host's
  mount --make-private "$1/dev"
  return 0
}
ccwd=/build/redlock   # in_chroot's working directory: the tree an entry runs in
in_chroot() { # command... (cwd $ccwd when present)
  chroot "$croot" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb NO_INTERACTION=1 REPORT_EXIT_STATUS=1 RL_CWD="$ccwd" \
    bash -c 'cd "$RL_CWD" 2>/dev/null || cd /; exec "$@"' in-chroot "$@"
}
# make (or reuse) the chroot: $cache/trixie-KEY, KEY from the suite and the package list
chroot_ready() {
  local key dir t0
  key=$(printf '%s\n' "$SUITE" "$CHROOT_PKGS" | sha1sum | cut -c1-12)
  dir="$cache/$SUITE-$key"
  croot=$dir
  if [ -f "$dir/.complete" ]; then mount_chroot "$dir"; return; fi
  echo "platforms: making the $SUITE chroot in $dir (debootstrap --variant=minbase $SUITE)"
  t0=$(date +%s)
  mkdir -p "$cache"
  safe_rm "$dir" || return 1
  "${NICE[@]}" debootstrap --variant=minbase "$SUITE" "$dir" >"$log_dir/debootstrap.log" 2>&1 \
    || { tail -n 20 "$log_dir/debootstrap.log" >&2; return 1; }
  cp /etc/hosts "$dir/etc/hosts"
  cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null
  # Debian's services must not start inside (the tests start their own servers on free ports)
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"; chmod 755 "$dir/usr/sbin/policy-rc.d"
  mount_chroot "$dir" || return 1
  # shellcheck disable=SC2086 # the package list is words
  in_chroot sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive nice -n 10 apt-get install -y -qq --no-install-recommends $CHROOT_PKGS && apt-get clean" \
    >"$log_dir/chroot-apt.log" 2>&1 || { tail -n 20 "$log_dir/chroot-apt.log" >&2; return 1; }
  touch "$dir/.complete"
  echo "platforms: chroot made in $(secs "$t0") s"
}

# ---- the ZTS debug PHP, from Debian's source package ---------------------------------------------
zprefix=""
# a private apt setup with deb-src entries for this machine's Debian suites: the machine's own
# sources are left as they are
apt_src() { # apt-get|apt-cache args...
  local d=$cache/apt-src tool=$1; shift
  "$tool" -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$d/parts" \
    -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" "$@"
}
apt_src_setup() {
  local d=$cache/apt-src f
  mkdir -p "$d/parts" "$d/lists/partial" "$d/cache/archives/partial"
  # deb822 stanzas of Debian's archive (its keyring or a .../debian[-security] URI), as deb-src
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && awk 'BEGIN { RS = ""; ORS = "\n\n" }
      /debian-archive-keyring|URIs:[^\n]*\/debian(-security)?\/?(\n|$)/ && /Types:[^\n]*deb/ {
        sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
  done >"$d/parts/debian-src.sources"
  # one-line entries
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    sed -nE 's#^deb (\[[^]]*\] )?([^ ]*/debian(-security)?/? .*)#deb-src \1\2#p' >"$d/parts/debian-src.list"
  [ -s "$d/parts/debian-src.sources" ] || [ -s "$d/parts/debian-src.list" ] || { echo "platforms: no Debian entry in this machine's apt sources" >&2; return 1; }
  apt_src apt-get update -qq >"$log_dir/apt-src-update.log" 2>&1
}
# Debian's patches of phpize and php-config: their files under a directory named by the PHP API
# (@DEBIAN_PHP_API@, which debian/rules fills in), where `make install` here puts them as upstream
# does; libtool's and pkg-config's m4 files from the system's aclocal dir (php-dev's dependencies)
zts_fix_paths() {
  local api
  api=$("$zprefix/bin/php" -n -i | sed -n 's/^PHP API => //p')
  [ -n "$api" ] || return 1
  sed -i -e 's#/@DEBIAN_PHP_API@##g' -e "s#@DEBIAN_PHP_API@#$api#g" \
    -e 's#^aclocaldir=.*#aclocaldir="/usr/share/aclocal"#' "$zprefix/bin/phpize" "$zprefix/bin/php-config"
}
zts_ready() {
  local ckey d v src up t0 t1
  ckey=$(printf '%s\n' "$ZTS_PHP" "$ZTS_CONFIGURE" | sha1sum | cut -c1-12)
  for d in "$cache/$ZTS_PHP"-zts-debug-*-"$ckey"; do
    if [ -f "$d/.complete" ]; then zprefix=$d; return 0; fi
  done
  echo "platforms: building $ZTS_PHP ZTS debug from Debian's source package (once; cached in $cache)"
  apt_src_setup || return 1
  d=$cache/apt-src/src
  # the newest version listed may not be downloadable (a security update not mirrored yet)
  for v in $(apt_src apt-cache showsrc "$ZTS_PHP" 2>/dev/null | sed -n 's/^Version: //p' | sort -rVu); do
    safe_rm "$d" && mkdir -p "$d" || return 1
    if (cd "$d" && apt_src apt-get source -qq "$ZTS_PHP=$v") >"$log_dir/apt-source.log" 2>&1; then
      src=$(ls -d "$d/$ZTS_PHP"-*/ 2>/dev/null | head -n1); break
    fi
    echo "platforms: $ZTS_PHP=$v: not downloadable, trying the next version"
  done
  [ -n "${src:-}" ] || { echo "platforms: no $ZTS_PHP source package could be fetched" >&2; tail -n 5 "$log_dir/apt-source.log" >&2; return 1; }
  up=${v%%-*}
  zprefix="$cache/$ZTS_PHP-zts-debug-$up-$ckey"
  safe_rm "$zprefix" || return 1
  t0=$(date +%s)
  # shellcheck disable=SC2086 # the configure line is words
  (cd "$src" && "${NICE[@]}" ./configure -q --prefix="$zprefix" $ZTS_CONFIGURE) >"$log_dir/zts-configure.log" 2>&1 \
    || { tail -n 20 "$log_dir/zts-configure.log" >&2; return 1; }
  t1=$(date +%s)
  (cd "$src" && "${NICE[@]}" make -j2 >/dev/null && make install >/dev/null) >"$log_dir/zts-make.log" 2>&1 \
    || { tail -n 30 "$log_dir/zts-make.log" >&2; return 1; }
  zts_fix_paths || return 1
  touch "$zprefix/.complete"
  echo "platforms: PHP $v ZTS debug built: configure $((t1 - t0)) s, make $(secs "$t1") s"
  safe_rm "$d"
}

# ---- the entries ---------------------------------------------------------------------------------
# copy of the git-tracked tree (what a release ships; no build artefacts of this checkout)
copy_tree() { # dest
  safe_rm "$1" && mkdir -p "$1" || return 1
  git ls-files -z | xargs -0 cp --parents -t "$1" 2>/dev/null
  [ -f "$1/config.m4" ]
}
# a build's counts: built (1 test), no compiler warning in our own sources (1 test) -> sets bp bf
build_counts() { # log rc
  bp=0 bf=0
  if [ "$2" -eq 0 ]; then bp=1; else bf=1; tail -n 20 "$1" | sed 's/^/    | /' >&2; fi
  if grep -E "(redlock|rl_[a-z]+)\.c:[0-9]+:[0-9]+: warning" "$1" >&2; then bf=$((bf + 1)); else bp=$((bp + 1)); fi
}
# "N passed, N failed" at the end of a C test program's output -> "passed failed"
c_numbers() { # log rc
  grep -E '^ *FAIL' "$1" | head -n 25 | sed 's/^/    | /' >&2
  awk -v rc="$2" '/^[0-9]+ passed, [0-9]+ failed$/ { p = $1; f = $3 }
    END { p += 0; f += 0; if (rc != 0 && f == 0 || p == 0 && f == 0) f = 1; print p, f }' "$1"
}

# Debian 13: the chroot, one build of the extension in it (bt_p/bt_f: its counts)
trixie_ok=0 bt_p=0 bt_f=0
trixie_prepare() {
  local e t0=$(date +%s) why="" rc
  [ -n "${want[trixie-redis]:-}${want[trixie-valkey]:-}" ] || return 0
  if [ "$(id -u)" -ne 0 ]; then why="not root (debootstrap, chroot and mount need root)"
  elif ! command -v debootstrap >/dev/null; then why="debootstrap not installed (bash scripts/deps.sh)"
  elif ! chroot_ready; then
    why="the Debian 13 chroot could not be made (no Debian mirror reachable? $log_dir/debootstrap.log, chroot-apt.log)"
    umount_all
  fi
  if [ -n "$why" ]; then
    for e in trixie-redis trixie-valkey; do [ -n "${want[$e]:-}" ] && cannot "$e" "$why"; done
    return 0
  fi
  cp /etc/hosts "$croot/etc/hosts"
  copy_tree "$croot/build/redlock" || return 1
  in_chroot nice -n 10 bash scripts/build.sh >"$log_dir/trixie-build.log" 2>&1; rc=$?
  build_counts "$log_dir/trixie-build.log" $rc
  bt_p=$bp bt_f=$bf
  echo "platforms: trixie: $(in_chroot sh -c 'echo "PHP $(php -r "echo PHP_VERSION;"), hiredis $(pkg-config --modversion hiredis), $(openssl version | cut -d" " -f1-2)"'), build $(secs "$t0") s"
  if [ $rc -ne 0 ]; then
    for e in trixie-redis trixie-valkey; do [ -n "${want[$e]:-}" ] && report "$e" "$bt_p" "$bt_f" 0; done
    return 0
  fi
  trixie_ok=1
}
# The chroot's C unit tests (they depend on the compiler, hiredis and OpenSSL, not on the nodes: run
# once, counted with ENTRY) -> $log_dir/trixie-unit.counts "passed failed"
chroot_unit() { # entry
  local t0=$(date +%s) rc up uf
  in_chroot nice -n 10 make -s -C redlock_core test >"$log_dir/$1-unit.log" 2>&1; rc=$?
  read -r up uf < <(c_numbers "$log_dir/$1-unit.log" $rc)
  echo "platforms: $1: C unit tests: $up passed, $uf failed ($(secs "$t0") s)"
  echo "$up $uf" >"$log_dir/trixie-unit.counts"
}
# one node kind in the chroot: its nodes (5 + TLS) and the .phpt suite in the chroot's tree DIR
# (run-tests.php writes next to the tests: one tree per suite that runs at the same time)
# -> $log_dir/ENTRY.counts "passed failed skipped"
chroot_phpt() { # entry server dir
  local entry=$1 server=$2 ccwd=$3 t0=$(date +%s) rc pp pf ps
  echo "platforms: $entry: $(in_chroot "$server" --version | head -n1)"
  rm -rf "$croot/tmp/rl-out-$entry"; mkdir -p "$croot/tmp/rl-out-$entry"
  in_chroot env REDIS_SERVER="$server" REDLOCK_NODES_DIR="/tmp/rl-nodes-${server%%-*}" REDLOCK_PHPT_OUTDIR="/tmp/rl-out-$entry" bash -c \
    'bash tests/nodes.sh start 5 >/dev/null && bash tests/nodes.sh start-tls 3 >/dev/null || { echo "nodes did not start"; exit 1; }
     set -a; . "$REDLOCK_NODES_DIR/env"; set +a
     bash scripts/run-phpt.sh "$PWD/modules/redlock.so"; rc=$?
     bash tests/nodes.sh stop >/dev/null 2>&1; exit $rc' >"$log_dir/$entry-phpt.log" 2>&1; rc=$?
  read -r pp pf ps < <(phpt_numbers "$log_dir/$entry-phpt.log" $rc "$croot/tmp/rl-out-$entry")
  echo "platforms: $entry: .phpt: $pp passed, $pf failed, $ps skipped ($(secs "$t0") s)"
  echo "$pp $pf $ps" >"$log_dir/$entry.counts"
}
# The chroot's entries: the C unit tests and each node kind's .phpt suite side by side (they wait
# on timers and replies far more than they compute), then one line per entry: the build's counts,
# the unit tests' (with the first entry) and its suite's.
chroot_entries() {
  local e ue="" pids=() dir p f s up=0 uf=0
  for e in trixie-redis trixie-valkey; do [ -n "${want[$e]:-}" ] && [ -z "$ue" ] && ue=$e; done
  rm -f "$log_dir"/trixie-*.counts
  dir=/build/redlock
  for e in trixie-redis trixie-valkey; do
    [ -n "${want[$e]:-}" ] || continue
    if [ "$e" != "$ue" ]; then   # a copy of the built tree of its own
      dir=/build/redlock-${e#trixie-}
      { safe_rm "$croot$dir" && cp -a "$croot/build/redlock" "$croot$dir"; } || { report "$e" 0 1 0; continue; }
    fi
    chroot_phpt "$e" "$([ "$e" = trixie-redis ] && echo redis-server || echo valkey-server)" "$dir" &
    pids+=($!)
  done
  chroot_unit "$ue" &
  pids+=($!)
  wait "${pids[@]}"
  [ -f "$log_dir/trixie-unit.counts" ] && read -r up uf <"$log_dir/trixie-unit.counts" || uf=1
  for e in trixie-redis trixie-valkey; do
    [ -n "${want[$e]:-}" ] || continue
    p=0 f=1 s=0
    [ -f "$log_dir/$e.counts" ] && read -r p f s <"$log_dir/$e.counts"
    if [ "$e" = "$ue" ]; then p=$((p + up)) f=$((f + uf)); fi
    report "$e" $((bt_p + p)) $((bt_f + f)) "$s"
  done
}

# The ZTS entries: one build of the extension with the ZTS PHP's phpize, one node set on this machine.
# It runs beside trixie_prepare, in a subshell: what it found goes to $log_dir/zts.state.
zts_ok=0 zb_p=0 zb_f=0 zbuild=""
zts_prepare() {
  zts_prepare_1
  declare -p zts_ok zprefix zbuild zb_p zb_f zts_nodes >"$log_dir/zts.state"
}
zts_prepare_1() {
  local e t0=$(date +%s) why="" rc
  [ -n "${want[zts-phpt]:-}${want[zts-threads]:-}" ] || return 0
  if [ "$(id -u)" -ne 0 ]; then why="not root (the PHP build is cached in $cache)"
  elif ! command -v dpkg-source >/dev/null; then why="dpkg-source not installed (bash scripts/deps.sh: dpkg-dev)"
  elif ! zts_ready; then why="no ZTS PHP: the $ZTS_PHP source package could not be fetched or built (no Debian mirror reachable? logs in $log_dir)"
  fi
  if [ -n "$why" ]; then
    for e in zts-phpt zts-threads; do [ -n "${want[$e]:-}" ] && cannot "$e" "$why"; done
    return 0
  fi
  zbuild=$log_dir/zts-build
  copy_tree "$zbuild" || return 1
  (cd "$zbuild" && PATH="$zprefix/bin:$PATH" nice -n 10 bash scripts/build.sh) >"$log_dir/zts-build.log" 2>&1; rc=$?
  build_counts "$log_dir/zts-build.log" $rc
  zb_p=$bp zb_f=$bf
  echo "platforms: zts: $("$zprefix/bin/php" -v | head -n1), build $(secs "$t0") s"
  if [ $rc -eq 0 ]; then
    zts_nodes=1
    if { REDLOCK_NODES_DIR=$log_dir/nodes-zts bash tests/nodes.sh start 5 &&
         REDLOCK_NODES_DIR=$log_dir/nodes-zts bash tests/nodes.sh start-tls 3; } >"$log_dir/zts-nodes.log" 2>&1; then
      zts_ok=1; return 0
    fi
    tail -n 5 "$log_dir/zts-nodes.log" >&2; zb_f=$((zb_f + 1))
  fi
  for e in zts-phpt zts-threads; do [ -n "${want[$e]:-}" ] && report "$e" "$zb_p" "$zb_f" 0; done
}
# a debug build prints leaks ("=== Total N memory leaks detected ===") and failed assertions
leak_report() { # log
  grep -E 'memory leaks detected|Assertion .* failed' "$1" | head -n 5 | sed 's/^/    | /' >&2
  grep -qE 'memory leaks detected|Assertion .* failed' "$1"
}
zts_phpt() {
  local t0=$(date +%s) rc pp pf ps
  mkdir -p "$log_dir/zts-out"
  (cd "$zbuild" && PATH="$zprefix/bin:$PATH" TEST_PHP_EXECUTABLE="$zprefix/bin/php" REDLOCK_PHPT_OUTDIR="$log_dir/zts-out" \
    bash scripts/run-phpt.sh "$zbuild/modules/redlock.so") >"$log_dir/zts-phpt.log" 2>&1; rc=$?
  read -r pp pf ps < <(phpt_numbers "$log_dir/zts-phpt.log" $rc "$log_dir/zts-out")
  # inside a test's output they fail that test; anywhere else they count here
  leak_report "$log_dir/zts-phpt.log" && pf=$((pf + 1))
  echo "platforms: zts-phpt: .phpt: $pp passed, $pf failed, $ps skipped ($(secs "$t0") s)"
  report zts-phpt $((zb_p + pp)) $((zb_f + pf)) "$ps"
}
# tests/harness/platforms/zts_threads.c over the ZTS build's embed SAPI (libphp.so), the extension loaded
# from a php.ini of its own (PHPRC)
zts_threads() {
  local t0=$(date +%s) rc np nf
  local bin=$log_dir/zts_threads ini=$log_dir/zts-ini
  # shellcheck disable=SC2046 # the include flags are words
  if ! cc -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter $("$zprefix/bin/php-config" --includes) \
        tests/harness/platforms/zts_threads.c -L"$zprefix/lib" -Wl,-rpath,"$zprefix/lib" -lphp -lpthread -o "$bin" \
        >"$log_dir/zts-threads-cc.log" 2>&1; then
    sed 's/^/    | /' "$log_dir/zts-threads-cc.log" | head -n 20 >&2
    report zts-threads 0 1 0; return 0
  fi
  mkdir -p "$ini" && printf 'extension=%s\n' "$zbuild/modules/redlock.so" >"$ini/php.ini"
  PHPRC=$ini timeout 600 "$bin" "$ZTS_THREADS" "$ZTS_REQUESTS" "$root/tests/harness/platforms/zts_threads.php" \
    >"$log_dir/zts-threads.log" 2>&1; rc=$?
  read -r np nf < <(c_numbers "$log_dir/zts-threads.log" $rc)
  leak_report "$log_dir/zts-threads.log" && nf=$((nf + 1))
  echo "platforms: zts-threads: $(grep -E '^[0-9]+ threads x' "$log_dir/zts-threads.log"); exit $rc ($(secs "$t0") s)"
  report zts-threads "$np" "$nf" 0
}

# ---- main ----------------------------------------------------------------------------------------
# The builds first (the chroot's and the ZTS one, side by side), then the chroot's unit tests and
# .phpt suites side by side (chroot_entries), then the ZTS .phpt suite, then the threads; each .phpt
# suite on its own nodes.
ZTS_THREADS=8 ZTS_REQUESTS=25
t_all=$(date +%s)
zts_nodes=0
export REDLOCK_NODES_DIR=$log_dir/nodes-zts   # the ZTS entries' nodes (the chroot's are inside it)
cleanup() { stop_chroot_nodes; umount_all; [ -f "$REDLOCK_NODES_DIR/count" ] && bash tests/nodes.sh stop >/dev/null 2>&1; return 0; }
for e in "${!want[@]}"; do
  case " ${entries[*]} " in *" $e "*) ;; *) echo "platforms: unknown entry $e (${entries[*]})"; report "$e" 0 1 0 ;; esac
done
if [ $prepare = 1 ]; then
  # the cache only: what fails here is tried again (and counted) by the run that follows
  [ "$(id -u)" -eq 0 ] || { echo "platforms: --prepare: not root, nothing made"; exit 0; }
  if [ -n "${want[trixie-redis]:-}${want[trixie-valkey]:-}" ] && command -v debootstrap >/dev/null; then
    chroot_ready || echo "platforms: --prepare: the chroot could not be made (the matrix tries again)"
    umount_all
  fi
  if [ -n "${want[zts-phpt]:-}${want[zts-threads]:-}" ] && command -v dpkg-source >/dev/null; then
    zts_ready || echo "platforms: --prepare: no ZTS PHP (the matrix tries again)"
  fi
  echo "platforms: --prepare: $(secs "$t_all") s"
  exit 0
fi
zts_prepare >"$log_dir/zts-prepare.out" 2>&1 &
zts_pid=$!
trixie_prepare
wait "$zts_pid"
cat "$log_dir/zts-prepare.out"
# shellcheck disable=SC1091 # written by zts_prepare
[ -f "$log_dir/zts.state" ] && . "$log_dir/zts.state"
if [ $zts_ok = 1 ]; then set -a; . "$REDLOCK_NODES_DIR/env"; set +a; fi
[ $trixie_ok = 1 ] && chroot_entries
[ $zts_ok = 1 ] && [ -n "${want[zts-phpt]:-}" ] && zts_phpt
stop_chroot_nodes; umount_all
[ $zts_ok = 1 ] && [ -n "${want[zts-threads]:-}" ] && zts_threads
[ -f "$REDLOCK_NODES_DIR/count" ] && bash tests/nodes.sh stop >/dev/null 2>&1
# an entry that ended without its line (a step that failed before it could count) is a failure
for e in "${entries[@]}"; do
  if [ -n "${want[$e]:-}" ] && ! grep -q "^platform $e: [0-9]" "$results"; then
    echo "platform $e: ended without a result (see $log_dir)"; report "$e" 0 1 0
  fi
done
tp=0 tf=0 ts=0
while read -r p f s; do tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s)); done \
  < <(sed -nE 's/^platform [a-z0-9-]+: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' "$results")
echo "platforms: $(secs "$t_all") s in all (logs: $log_dir)"
echo "platforms: $tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
