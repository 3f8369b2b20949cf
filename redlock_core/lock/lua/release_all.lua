-- release_all.lua -- unlock() of a key list (docs/api.md "Several resources"), and of a
-- semaphore's permit (its slots are a key list, see permit.lua); with KEYS[2], the cleanup
-- of one failed attempt.
--
-- KEYS[1]  the key list (rl.h rl_key_is_list), or a permit's slots: r "\0p" i each
-- KEYS[2]  (optional) the attempt's nonce key: the list's first key "\0a"
-- ARGV[1..3] as release.lua's: the token, the release's id, the attempt's nonce (with
--          KEYS[2])
-- Sent for a key list where release.lua would be (list_script, lock/rl_cmd.c).
-- Answers 1 when the node held every key, 0 else; each key of ours is deleted all the
-- same, and its waiters told (tell in fragments.lua). A permit's slot also takes the
-- permit's record (r "\0pT" token, see permit.lua) with it, and tells the semaphore's
-- waiters (on the channel of r "\0p").
if redis.replicate_commands then redis.replicate_commands() end
if KEYS[2] then
    --@ cleanup_nonce
end
--@ split
local id = ARGV[2] or ""
--@ id_hash
local r = 0
for i = 1, #ks do
    if redis.call("get",ks[i]) == ARGV[1] then
        redis.call("del",ks[i])
        r = r + 1
        local sp = string.match(ks[i], "^(.*%zp)%d+$")
        if sp then redis.call("del",sp .. "T" .. ARGV[1]) end
        local c = "redlock:released:" .. (sp or ks[i])
        --@ tell(k=ks[i], c=c)
    end
end
if r == #ks then return 1 end
return 0
