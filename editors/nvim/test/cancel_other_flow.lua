-- :SantraCancel on a run this plugin did not start (scripts/test/nvim-cancel-other.test.ts): a
-- prompt sent on the same session by another request (as a turn an event starts) is stopped with
-- session/cancel, and the run ends cancelled.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local report = flow.report()

flow.run(report, function()
  local santra = flow.setup()
  vim.cmd('Santra say hello')
  flow.wait_run_end()
  local session_id = santra.status().session_id
  local client = santra.status().client
  -- Not through :Santra: the plugin has no prompt of its own running.
  local answered
  client:request('prompt', { text = 'take your time', sessionId = session_id, agent = 'tester' }, function(err, result)
    answered = err and ('error: ' .. (err.message or '?')) or result.status
  end)
  flow.wait('the other run did not stream', function()
    return table.concat(flow.transcript(), '\n'):find('slowly', 1, true) ~= nil
  end)
  report.running_before = santra.status().running
  vim.cmd('SantraCancel')
  flow.wait('the other run was not answered', function()
    return answered ~= nil
  end)
  report.answered = answered
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
