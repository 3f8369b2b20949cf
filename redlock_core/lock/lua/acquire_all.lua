-- acquire_all.lua -- one attempt of lockAll() (docs/api.md "Several resources"): every
-- key of a list, or none.
--
-- KEYS[1]  the key list: "\0", then each key after its length in 2 bytes (rl.h
--          rl_key_is_list; built by the glue)
-- KEYS[2]  (optional) the attempt's nonce key: the list's first key "\0a" (eval_cmd)
-- ARGV[1..4] as acquire.lua's: the token, the TTL in ms, the waiter's shard name ("" none),
--          the nonce ("" none)
-- ARGV[5]  (optional) the maxttl key (as acquire.lua's); absent without the restart checks
-- The same commands as acquire.lua's (acq_commands, acq_subscribe in lock/rl_acquire.c, repair in lock/rl_release.c):
-- list_script sends this one for a key list.
-- Answers OK when it set every key (none existed, none had a fair queue with entries), nil
-- when it set none; with ARGV[5] {r, m, a}.
--
-- A key list is one argument, so every call and queue that carries a key (owed releases,
-- the watchdog, restore) carries a list unchanged. Each script of a list is atomic on its
-- node: all the keys or none. A node counts only when it holds (set, extended) every key.
if ARGV[5] and redis.replicate_commands then redis.replicate_commands() end
--@ split
local r = false
local free = true
for i = 1, #ks do
    local fk = ks[i]
    if redis.call("exists",fk) == 1 then free = false break end
    --@ fair_prune
    if qn > 0 then free = false break end
end
if free then
    for i = 1, #ks do redis.call("set",ks[i],ARGV[1],"PX",ARGV[2]) end
    r = redis.status_reply("OK")
    if KEYS[2] then redis.call("set",KEYS[2],ARGV[4],"PX",ARGV[2]) end
    if ARGV[3] ~= "" then
        for i = 1, #ks do
            redis.pcall("publish","redlock:released:" .. ks[i] .. "\0" .. ARGV[3],"acquired")
        end
    end
end
--@ maxttl_answer(mk=ARGV[5])
