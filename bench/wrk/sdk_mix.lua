-- SDK traffic for bench/scale_out.py, with every answer written down so the bench can check
-- what the service promised against what it stored and sent.
--
-- Each wrk thread keeps one connection (run wrk with -c equal to -t), so each response answers
-- the thread's last request. The mix: 40% clicks (GET /clicks for a new device, two thirds
-- from network1), 15% installs (POST /installs: one in ten repeats an installed device; of the
-- rest, three in five are devices clicked before, from the click's address, and two in five
-- new devices from elsewhere), 45% event batches of 10 (POST /events, each event with a client
-- event id; one batch in ten is a retry of the thread's previous batch, the same ids again).
-- Devices and event ids are numbered from BENCH_RUN and the thread, and the random choices
-- follow BENCH_SEED: two clients given the same seed send the same requests at about the same
-- time (through the load balancer, often to different servers), so every install and event id
-- is also raced by its twin.
--
-- Written to BENCH_OUT-<thread>.txt, one line per response:
--   click <status>
--   install <status> <device id>
--   events <status> <first event number> <last event number>   (ids <run>-<thread>-<number>)
local app_id = os.getenv("BENCH_APP_ID")
local key = os.getenv("BENCH_KEY")
local run = os.getenv("BENCH_RUN")
local out_prefix = os.getenv("BENCH_OUT")
local seed = tonumber(os.getenv("BENCH_SEED") or "1")
local ua = "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
local threads = 0

function setup(thread)
  thread:set("thread_no", threads)
  threads = threads + 1
end

local out, devices, clicked, installed, events_sent, last, previous_batch

function init(args)
  math.randomseed(seed * 1000 + thread_no)
  out = io.open(string.format("%s-%d.txt", out_prefix, thread_no), "w")
  devices, events_sent = 0, 0
  clicked, installed = {}, {}
end

local function device_id(n)
  return string.format("%s-%04x-4000-8000-%012d", run, thread_no, n)
end

local function address(n, range)
  return string.format("%d.%d.%d.%d", range, thread_no, math.floor(n / 250) % 250, n % 250 + 1)
end

local function click()
  devices = devices + 1
  local n = devices
  clicked[#clicked + 1] = n
  local network = (math.random() < 2 / 3) and "network1" or "network2"
  local path = string.format("/api/v1/clicks?app_id=%s&pid=%s&c=campaign%d&advertising_id=%s",
    app_id, network, n % 5, device_id(n))
  last = {kind = "click"}
  return wrk.format("GET", path, {["User-Agent"] = ua, ["Accept-Language"] = "en-US",
    ["X-Forwarded-For"] = address(n, 81)})
end

local function install()
  local device, from
  if #installed > 0 and math.random() < 0.1 then
    local n = installed[math.random(1, #installed)]
    device, from = device_id(n), address(n, 81)
  elseif #clicked > 0 and math.random() < 0.6 then
    local n = table.remove(clicked, 1)
    installed[#installed + 1] = n
    device, from = device_id(n), address(n, 81)
  else
    devices = devices + 1
    installed[#installed + 1] = devices
    device, from = device_id(devices), address(devices, 83)
  end
  last = {kind = "install", device = device}
  local body = string.format('{"app_id":"%s","platform":"android","sdk_version":"2.4.0","device_id":"%s","os_version":"14","device_model":"SM-S918B","language":"en-US"}', app_id, device)
  return wrk.format("POST", "/api/v1/installs", {["Content-Type"] = "application/json",
    ["X-API-Key"] = key, ["User-Agent"] = "Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B)",
    ["X-Forwarded-For"] = from}, body)
end

local function events()
  if previous_batch ~= nil and math.random() < 0.1 then
    last = previous_batch  -- a retry: the same body, the same event ids
    return last.request
  end
  local first = events_sent + 1
  events_sent = events_sent + 10
  local device = #installed > 0 and device_id(installed[math.random(1, #installed)])
    or device_id(0)
  local now = os.time() * 1000
  local items = {}
  for i = first, events_sent do
    local props
    if i % 10 == 0 then
      props = '{"amount":4.99,"currency":"USD"}'
    else
      props = string.format('{"level":%d}', i % 40)
    end
    items[#items + 1] = string.format('{"event_id":"%s-%d-%d","event_name":"event_%d","properties":%s,"timestamp":%d,"session_id":"6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"}',
      run, thread_no, i, i % 8, props, now - (events_sent - i) * 1000)
  end
  local body = string.format('{"app_id":"%s","sdk_version":"2.4.0","device_id":"%s","events":[%s]}',
    app_id, device, table.concat(items, ","))
  last = {kind = "events", first = first, last = events_sent,
    request = wrk.format("POST", "/api/v1/events", {["Content-Type"] = "application/json",
      ["X-API-Key"] = key}, body)}
  previous_batch = last
  return last.request
end

request = function()
  local r = math.random()
  if r < 0.40 then
    return click()
  elseif r < 0.55 then
    return install()
  end
  return events()
end

response = function(status, headers, body)
  if last.kind == "click" then
    out:write(string.format("click %d\n", status))
  elseif last.kind == "install" then
    out:write(string.format("install %d %s\n", status, last.device))
  else
    out:write(string.format("events %d %d %d\n", status, last.first, last.last))
  end
  out:flush()
end
