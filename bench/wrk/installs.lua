-- POST /api/v1/installs: half the devices clicked (device-id matches), half are new devices on
-- networks where clicks were loaded (fingerprint lookups). The clicked devices are walked in a
-- stride from a random start, each wrk thread on its own half of the walk, so a run installs
-- each of them at most once (first installs, even with the 10,000-click table) until it has
-- made half as many device-id installs as there are clicks.
local app_id = os.getenv("BENCH_APP_ID")
local key = os.getenv("BENCH_KEY")
local clicks = tonumber(os.getenv("BENCH_CLICKS"))
local networks = tonumber(os.getenv("BENCH_NETWORKS"))
-- BENCH_DELAY_MS set: each connection waits about that long (uniformly half to one and a half
-- times it) before its next request, which offers a steady load below saturation.
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "")
local STRIDE = 7919  -- a prime: coprime with the click counts used, so the walk visits all
local threads, start = 0, nil

function setup(thread)  -- in wrk's main state, once per thread
  if start == nil then
    math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
    start = math.random(0, clicks - 1)
  end
  thread:set("first_position", start + threads * math.floor(clicks / 2))
  threads = threads + 1
end

local position

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
  position = first_position or math.random(0, clicks - 1)
end

request = function()
  local device
  if math.random() < 0.5 then
    position = position + 1
    device = string.format("00000001-0000-4000-8000-%012d", (position * STRIDE) % clicks + 1)
  else
    device = string.format("%08x-%04x-4000-9000-%012d", math.random(0, 2147483647),
      math.random(0, 65535), math.random(1, 999999999999))
  end
  local net = math.random(0, networks - 1)
  local body = string.format('{"app_id":"%s","platform":"android","sdk_version":"2.4.0","device_id":"%s","os_version":"14","device_model":"SM-S918B","language":"en-US"}', app_id, device)
  local headers = {["Content-Type"] = "application/json", ["X-API-Key"] = key,
    ["User-Agent"] = "Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B Build/UP1A.231005.007)",
    ["X-Forwarded-For"] = string.format("%d.%d.%d.%d", 82 + math.floor(net / 62500),
      math.floor(net / 250) % 250, net % 250, math.random(1, 254))}
  return wrk.format("POST", "/api/v1/installs", headers, body)
end

if delay_ms then
  function delay()
    return math.floor(delay_ms * (0.5 + math.random()))
  end
end
