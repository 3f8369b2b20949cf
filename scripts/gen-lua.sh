#!/usr/bin/env bash
# gen-lua.sh -- write the C table of the Lua scripts the core sends from their .lua files.
#
#   bash scripts/gen-lua.sh           rewrite redlock_core/lock/rl_scripts_gen.c and rl_scripts_gen.h
#   bash scripts/gen-lua.sh --check   generate into a temporary directory and compare with the
#                                     committed files (exit 1, naming the stale file, if they differ)
#
# Adding a script: one redlock_core/lock/lua/NAME.lua, then run this. It becomes
# rl_script_NAME[] and rl_script_NAME_sha[] (declared in rl_scripts_gen.h) and one entry of
# rl_scripts[], which the connect-time SCRIPT LOAD and the SHA unit test loop over; pin its SHA
# in scripts_sha (redlock_core/tests/unit_tests.c). fragments.lua is not a script: it holds
# the shared pieces.
#
# The rule from a .lua file to the bytes sent (so that a comment or an indentation never
# changes a SHA):
#   - `-- ...` to the end of the line is a comment, outside Lua strings ('...' and "...");
#     long brackets ([[ ]], --[[ ]]) are not used and are refused;
#   - a line `--@ name(p=value, ...)` is replaced by the lines of fragment `name` of
#     fragments.lua, whose `$p` become `value` (raw Lua text); a fragment may use others;
#   - each line is trimmed, empty lines are dropped, and the lines are joined by one space;
#     a tab, or two spaces in a row, left within a line is refused (it would be sent).
# So a script is one line of Lua, as Redis hashes it: write one space between tokens within
# a line, and break lines only where that line may have a space.
# In fragments.lua a fragment is the lines between `--@fragment name(p, ...)` and `--@end`.
set -euo pipefail
cd "$(dirname "$0")/.."

case "$*" in --check | "") ;; *) echo "usage: $0 [--check]" >&2; exit 2 ;; esac
check=0
[ "$*" = --check ] && check=1
command -v python3 >/dev/null || { echo "gen-lua: python3 not found" >&2; exit 2; }

src=redlock_core/lock/lua
dst=redlock_core/lock
out=$dst
if [ $check = 1 ]; then
    out=$(mktemp -d /tmp/redlock-gen-lua.XXXXXX)
    trap 'rm -rf "$out"' EXIT
fi

python3 - "$src" "$out" $check <<'PY'
import hashlib, os, re, sys

src, out = sys.argv[1], sys.argv[2]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
DIRECTIVE = re.compile(r"^\s*--@\s*(" + IDENT + r")\s*(?:\((.*)\))?\s*$")
FRAGMENT = re.compile(r"^\s*--@fragment\s+(" + IDENT + r")\s*(?:\((.*)\))?\s*$")


def die(where, msg):
    sys.exit("gen-lua: %s: %s" % (where, msg))


def strip_comment(line, where):
    """the line without its `--` comment (quotes and escapes followed)"""
    q, i = None, 0
    while i < len(line):
        ch = line[i]
        if q:
            if ch == "\\":
                i += 1
            elif ch == q:
                q = None
        elif ch in "\"'":
            q = ch
        elif line.startswith("--", i):
            if line.startswith("--[", i) and re.match(r"--\[=*\[", line[i:]):
                die(where, "long comments (--[[ ]]) are not supported")
            return line[:i]
        elif re.match(r"\[=*\[", line[i:]):
            die(where, "long strings ([[ ]]) are not supported")
        i += 1
    if q:
        die(where, "unterminated string")
    return line


def split_args(text, where):
    """`p=value, q=value` at depth 0 (brackets, quotes) -> {p: value}"""
    parts, depth, q, cur = [], 0, None, ""
    for ch in text:
        if q:
            q = None if ch == q and not cur.endswith("\\") else q
        elif ch in "\"'":
            q = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    args = {}
    for p in parts:
        m = re.match(r"^\s*(" + IDENT + r")\s*=\s*(.*?)\s*$", p)
        if not m or not m.group(2):
            die(where, "argument %r is not name=value" % p.strip())
        args[m.group(1)] = m.group(2)
    return args


def read_fragments(path):
    frags, cur, name = {}, None, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FRAGMENT.match(line)
            if m:
                if cur is not None:
                    die("%s:%d" % (path, n), "fragment %s has no --@end" % name)
                name = m.group(1)
                if name in frags:
                    die("%s:%d" % (path, n), "fragment %s defined twice" % name)
                params = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
                cur = (params, [], "%s:%d" % (path, n))
                frags[name] = cur
            elif re.match(r"^\s*--@end\s*$", line):
                if cur is None:
                    die("%s:%d" % (path, n), "--@end without --@fragment")
                cur = None
            elif cur is not None:
                cur[1].append(("%s:%d" % (path, n), line))
    if cur is not None:
        die(path, "fragment %s has no --@end" % name)
    return frags


