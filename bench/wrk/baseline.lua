request = function()
  return wrk.format("GET", "/r")
end
