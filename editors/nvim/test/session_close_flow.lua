-- A transcript wiped while its session is idle (scripts/test/nvim-session-close.test.ts): the
-- plugin ends that session on the server with session/close, and only that one.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local report = flow.report()

--- Asks the server to close `id` itself: false when the plugin already did.
local function close(client, id)
  local answer
  client:request('session/close', { sessionId = id }, function(err, result)
    answer = err and ('error: ' .. (err.message or '?')) or result.closed
  end)
  flow.wait('session/close was not answered', function()
    return answer ~= nil
  end)
  return answer
end

flow.run(report, function()
  local santra = flow.setup()
  local sessions = require('santra.sessions')
  vim.cmd('Santra say hello')
  flow.wait_run_end()
  local first = santra.status().session_id
  local first_buf = santra.status().transcript
  vim.cmd('SantraNew')
  vim.cmd('Santra say hello again')
  flow.wait_run_end()
  local second = santra.status().session_id
  report.two_sessions = first ~= nil and second ~= nil and first ~= second
  vim.cmd('bwipeout! ' .. first_buf)
  flow.wait('the wiped session was not closed', function()
    return sessions.find(first).closed ~= nil
  end)
  report.closed_by_plugin = sessions.find(first).closed
  local client = santra.status().client
  report.first_again = close(client, first)
  report.second = close(client, second)
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
