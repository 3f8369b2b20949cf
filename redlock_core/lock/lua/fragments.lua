-- fragments.lua -- the pieces several scripts share, not a script itself.
--
-- A script includes one with a line `--@ name(p=value, ...)`; scripts/gen-lua.sh puts the
-- fragment's lines there, each `$p` replaced by value (Lua text: a variable, KEYS[1], nil).
-- A fragment defines Lua locals in the including script's scope (named below). Every
-- line becomes part of a one-line script: see the rule at the top of scripts/gen-lua.sh.

--@fragment now
-- now: the node's time in ms (TIME before a write needs effects replication: asked for
-- first by the script)
local tn = redis.call("time")
local now = tonumber(tn[1]) * 1000 + math.floor(tonumber(tn[2]) / 1000)
--@end

--@fragment fair_prune
-- Fair waiting (HACKING.md "Fair waiting"): the queue of key fk (a Lua local set before;
-- ZSET fk "\0q", see acquire.lua) without its lapsed entries; qn: the entries left (0: no
-- queue). Each entry lapses on its own: fk "\0qx" holds its deadline (the node's time in
-- ms: its waiter's ttl after its last attempt), whatever the PX of the queue's keys, which
-- the longest-lived waiter raised. So every script that reads the queue prunes it first
-- (ZREM of the last entry deletes the key): a waiter that died keeps nobody out, a plain
-- lock() neither, beyond its own ttl. TIME before a write: effects replication (the
-- default from Redis 7), asked for here or before the script's first write.
local qn = 0
if redis.call("exists",fk .. "\0q") == 1 then
    if redis.replicate_commands then redis.replicate_commands() end
    local qx = fk .. "\0qx"
    local qt = redis.call("time")
    local dq = redis.call("zrangebyscore",qx,"-inf",tonumber(qt[1]) * 1000 + math.floor(tonumber(qt[2]) / 1000))
    -- (ZREM by 1000: unpack() of Lua has a limit of arguments)
    for i = 1, #dq, 1000 do
        local j = math.min(i + 999, #dq)
        redis.call("zrem",fk .. "\0q",unpack(dq, i, j))
        redis.call("zrem",qx,unpack(dq, i, j))
    end
    qn = redis.call("zcard",fk .. "\0q")
end
--@end

--@fragment fair_wake(k, c, self)
-- Fair waiting (docs/api.md "Fair waiting"): where fair waiters queue on key k (ZSET
-- k "\0q", see acquire.lua), a release tells only the first of them that listens (one of
-- the queue's first four: one that died listens no more), on its own channel c "\0q" id,
-- "1 <release id>" (the local id); fw: told one. self: the releasing waiter's own queue id
-- (a fair attempt's cleanup) or nil: when it is that first one, nobody is told (fw all the
-- same): only the queue's first can take the key, and a waiter woken by the cleanup of its
-- own attempt, won on a minority, would try again at once and lose again while the
-- holder's majority lasts (a loop of wake-ups, measured: 7 in a row in
-- tests/fair/fifo.phpt). Sets fk (to k) and the locals of fair_prune.
local fw = false
local fk = $k
--@ fair_prune
if qn > 0 then
    local hs = redis.call("zrange",$k .. "\0q",0,3)
    local fc = {}
    for i = 1, #hs do fc[i] = $c .. "\0q" .. hs[i] end
    if #fc > 0 then
        local fm = redis.pcall("pubsub","numsub",unpack(fc))
        if type(fm) == "table" then
            for i = 1, #hs do
                local v = fm[2 * i]
                if v and v > 0 then
                    if hs[i] ~= $self then redis.pcall("publish",fc[i],"1 " .. id) end
                    fw = true
                    break
                end
            end
        end
    end
end
--@end

--@fragment id_hash
-- h: the hash of the release's id (the local id, ARGV[2]), the same on every node, which
-- picks the shard told (shard_tell)
local h = 0
for i = 1, #id do h = (h * 31 + string.byte(id, i)) % 65521 end
--@end

--@fragment shard_tell(c)
-- A release's message "<n> <id>" to ONE shard of key channel c that has subscribers, the
-- same on every node (from h, the release id's hash, id_hash; rl.h RL_WAKE_SHARDS,
-- RL_WAKE_SUBS): of the 32 groups c "\0" string.char(48 + g) the first from h with
-- subscribers, then of its 32 shards (the group's name and string.char(48 + s)) the first
-- from h / 32 with subscribers; n is that shard's subscribers. A group without a shard
-- subscribed (a waiter of a build before the two levels, listening on its group alone)
-- gets the message itself. 32 x 32: as many names and NUMSUB arguments (the script's
-- cost) as one level of 64 had.
local ch = {}
for k = 0, 31 do ch[k + 1] = $c .. "\0" .. string.char(48 + k) end
local m = redis.pcall("pubsub","numsub",unpack(ch))
if type(m) == "table" then
    for k = 0, 31 do
        local j = (h + k) % 32
        local v = m[2 * j + 2]
        if v and v > 0 then
            local sc = {}
            for q = 0, 31 do sc[q + 1] = ch[j + 1] .. string.char(48 + q) end
            local m2 = redis.pcall("pubsub","numsub",unpack(sc))
            local to, n = ch[j + 1], v
            if type(m2) == "table" then
                local h2 = math.floor(h / 32)
                for q = 0, 31 do
                    local jj = (h2 + q) % 32
                    local v2 = m2[2 * jj + 2]
                    if v2 and v2 > 0 then to, n = sc[jj + 1], v2 break end
                end
            end
            redis.pcall("publish",to,n .. " " .. id)
            break
        end
    end
end
--@end

--@fragment tell(k, c)
-- A release's message to the waiters of key k, channel c (as release.lua: its first fair
-- waiter, else one shard), only when the channel has subscribers; h and id given
local s = redis.pcall("pubsub","numsub",$c)
if type(s) == "table" and s[2] and s[2] > 0 then
    --@ fair_wake(k=$k, c=$c, self=nil)
    if not fw then
        --@ shard_tell(c=$c)
    end
end
--@end

--@fragment maxttl(mk, ttl)
-- The longest TTL asked for (docs/api.md "Restarted nodes"), kept on each node in the key
-- mk (prefix . "\0redlock:maxttl") as "<ms>:<created>", created the node's TIME in ms when
-- the key was made: m gets the stored TTL (0 none), a the key's age in ms (-1 none), both
-- as they were before; the key is written only when ttl exceeds the stored TTL. TIME
-- before a write needs effects replication: the default from Redis 7, asked for before.
-- The script then answers {r, m, a} (rl_reply.aux).
local t = redis.call("time")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local m, a, c = 0, -1, now
local v = redis.call("get",$mk)
if v then
    local x, y = string.match(v, "^(%d+):(%d+)$")
    if x then
        m = tonumber(x)
        c = tonumber(y)
        a = now - c
        if a < 0 then a = 0 end
    end
end
if tonumber($ttl) > m then redis.call("set",$mk,$ttl .. ":" .. string.format("%d", c)) end
--@end

--@fragment maxttl_answer(mk)
-- A script's answer r, alone without the maxttl key mk ("" made nil, or absent); with it,
-- the key raised to the TTL ARGV[2] and the answer {r, m, a} (maxttl above)
if not $mk then return r end
--@ maxttl(mk=$mk, ttl=ARGV[2])
return {r, m, a}
--@end

--@fragment extend_answer
-- An extend's answer r (1 extended, 0 not ours, -1 no key): without the maxttl key
-- (ARGV[3]) -1 is answered as 0; with it {r, m, a}, the key raised to the TTL ARGV[2]
if not ARGV[3] then
    if r < 0 then return 0 end
    return r
end
--@ maxttl(mk=ARGV[3], ttl=ARGV[2])
return {r, m, a}
--@end

--@fragment extend_list_answer
-- The extend of a key list: r 1 when every key was ours (ok of them), -1 when none existed
-- (miss of them: a restarted node, repairable), 0 else; answered as extend_answer
local r = 0
if ok == #ks then r = 1 elseif miss == #ks then r = -1 end
--@ extend_answer
--@end

--@fragment cleanup_nonce
-- The cleanup of one failed attempt (KEYS[2], the attempt's nonce key, given): nothing to
-- undo where KEYS[2] does not hold the attempt's nonce ARGV[3] (the attempt did not set the
-- keys here); else the nonce key goes, and the cleanup goes on
if redis.call("get",KEYS[2]) ~= ARGV[3] then return 0 end
redis.call("del",KEYS[2])
--@end

--@fragment split
-- ks: the keys of a key list (KEYS[1]: "\0", then each key after its length in two bytes,
-- rl.h rl_key_is_list)
local ks = {}
local b = KEYS[1]
local p = 2
while p + 1 <= #b do
    local l = string.byte(b, p) * 256 + string.byte(b, p + 1)
    ks[#ks + 1] = string.sub(b, p + 2, p + 1 + l)
    p = p + 2 + l
end
--@end

--@fragment split_s
-- ks: the keys of a read lock's key list (as split; its first entry is empty,
-- rl_key_is_shared, and skipped)
local ks = {}
local b = KEYS[1]
local p = 2
while p + 1 <= #b do
    local l = string.byte(b, p) * 256 + string.byte(b, p + 1)
    if l > 0 then ks[#ks + 1] = string.sub(b, p + 2, p + 1 + l) end
    p = p + 2 + l
end
--@end

--@fragment maxexp(rk)
-- mx: the largest expiry of the reader set rk (0 none)
local mx = 0
local top = redis.call("zrange",$rk,-1,-1,"withscores")
if top[2] then mx = tonumber(top[2]) end
--@end

--@fragment bitmap(set, lim)
-- b: the slots of the list set as a bitmap of a limit lim (bit s of byte s / 8, (lim + 7) / 8
-- bytes); the script answers string.char(unpack(b))
local b = {}
for i = 1, math.floor(($lim + 7) / 8) do b[i] = 0 end
for _, s in ipairs($set) do
    local j = math.floor(s / 8) + 1
    b[j] = b[j] + 2 ^ (s % 8)
end
--@end
