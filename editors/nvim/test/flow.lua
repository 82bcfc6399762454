-- What the headless test flows share (loaded with dofile): waiting for the plugin, and running a
-- flow's body so that a failure is recorded in its report (with any server it left running
-- killed), the report written as JSON to $SANTRA_NVIM_OUT, and Neovim quit — whatever happened.
local M = {}

--- Waits up to 30 s for `condition`; fails the flow with `what` otherwise.
function M.wait(what, condition)
  assert(vim.wait(30000, condition, 10), what)
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