def expand(lines, frags, params, args, stack):
    """the trimmed code lines of (where, line) pairs, fragments expanded"""
    code = []
    for where, line in lines:
        m = DIRECTIVE.match(line)
        if m and not line.lstrip().startswith("--@fragment"):
            name = m.group(1)
            if name not in frags:
                die(where, "no fragment %s in fragments.lua" % name)
            if name in stack:
                die(where, "fragment %s includes itself" % name)
            fparams, body, _ = frags[name]
            given = split_args(subst(m.group(2) or "", params, args, where), where)
            if sorted(given) != sorted(fparams):
                die(where, "%s(%s) called with (%s)" % (name, ", ".join(fparams), ", ".join(given)))
            code += expand(body, frags, fparams, given, stack + [name])
            continue
        if re.match(r"^\s*--@", line):
            die(where, "unknown directive: %s" % line.strip())
        text = subst(strip_comment(line, where).strip(), params, args, where)
        if text:
            code.append(text)
    return code


def subst(text, params, args, where):
    """$p -> the fragment's argument p (only inside a fragment)"""
    def one(m):
        if m.group(1) not in params:
            die(where, "$%s is not a parameter here" % m.group(1))
        return args[m.group(1)]
    return re.sub(r"\$(" + IDENT + r")", one, text)


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


frags = read_fragments(os.path.join(src, "fragments.lua"))
names = sorted(f[:-4] for f in os.listdir(src) if f.endswith(".lua") and f != "fragments.lua")
scripts = []
for name in names:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        die(name + ".lua", "a script's name is lower case letters, digits and _")
    path = os.path.join(src, name + ".lua")
    with open(path, encoding="utf-8") as f:
        raw = [("%s:%d" % (path, n), l.rstrip("\n")) for n, l in enumerate(f, 1)]
    code = expand(raw, frags, [], {}, [])
    text = " ".join(code)
    if not text or "\n" in text or "\t" in text or "  " in text:
        die(path, "empty, or a tab or two spaces in a line (see the rule at the top of scripts/gen-lua.sh)")
    scripts.append((name, code, text, hashlib.sha1(text.encode()).hexdigest()))

HEAD = ("generated by scripts/gen-lua.sh from redlock_core/lock/lua/ (one NAME.lua per script, "
        "fragments.lua):\n * do not edit. Adding a script: a .lua file there, then bash scripts/gen-lua.sh.")

h = ["/* rl_scripts_gen.h -- " + HEAD,
     " * The Lua scripts the core sends (EVALSHA; SCRIPT LOAD at connect, rl_conn.c), with their SHA1s. */",
     "#ifndef RL_SCRIPTS_GEN_H", "#define RL_SCRIPTS_GEN_H", "", "#include <stddef.h>", "",
     "/* one script: its file's name (without .lua), its text as sent (len bytes), its SHA1 in hex */",
     "typedef struct rl_script {", "    const char *name;", "    const char *text;", "    size_t len;",
     "    const char *sha;", "} rl_script;", "",
     "/* every script, in the order of their names */",
     "#define RL_SCRIPTS_N %d" % len(scripts), "extern const rl_script rl_scripts[RL_SCRIPTS_N];", "",
     "/* each by name: the text, and its SHA1 (40 hex digits) */"]
h += ["extern const char rl_script_%s[], rl_script_%s_sha[];" % (n, n) for n, _, _, _ in scripts]
h += ["", "#endif", ""]

c = ["/* rl_scripts_gen.c -- " + HEAD,
     " * Each script as sent: its .lua file's lines without comments and indentation, joined by one space",
     " * (the rule: scripts/gen-lua.sh), one C string per line. */",
     "/* clang-format off */", '#include "rl_scripts_gen.h"', ""]
for n, code, text, sha in scripts:
    c.append("/* %s.lua: %d bytes */" % (n, len(text.encode())))
    c.append("const char rl_script_%s[] =" % n)
    for i, line in enumerate(code):
        c.append("    " + c_str(line + (" " if i + 1 < len(code) else "")) + (";" if i + 1 == len(code) else ""))
    c.append('const char rl_script_%s_sha[] = "%s";' % (n, sha))
    c.append("")
c.append("const rl_script rl_scripts[RL_SCRIPTS_N] = {")
for n, _, _, _ in scripts:
    c.append("    {\"%s\", rl_script_%s, sizeof(rl_script_%s) - 1, rl_script_%s_sha}," % (n, n, n, n))
c += ["};", ""]

for fn, lines in (("rl_scripts_gen.h", h), ("rl_scripts_gen.c", c)):
    with open(os.path.join(out, fn), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
if sys.argv[3] == "0":
    for n, _, text, sha in scripts:
        print("%-16s %s %5d bytes" % (n, sha, len(text.encode())))
PY

if [ $check = 1 ]; then
    stale=0
    for f in rl_scripts_gen.c rl_scripts_gen.h; do
        if ! cmp -s "$out/$f" "$dst/$f"; then
            diff -u "$dst/$f" "$out/$f" 2>&1 | head -n 40 >&2 || true
            echo "gen-lua: $dst/$f is stale: it differs from what $src/*.lua generate (run: bash scripts/gen-lua.sh)" >&2
            stale=1
        fi
    done
    [ $stale = 0 ] && echo "gen-lua: $dst/rl_scripts_gen.c and .h are up to date with $src/*.lua"
    exit $stale
fi
echo "gen-lua: wrote $dst/rl_scripts_gen.c and $dst/rl_scripts_gen.h"
