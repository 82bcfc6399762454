-- What the headless test flows share (loaded with dofile): waiting for the plugin, and running a
-- flow's body so that a failure is recorded in its report (with any server it left running
-- killed), the report written as JSON to $SANTRA_NVIM_OUT, and Neovim quit — whatever happened.
local M = {}

--- How the server ended when it exited without being asked to (it could not start, or died), or
--- nil: each flow starts its own, and stops it only at its end.
function M.died()
  local exited = require('santra.server').state().exited
  return exited ~= nil and not exited.expected and exited or nil
end

--- Waits up to 30 s for `condition`; fails the flow with `what` otherwise, and at once when the
--- server has died (M.died), with what it said on stderr.
function M.wait(what, condition)
  local met = vim.wait(30000, function()
    return condition() or M.died() ~= nil
  end, 10)
  local died = M.died()
  if died ~= nil then
    error(string.format('%s: santra-server exited (code %s); its stderr:\n%s', what, tostring(died.code), died.stderr), 2)
  end
  assert(met, what)
end

--- The lines of the current session's transcript.
function M.transcript()
  return vim.api.nvim_buf_get_lines(require('santra').status().transcript, 0, -1, false)
end

--- Enters the approval's window (or the question's: `queue` santra.question) and presses `key`
--- there, as a user would.
function M.press_in_approval(key, queue)
  local current = assert((queue or require('santra.approval')).current(), 'nothing is shown')
  assert(current.win ~= nil, 'it is not in a window')
  vim.api.nvim_set_current_win(current.win)
  vim.api.nvim_feedkeys(key, 'x', false)
end

--- Waits until the current session's prompt has ended; fails at once when it failed (no result).
function M.wait_run_end(what)
  M.wait(what or 'the run did not end', function()
    return not require('santra').status().running
  end)
  assert(require('santra').status().last_result ~= nil, 'the prompt failed: see the transcript')
end

--- A report whose `notices` collect what the plugin tells the person (vim.notify).
function M.report()
  local report = { notices = {} }
  vim.notify = function(msg)
    table.insert(report.notices, msg)
  end
  return report
end

--- The plugin set up against the built server under test, with the tester agent; returns it.
function M.setup()
  local santra = require('santra')
  santra.setup({ cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') }, agent = 'tester' })
  return santra
end

--- Runs `body`, then writes `report` and quits.
function M.run(report, body)
  local out = assert(os.getenv('SANTRA_NVIM_OUT'))
  local ok, failure = xpcall(body, debug.traceback)
  if not ok then
    report.error = failure
    -- A flow without a server (or that failed before one started) has no client to stop.
    local found, client = pcall(function()
      return require('santra').status().client
    end)
    client = found and client or nil
    -- What the run had drawn, and what the server said on stderr, to tell why.
    local drawn, lines = pcall(M.transcript)
    if drawn then
      report.error = report.error .. '\n-- the transcript then:\n' .. table.concat(lines, '\n')
    end
    local died = M.died()
    local stderr = client and client.stderr or (died and died.stderr) or ''
    if stderr ~= '' then
      report.error = report.error .. '\n-- the server\'s stderr:\n' .. stderr
    end
    if client and client.handle and not client.handle:is_closing() then
      client.handle:kill('sigkill')
      client:wait_exit(5000)
    end
  end
  local f = assert(io.open(out, 'w'))
  f:write(vim.json.encode(report))
  f:close()
  vim.cmd('qall!')
end

return M
