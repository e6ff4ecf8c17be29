-- POST a tool call with a requestId never used before on every request.
--   wrk -s call-fresh.lua URL -- PATH PREFIX
-- PATH: the call endpoint (/api/cos/tools/call on portos, /call on bare).
-- PREFIX: makes ids unique across runs (the script passes run name + time).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "common.lua")

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_index", threads)
end

local head, prefix, sent
function init(args)
  local path = args[1] or "/api/cos/tools/call"
  prefix = (args[2] or "fresh") .. "-" .. tostring(thread_index or 0) .. "-"
  head = "POST " .. path .. " HTTP/1.1\r\nHost: " .. wrk.headers["Host"] .. "\r\n"
    .. scenario_lines() .. "Content-Type: " .. scenario.content_type .. "\r\nContent-Length: "
  sent = 0
end

function request()
  sent = sent + 1
  local body = '{"requestId":"' .. prefix .. sent .. '","name":"time.now"' .. scenario.pad .. '}'
  return head .. #body .. "\r\n\r\n" .. body
end
