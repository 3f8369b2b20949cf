-- release_shared.lua -- unlock() of a read lock (docs/api.md "Read locks"); with KEYS[2],
-- the cleanup of one failed attempt.
--
-- KEYS[1]  the read lock's key list (first entry empty, rl_key_is_shared)
-- KEYS[2]  (optional) the attempt's nonce key: the first key "\0a"
-- ARGV[1..3] as release.lua's: the token, the release's id, the attempt's nonce (with
--          KEYS[2])
-- Sent for a read lock where release.lua would be (list_script, lock/rl_cmd.c).
-- Answers 1 when we read every key, 0 else. Each of ours leaves; a key whose last reader
-- left is deleted and its waiters told (tell in fragments.lua). The cleanup acts only
-- where its attempt added us, and a demotion it made (k "\0c", see acquire_shared.lua) is
-- undone: the key takes our token back, with the expiry it had.
if redis.replicate_commands then redis.replicate_commands() end
if KEYS[2] then
    --@ cleanup_nonce
end
--@ split_s
--@ now
local id = ARGV[2] or ""
--@ id_hash
local r = 0
for _, k in ipairs(ks) do
    local rk = k .. "\0r"
    local dk = k .. "\0c"
    local d = KEYS[2] and redis.call("get",dk)
    if d and string.sub(d, 1, #ARGV[3] + 1) == ARGV[3] .. ":" then
        -- our demotion: the exclusive lock back
        local old = tonumber(string.sub(d, #ARGV[3] + 2))
        redis.call("del",dk)
        redis.call("zrem",rk,ARGV[1])
        if redis.call("zcard",rk) == 0 then redis.call("del",rk) end
        if old > now then redis.call("set",k,ARGV[1],"PX",old - now) else redis.call("del",k) end
        r = r + 1
    elseif redis.call("get",k) == "\0s" then
        redis.call("zremrangebyscore",rk,"-inf",now)
        if redis.call("zrem",rk,ARGV[1]) == 1 then r = r + 1 end
        if redis.call("zcard",rk) == 0 then
            redis.call("del",k,rk,dk)
            local c = "redlock:released:" .. k
            --@ tell(k=k, c=c)
        else
            --@ maxexp(rk=rk)
            redis.call("pexpire",k,mx - now)
            redis.call("pexpire",rk,mx - now)
        end
    end
end
if r == #ks then return 1 end
return 0
