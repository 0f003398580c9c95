-- GET /l/bench: following a link (docs/links.md, "Following a link"), with varied advertising
-- ids and public client addresses, the same User-Agent as clicks.lua, so it compares with /clicks
-- request for request.
local ua = "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
request = function()
  local n = math.random(1, 1000000000)
  local path = string.format("/l/bench?advertising_id=%08x-0000-4000-8000-%012d", n % 4294967295, n)
  local headers = {["User-Agent"] = ua, ["Accept-Language"] = "en-US,en;q=0.9",
    ["X-Forwarded-For"] = string.format("81.%d.%d.%d", n % 200, math.floor(n / 200) % 250, n % 250 + 1)}
  return wrk.format("GET", path, headers)
end
