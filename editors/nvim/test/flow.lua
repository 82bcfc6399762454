-- What the headless test flows share (loaded with dofile): waiting for the plugin, and running a
-- flow's body so that a failure is recorded in its report (with any server it left running
-- killed), the report written as JSON to $SANTRA_NVIM_OUT, and Neovim quit — whatever happened.
local M = {}

--- Waits up to 30 s for `condition`; fails the flow with `what` otherwise.
function M.wait(what, condition)
  assert(vim.wait(30000, condition, 10), what)
end

--- The lines of the current session's transcript.
function M.transcript()
  return vim.api.nvim_buf_get_lines(require('santra').status().transcript, 0, -1, false)
end

--- Enters the approval's window and presses `key` there, as a user would.
function M.press_in_approval(key)
  local current = assert(require('santra.approval').current(), 'no approval is shown')
  assert(current.win ~= nil, 'the approval is not in a window')
  vim.api.nvim_set_current_win(current.win)
  vim.api.nvim_feedkeys(key, 'x', false)
end

--- Waits until the current session's prompt has ended.
function M.wait_run_end(what)
  M.wait(what or 'the run did not end', function()
    local s = require('santra').status()
    return not s.running and s.last_result ~= nil
  end)
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
    if client and client.stderr ~= '' then
      report.error = report.error .. '\n-- the server\'s stderr:\n' .. client.stderr
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
