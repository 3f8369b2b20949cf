#!/usr/bin/env python3
"""fuzz_nodes_seeds.py DIR -- writes the seeds of fuzz_nodes (fuzz/fuzz_nodes.c).

One seed per call and per way of answering it, each an input the harness
reads as its header says: call, options, node count, ttl, limit, weight,
then per node its identity and replies. Every seed passes on a correct
core (a crash there is a bug, not a seed): run
    for f in DIR/*; do build/fuzz/fuzz_nodes $f || echo $f; done
"""
import os
import sys

CALLS = dict(acquire=0, permit=1, find=2, release=3, extend=4, locked=5, held=6, force=7)
# ints[] of fuzz_nodes.c, by value
INTS = [0, 1, 2, 3, -1, 7, 1000, 30000, 86400000, 2000000000, 2147483647, 2147483648, 4294967296,
        (1 << 24) + 5, 9007199254740991, 9007199254740992, 9000000000000000000, 9223372036854775807,
        -9223372036854775808, -2]
UPTIMES = [0, 1, 2, 5, 30, 3600, 100000, 3000000, 1 << 40, 999999999999999999]


def ok():
    return [0]


def nil():
    return [2]


def small(v):
    return [3, v & 0xFF]


def integer(v):
    return [4, INTS.index(v)]


def token():
    return [5]


def err():
    return [6, 0]


def arr3(answer, maxttl_k, age_k):
    """[answer, maxttl, age]: answer 'ok', 'nil' or -1/0/1; the two in s (< 256)"""
    k = {'ok': 0, 'nil': 1}.get(answer)
    if k is None:
        k = 2 + 3 * (answer + 1)
    return [7, k, 0, maxttl_k, 0, age_k + 1]


def ranges(*rs):
    """a permit's answer: (a, b) pairs, each below 64"""
    out = [9, len(rs) - 1]
    for a, b in rs:
        out += [a, b - a] if b != a else [a, 0x40]
    return out


