-- shared_confirm.lua -- after a read lock won with a caller-chosen token: the demotions
-- its attempt made are final (other readers may join; see acquire_shared.lua).
--
-- KEYS[1]  the read lock's key list (first entry empty, rl_key_is_shared)
-- ARGV[1]  the attempt's nonce
-- Sent by rl_acquire (lock/rl_acquire.c) after the win, not waited for. Answers 1.
--@ split_s
for _, k in ipairs(ks) do
    local d = redis.call("get",k .. "\0c")
    if d and string.sub(d, 1, #ARGV[1] + 1) == ARGV[1] .. ":" then redis.call("del",k .. "\0c") end
end
return 1
