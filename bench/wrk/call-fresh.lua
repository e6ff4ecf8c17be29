-- POST a tool call with a requestId never used before on every request.
--   wrk -s call-fresh.lua URL -- PATH PREFIX [TOOL [ARGUMENTS]]
-- PATH: the call endpoint (/api/cos/tools/call on portos, /call on bare).
-- PREFIX: makes ids unique across runs (the script passes run name + time).
-- TOOL: the tool's name (time.now); ARGUMENTS: its arguments as JSON text.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "common.lua")

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_index", threads)
end

local head, prefix, sent, tail
function init(args)
  local path = args[1] or "/api/cos/tools/call"
  prefix = (args[2] or "fresh") .. "-" .. tostring(thread_index or 0) .. "-"
  head = "POST " .. path .. " HTTP/1.1\r\nHost: " .. wrk.headers["Host"] .. "\r\n"
    .. scenario_lines() .. "Content-Type: " .. scenario.content_type .. "\r\nContent-Length: "
  tail = '","name":"' .. (args[3] or "time.now") .. '"'
  if args[4] then tail = tail .. ',"arguments":' .. args[4] end
  sent = 0
end

function request()
  sent = sent + 1
  local body = '{"requestId":"' .. prefix .. sent .. tail .. scenario.pad .. '}'
  return head .. #body .. "\r\n\r\n" .. body
end
