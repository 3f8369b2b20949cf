-- acquire.lua -- one attempt of lock() on one key, by script: SET NX PX, and around it
-- what waiting, caller-chosen tokens, read locks, fair queues and the restart checks need.
--
-- KEYS[1]  the lock's key (prefix . resource)
-- KEYS[2]  (optional) the attempt's nonce key: KEYS[1] "\0a", for a caller-chosen token
--          only (docs/api.md "Restore"); written with the nonce when the attempt sets the
--          key, so that its cleanup (release.lua with KEYS[2]) deletes only what this
--          attempt set
-- ARGV[1]  the token
-- ARGV[2]  the TTL in ms
-- ARGV[3]  the waiter's shard name (rl_wake_shard_name), "" none: a waiter's attempt
--          tells "acquired" to the waiters of its shard when it set the key, so that those
--          holding back stand down (docs/api.md "Waiting")
-- ARGV[4]  the attempt's nonce, with KEYS[2]; "" (or absent) without
-- ARGV[5]  the maxttl key (docs/api.md "Restarted nodes"; maxttl in fragments.lua), ""
--          (or absent) none: with it the key is raised to ARGV[2] if lower and the answer
--          is {r, m, a} (rl_reply.aux)
-- ARGV[6]  (a waiting exclusive lock() of one key, acq_writer) how long, in ms, its entry
--          among the waiting writers lasts; "" or absent: not a waiting writer
-- ARGV[7]  (fair waiting, acq_fair_cmd) the waiter's queue id (RL_FAIR_ID_LEN hex)
-- ARGV[8]  (fair) its ticket, "0" until a quorum answered its first failed attempt
-- ARGV[9]  (fair) how long its queue entry lasts (ms: the TTL)
-- Built by acq_commands, acq_subscribe, writer_cmd and acq_fair_cmd (lock/rl_acquire.c), which
-- leave trailing arguments out where they are not needed (the calm attempt: ARGV[5], and
-- ARGV[4] without a nonce); repair (rl_extend) sends it for a key list. A key list takes
-- acquire_all.lua or acquire_shared.lua instead (list_script).
-- Answers r (without ARGV[5]): OK when it set the key, nil when not, or, for a fair
-- attempt without a ticket that did not set it, the queue's counter (an integer).
--
-- Read locks (docs/api.md "Read locks", acquire_shared.lua): where readers hold the key
-- (its value "\0s", no token's), the SET fails as for any holder, so an exclusive lock()
-- costs its one script when there is none. Then, with ARGV[6], the attempt enters the
-- waiting writers (ZSET key "\0w", our token until now + ARGV[6]) that hold new readers
-- back, and leaves it when it wins; with a caller-chosen token that is the only reader, it
-- promotes that read lock: the key takes our token (PX at least what the read lock had
-- left), and "\0o" keeps the nonce and the read lock's expiry for the cleanup to give it
-- back.
-- Fair waiting (docs/api.md "Fair waiting"; HACKING.md "Fair waiting"): with ARGV[7],
-- an attempt with a ticket writes its entry (ZSET key "\0q": ticket -> id; "\0qx": id ->
-- its deadline) and raises the counter ("\0qt") to its ticket; only the queue's first may
-- set the key. Without ARGV[7], a queue with entries keeps the attempt out.
local mk = ARGV[5]
if mk == "" then mk = nil end
local wms = ARGV[6]
if wms == "" then wms = nil end
local fid = ARGV[7]
if (mk or wms or fid or KEYS[2]) and redis.replicate_commands then redis.replicate_commands() end
local qk = KEYS[1] .. "\0q"
local r, blk, tk = false, false, nil
local fk = KEYS[1]
--@ fair_prune
if fid then
    --@ now
    local xk = qk .. "x"
    local tq = qk .. "t"
    local e = tonumber(ARGV[9])
    local t = tonumber(ARGV[8])
    if t > 0 then
        -- our entry, its deadline, the counter at least our ticket; each key lives as long
        -- as its longest-lived waiter
        redis.call("zadd",qk,ARGV[8],fid)
        redis.call("zadd",xk,now + e,fid)
        if tonumber(redis.call("get",tq) or "0") < t then redis.call("set",tq,ARGV[8]) end
        for _, x in ipairs({qk, xk, tq}) do
            if redis.call("pttl",x) < e then redis.call("pexpire",x,e) end
        end
    end
    local hd = redis.call("zrange",qk,0,0)[1]
    blk = hd ~= nil and hd ~= fid
    if not blk then r = redis.call("set",KEYS[1],ARGV[1],"NX","PX",ARGV[2]) end
    if not r and t == 0 then
        -- no ticket yet: the node's counter, incremented, is our answer
        tk = redis.call("incr",tq)
        if redis.call("pttl",tq) < e then redis.call("pexpire",tq,e) end
    end
elseif qn > 0 then
    blk = true
else
    r = redis.call("set",KEYS[1],ARGV[1],"NX","PX",ARGV[2])
end
if r then
    if KEYS[2] then redis.call("set",KEYS[2],ARGV[4],"PX",ARGV[2]) end
    if wms then redis.call("zrem",KEYS[1] .. "\0w",ARGV[1]) end
    if ARGV[3] ~= "" then redis.pcall("publish","redlock:released:" .. KEYS[1] .. "\0" .. ARGV[3],"acquired") end
elseif not blk and (KEYS[2] or wms) and redis.call("get",KEYS[1]) == "\0s" then
    -- readers hold the key
    --@ now
    local rk = KEYS[1] .. "\0r"
    redis.call("zremrangebyscore",rk,"-inf",now)
    local mine = redis.call("zscore",rk,ARGV[1])
    if KEYS[2] and mine and redis.call("zcard",rk) == 1 then
        -- our read lock is the only one: promoted
        local old = tonumber(mine)
        local px = math.max(tonumber(ARGV[2]), old - now)
        redis.call("set",KEYS[1],ARGV[1],"PX",px)
        redis.call("del",rk)
        redis.call("set",KEYS[1] .. "\0o",ARGV[4] .. ":" .. string.format("%d", old),"PX",px)
        redis.call("set",KEYS[2],ARGV[4],"PX",px)
        r = redis.status_reply("OK")
        if wms then redis.call("zrem",KEYS[1] .. "\0w",ARGV[1]) end
    elseif wms then
        -- among the waiting writers, until now + ARGV[6]
        local wk = KEYS[1] .. "\0w"
        redis.call("zremrangebyscore",wk,"-inf",now)
        redis.call("zadd",wk,now + tonumber(wms),ARGV[1])
        if redis.call("pttl",wk) < tonumber(wms) then redis.call("pexpire",wk,wms) end
    end
end
if tk then r = tk end
--@ maxttl_answer(mk=mk)
