-- POST /api/v1/events: batches of 100 events, 5 of them revenue events.
local app_id = os.getenv("BENCH_APP_ID")
local key = os.getenv("BENCH_KEY")
local now = os.time() * 1000
local events = {}
for i = 1, 100 do
  local props
  if i % 20 == 0 then
    props = string.format('{"amount":%d.99,"currency":"USD","sku":"gems_%d"}', i % 10, i)
  else
    props = string.format('{"level":%d,"screen":"main","score":%d}', i, i * 37)
  end
  events[i] = string.format('{"event_name":"event_%d","properties":%s,"timestamp":%d,"session_id":"6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"}', i % 8, props, now - i * 1000)
end
local body = string.format('{"app_id":"%s","sdk_version":"2.4.0","device_id":"00000001-0000-4000-8000-000000000001","events":[%s]}',
  app_id, table.concat(events, ","))
request = function()
  return wrk.format("POST", "/api/v1/events", {["Content-Type"] = "application/json",
    ["X-API-Key"] = key}, body)
end
