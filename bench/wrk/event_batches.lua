-- POST /api/v1/events: batches of BENCH_BATCH events (default 10), every event with a client
-- event id of its own (the idempotency check runs), one in ten a revenue event.
local app_id = os.getenv("BENCH_APP_ID")
local key = os.getenv("BENCH_KEY")
local batch = tonumber(os.getenv("BENCH_BATCH") or "10")
local threads = 0

function setup(thread)
  thread:set("thread_no", threads)
  threads = threads + 1
end

local prefix, sent

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
  prefix = string.format("%08x-%d", math.random(0, 2147483647), thread_no or 0)
  sent = 0
end

request = function()
  local now = os.time() * 1000
  local events = {}
  for i = 1, batch do
    sent = sent + 1
    local props
    if i % 10 == 0 then
      props = string.format('{"amount":%d.99,"currency":"USD","sku":"gems_%d"}', i % 10, i)
    else
      props = string.format('{"level":%d,"screen":"main","score":%d}', i, i * 37)
    end
    events[i] = string.format('{"event_id":"%s-%d","event_name":"event_%d","properties":%s,"timestamp":%d,"session_id":"6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"}',
      prefix, sent, i % 8, props, now - i * 1000)
  end
  local body = string.format('{"app_id":"%s","sdk_version":"2.4.0","device_id":"00000001-0000-4000-8000-000000000001","events":[%s]}',
    app_id, table.concat(events, ","))
  return wrk.format("POST", "/api/v1/events", {["Content-Type"] = "application/json",
    ["X-API-Key"] = key}, body)
end