def long_permit(start, count, stride):
    """count (24 ..) slots from start (100 + a multiple of 4), stride apart"""
    return [11, (start - 100) // 4, count - 24, stride - 1]


def bitmap(start, count, stride=1, mode=0):
    """a permit's bitmap: count slots from start, stride apart; mode 1 a byte
    too many, 2 one too few, 3 a bit past the limit"""
    return [12, mode | (stride - 1) << 2, start, count - 1]


def raw(b):
    return [14, len(b)] + list(b)


def close():
    return [15]


def ident(node, uptime=3600, aof=0, refused=False, step=0, same_as=None):
    b = (UPTIMES.index(uptime) << 3) | (aof << 7)
    out = [b | 7, same_as] if same_as is not None else [b]
    c = (15 if refused else 0) | ((15 if step > 0 else 14 if step < 0 else 0) << 4)
    return out + [c]


def node(i, replies, idents=None, close_after=0):
    idents = idents or [ident(i)]
    h = ((len(idents) - 1) << 1) | ((len(replies) - 1) << 3) | (close_after << 7)
    out = [h]
    for d in idents:
        out += d
    for r in replies:
        out += r
    return out


def mirror():
    return [1]


def seed(call, n, nodes_, key=0, fence=0, rs=0, fair=0, again=0, retry=0, ttl=0, limit=0, weight=0):
    opt = key | fence << 2 | rs << 3 | fair << 5 | again << 6 | retry << 7
    out = [CALLS[call], opt, n - 1, ttl, limit, weight]
    for nd in nodes_:
        out += nd
    return bytes(out)


def same(n, replies, **kw):
    """node 0 answers replies, the others copy it"""
    return [node(0, replies, **kw)] + [mirror()] * (n - 1)


# limit indexes of fuzz_nodes.c limits[]: 1 2 3 5 8 64 65 128 200 1024
L5, L64, L200, L1024 = 3, 5, 8, 9
SEEDS = {
    'acquire_ok5': seed('acquire', 5, same(5, [ok()])),
    'acquire_one_no': seed('acquire', 3, [node(0, [ok()]), node(1, [nil()]), node(2, [ok()])]),
    'acquire_minority': seed('acquire', 5, [node(0, [ok()]), node(1, [nil()]), node(2, [nil()]),
                                            node(3, [close()]), node(4, [ok()])]),
    'acquire_list': seed('acquire', 3, same(3, [ok()]), key=1),
    'acquire_shared': seed('acquire', 3, same(3, [ok()]), key=2),
    'acquire_retry': seed('acquire', 3, same(3, [nil(), ok()]), retry=1),
    'acquire_fence': seed('acquire', 3, [node(0, [ok(), small(5), small(5)]), node(1, [ok(), small(4), small(5)]),
                                         node(2, [ok(), small(5), small(5)])], fence=1),
    'acquire_fence_outlier': seed('acquire', 3, [node(0, [ok(), small(5), small(9)]),
                                                 node(1, [ok(), integer(9000000000000000000), small(9)]),
                                                 node(2, [ok(), small(9), small(9)])], fence=1),
    'acquire_restart_auto': seed('acquire', 5, [node(i, [arr3('ok', 30, 100)]) for i in range(5)], rs=2),
    'acquire_restart_grace': seed('acquire', 3, [node(i, [arr3('ok', 30, 100)]) for i in range(3)], rs=1),
    'acquire_restart_young': seed('acquire', 5, [node(0, [arr3('ok', 30, 200)], [ident(0, uptime=0)])] +
                                  [node(i, [arr3('ok', 30, 200)], [ident(i, uptime=3600)]) for i in range(1, 5)],
                                  rs=2),
    'acquire_restart_aof': seed('acquire', 3, [node(0, [arr3('ok', 30, 200)], [ident(0, uptime=0, aof=1)])] +
                                [node(i, [arr3('ok', 30, 200)]) for i in range(1, 3)], rs=2),
    'acquire_calm': seed('acquire', 3, [node(i, [arr3('ok', 30, 10), ok()]) for i in range(3)], rs=2, again=1),
    'acquire_calm_restart': seed('acquire', 3, [node(0, [arr3('ok', 30, 10), ok(), arr3('ok', 30, 10)],
                                                     [ident(0), ident(0, uptime=1)], close_after=0)] +
                                 [node(i, [arr3('ok', 30, 10), ok(), arr3('ok', 30, 10)]) for i in range(1, 3)],
                                 rs=2, again=1),
    'acquire_clock_step': seed('acquire', 3, [node(0, [arr3('ok', 30, 10)], [ident(0, step=1)])] +
                               [node(i, [arr3('ok', 30, 10)]) for i in range(1, 3)], rs=2),
    'acquire_info_refused': seed('acquire', 3, [node(0, [arr3('ok', 30, 10)], [ident(0, refused=True)])] +
                                 [node(i, [arr3('ok', 30, 10)]) for i in range(1, 3)], rs=2),
    'acquire_same_server': seed('acquire', 3, [node(0, [ok()]), node(1, [ok()], [ident(1, same_as=0)]),
                                               node(2, [ok()])]),
    'acquire_fair': seed('acquire', 3, [node(i, [small(3 + i), ok()]) for i in range(3)], fair=1),
    # the largest ticket a ZSET score holds exactly (2^53 - 1), on a quorum
    'acquire_fair_2pow53': seed('acquire', 3, [node(0, [integer(9007199254740991), ok()]),
                                               node(1, [small(3), ok()]), mirror()], fair=1),
    'acquire_fair_split': seed('acquire', 5, [node(i, [small(2), nil(), ok()]) for i in range(5)], fair=1),
    'acquire_hostile': seed('acquire', 3, [node(0, [ok()]), node(1, [raw(b'+OK\r\n:1\r\n*1\r\n')]),
                                           node(2, [err()])]),
    'acquire_seven': seed('acquire', 7, [node(i, [ok() if i % 2 == 0 else nil()]) for i in range(7)]),
    'permit_ok': seed('permit', 5, same(5, [bitmap(0, 1)]), limit=L5, weight=0),
    'permit_weight2': seed('permit', 3, same(3, [bitmap(3, 2)]), limit=L5, weight=1),
    'permit_big': seed('permit', 3, same(3, [bitmap(0, 64, 16)]), limit=L1024, weight=63),
    'permit_bad_bitmaps': seed('permit', 5, [node(0, [bitmap(0, 1)]), node(1, [bitmap(0, 1, 1, 1)]),
                                             node(2, [bitmap(0, 1, 1, 2)]), node(3, [bitmap(0, 1, 1, 3)]),
                                             node(4, [bitmap(0, 1)])], limit=L64, weight=0),
    # the answers of 574973c's script (ranges): hostile since the bitmap
    'permit_ranges_ok': seed('permit', 5, same(5, [ranges((0, 1))]), limit=L5, weight=1),
    'permit_split': seed('permit', 3, [node(0, [bitmap(0, 2)]), node(1, [bitmap(1, 2)]),
                                       node(2, [bitmap(3, 2)])], limit=L5, weight=1),
    'permit_ranges': seed('permit', 3, same(3, [ranges((0, 2), (5, 5), (9, 12))]), limit=L64, weight=7),
    # "100,102,...,146": 95 bytes
    'permit_long': seed('permit', 3, same(3, [long_permit(100, 24, 2)]), limit=L200, weight=19),
    # "100,102,...,158": 119 bytes
    'permit_long_119': seed('permit', 3, same(3, [long_permit(100, 30, 2)]), limit=L200, weight=29),
    # "100,...,162": 127 bytes (rl_reply.str holds 128 and a NUL)
    'permit_long_127': seed('permit', 5, same(5, [long_permit(100, 32, 2)]), limit=L200, weight=7),
    'permit_limit': seed('permit', 3, same(3, [small(3)]), limit=L5),
    'permit_nil': seed('permit', 3, same(3, [nil()]), limit=L5),
    'permit_restart': seed('permit', 3, [node(i, [bitmap(0, 1)]) for i in range(3)], rs=2, limit=L5),
    'permit_retry': seed('permit', 3, [node(0, [bitmap(0, 1), bitmap(2, 1)]),
                                       node(1, [bitmap(1, 1), bitmap(2, 1)]), node(2, [bitmap(2, 1)])],
                         retry=1, limit=L5),
    'find_ok': seed('find', 3, same(3, [bitmap(0, 2)]), limit=L5),
    'find_split': seed('find', 5, [node(i, [bitmap(i % 3, 1)]) for i in range(5)], limit=L1024),
    'release_ok': seed('release', 3, same(3, [small(1)])),
    'release_lost': seed('release', 3, [node(0, [small(1)]), node(1, [small(0)]), node(2, [small(0)])]),
    'release_list': seed('release', 3, same(3, [small(1)]), key=1),
    'extend_ok': seed('extend', 3, same(3, [small(1)])),
    'extend_restart': seed('extend', 3, [node(i, [arr3(1, 30, 10)]) for i in range(3)], rs=2),
    'extend_repair': seed('extend', 3, [node(0, [arr3(-1, 30, 10), ok()], [ident(0, uptime=0)])] +
                          [node(i, [arr3(1, 30, 10)]) for i in range(1, 3)], rs=2),
    'extend_shared': seed('extend', 3, same(3, [small(1)]), key=2),
    'locked_yes': seed('locked', 3, same(3, [small(1)])),
    'locked_no': seed('locked', 3, [node(0, [small(1)]), node(1, [small(0)]), node(2, [close()])]),
    'held_yes': seed('held', 3, same(3, [token()])),
    'held_list': seed('held', 3, same(3, [token()]), key=1),
    'held_other': seed('held', 3, [node(0, [token()]), node(1, [nil()]), node(2, [[13, 3, 65, 66, 67]])]),
    'force': seed('force', 3, same(3, [small(1)])),
    'acquire_twice': seed('acquire', 3, same(3, [ok(), small(1)]), again=1),
}


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus', 'fuzz_nodes')
    os.makedirs(d, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
