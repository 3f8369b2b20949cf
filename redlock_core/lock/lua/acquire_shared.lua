-- acquire_shared.lua -- one attempt of a read lock (docs/api.md "Read locks"; why this is
-- safe: HACKING.md "Read locks"): every key of the list, or none.
--
-- KEYS[1]  the read lock's key list: as a key list (rl.h rl_key_is_list) whose first entry
--          is empty (rl_key_is_shared)
-- KEYS[2]  (optional) the attempt's nonce key: the first key "\0a" (a caller-chosen token)
-- ARGV[1]  the token
-- ARGV[2]  the TTL in ms
-- ARGV[3]  the waiter's shard name, "" none (as acquire.lua's)
-- ARGV[4]  the attempt's nonce, with KEYS[2]; "" none
-- ARGV[5]  the maxttl key, "" (or absent) none (as acquire.lua's)
-- The same commands as acquire.lua's (lock/rl_acquire.c): list_script (lock/rl_cmd.c) sends this one for a read
-- lock. Answers OK when we read every key, nil when none was taken; with ARGV[5] {r, m, a}.
--
-- On each node, a key k held by readers has the value "\0s" (no token has a NUL) and its
-- readers are the ZSET k "\0r": token -> the node's time (ms) when that reader expires. k
-- lives as long as its longest-lived reader (PX from the largest score), so an exclusive
-- SET NX fails while any reader is alive, and a reader that dies stops counting at its own
-- expiry (entries past it are pruned). A reader never joins a key holding a token (an
-- exclusive holder) nor one with waiting writers (ZSET k "\0w", see acquire.lua), nor one
-- with a fair queue: no writer starvation.
-- Every key or none: each must hold no token but ours, and (unless we read it already) no
-- waiting writer nor another's pending demotion. Our own exclusive key (a caller-chosen
-- token) is demoted: "\0s", with us as its reader, and k "\0c" (nonce ":" the exclusive
-- expiry) holds other readers back until the client confirms (shared_confirm.lua) or the
-- cleanup gives the exclusive lock back. The nonce key is written only when this attempt
-- added something (a new reader, a demotion): the cleanup of a refresh must not remove the
-- read lock it refreshed.
local mk = ARGV[5]
if mk == "" then mk = nil end
if redis.replicate_commands then redis.replicate_commands() end
--@ split_s
--@ now
local tk = ARGV[1]
local ttl = tonumber(ARGV[2])
local nc = ARGV[4]
if nc == "" then nc = nil end
-- had: the keys we read already (a refresh); dem: our exclusive keys, to demote
local free, had, dem = true, {}, {}
for i, k in ipairs(ks) do
    local v = redis.call("get",k)
    local rk = k .. "\0r"
    if v == tk and nc then
        dem[i] = true
    elseif v and v ~= "\0s" then
        free = false
        break
    else
        redis.call("zremrangebyscore",rk,"-inf",now)
        if redis.call("zscore",rk,tk) then
            had[i] = true
        else
            local wk = k .. "\0w"
            redis.call("zremrangebyscore",wk,"-inf",now)
            if redis.call("zcard",wk) > 0 or redis.call("exists",k .. "\0c") == 1 then free = false break end
            local fk = k
            --@ fair_prune
            if qn > 0 then free = false break end
        end
    end
end
local r = false
if free then
    local any = false
    for i, k in ipairs(ks) do
        local rk = k .. "\0r"
        local old = 0
        if dem[i] then
            local pt = redis.call("pttl",k)
            if pt > 0 then old = now + pt end
        end
        redis.call("zadd",rk,now + ttl,tk)
        --@ maxexp(rk=rk)
        if old > mx then mx = old end
        redis.call("set",k,"\0s","PX",mx - now)
        redis.call("pexpire",rk,mx - now)
        if dem[i] then redis.call("set",k .. "\0c",nc .. ":" .. string.format("%d", old),"PX",mx - now) end
        if not had[i] then any = true end
        if ARGV[3] ~= "" then redis.pcall("publish","redlock:released:" .. k .. "\0" .. ARGV[3],"acquired") end
    end
    if KEYS[2] and any then redis.call("set",KEYS[2],nc,"PX",ttl) end
    r = redis.status_reply("OK")
end
--@ maxttl_answer(mk=mk)
