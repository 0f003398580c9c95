-- POST /api/v1/installs: half the devices clicked (device-id matches), half are new devices on
-- networks where clicks were loaded (fingerprint lookups), all first installs.
local app_id = os.getenv("BENCH_APP_ID")
local key = os.getenv("BENCH_KEY")
local clicks = tonumber(os.getenv("BENCH_CLICKS"))
local networks = tonumber(os.getenv("BENCH_NETWORKS"))
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
request = function()
  local device
  if math.random() < 0.5 then
    device = string.format("00000001-0000-4000-8000-%012d", math.random(1, clicks))
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
