-- permit.lua -- one attempt of a semaphore's permit on one node (docs/api.md "Semaphores";
-- why this is safe: HACKING.md "Semaphores"): the first w free slots from a start.
--
-- KEYS[1]  the slots' prefix sp: the semaphore's key r "\0p" (slot i is sp i)
-- ARGV[1]  the token
-- ARGV[2]  the TTL in ms
-- ARGV[3]  the limit L (1..1024, RL_MAX_PERMITS)
-- ARGV[4]  the weight w: how many slots the permit takes (1..L)
-- ARGV[5]  the start, drawn by the client (0..L-1)
-- ARGV[6]  (optional) the maxttl key (as acquire.lua's)
-- Sent by rl_acquire_permit (lock/rl_permit.c); its cleanup is permit_trim.lua, its release and
-- extend release_all.lua and extend_all.lua over the slots' key list.
-- Answers the slots it set as a bitmap (bitmap in fragments.lua: at most 128 bytes
-- whatever the slots, so it fits rl_reply.str), nil when fewer than w are free (it sets
-- none), the stored limit (an integer) when another one is stored while a slot of it is
-- held; with ARGV[6] {r, m, a}.
--
-- A semaphore of limit L is L slots, each an ordinary RedLock mutex: slot i of resource r
-- is the key r "\0p" i, the stored limit r "\0pL" (no resource holds a NUL: neither is
-- any lock's key). A permit is w slots that one quorum of nodes holds together; every slot
-- has at most one holder, so at most L permits. A stored limit that is not an integer in
-- 1..1024 is no limit: the script never loops past 1024 slots. Free slots look the same
-- on every node, so a free permit costs one round trip. The slots set are remembered in
-- r "\0pT" token (as ranges "a-b,c") for the cleanup.
if ARGV[6] and redis.replicate_commands then redis.replicate_commands() end
local sp = KEYS[1]
local lim = tonumber(ARGV[3])
local w = tonumber(ARGV[4])
local st = tonumber(ARGV[5])
local r = false
local cur = redis.call("get",sp .. "L")
local cl = tonumber(cur)
if cl and (cl ~= math.floor(cl) or cl < 1 or cl > 1024) then cl = nil end
if cl and cl ~= lim then
    -- another limit is stored: refused while a slot of it is held
    for i = 0, cl - 1 do
        if redis.call("exists",sp .. i) == 1 then r = cl break end
    end
end
if not r then
    local got = {}
    for i = 0, lim - 1 do
        local s = (st + i) % lim
        if redis.call("exists",sp .. s) == 0 then
            got[#got + 1] = s
            if #got == w then break end
        end
    end
    if #got == w then
        for _, s in ipairs(got) do redis.call("set",sp .. s,ARGV[1],"PX",ARGV[2]) end
        if redis.call("pttl",sp .. "L") < tonumber(ARGV[2]) or cur ~= ARGV[3] then
            redis.call("set",sp .. "L",ARGV[3],"PX",ARGV[2])
        end
        -- the slots set, as ranges, for the cleanup (permit_trim.lua)
        table.sort(got)
        local out = {}
        local i = 1
        while i <= #got do
            local j = i
            while j < #got and got[j + 1] == got[j] + 1 do j = j + 1 end
            if j > i then out[#out + 1] = got[i] .. "-" .. got[j] else out[#out + 1] = tostring(got[i]) end
            i = j + 1
        end
        redis.call("set",sp .. "T" .. ARGV[1],table.concat(out, ","),"PX",ARGV[2])
        --@ bitmap(set=got, lim=lim)
        r = string.char(unpack(b))
    end
end
--@ maxttl_answer(mk=ARGV[6])
