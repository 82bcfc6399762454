-- :SantraMode end to end (scripts/test/nvim-modes.test.ts): the mode set in Neovim goes with the
-- next prompt, the server refuses the model's write in plan mode, and the statusline shows it.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local report = flow.report()

flow.run(report, function()
  local santra = flow.setup()
  vim.cmd('SantraMode plan')
  report.statusline = santra.statusline()
  vim.cmd('Santra write planned.txt')
  flow.wait_run_end()
  report.result_mode = santra.status().last_result.permissionMode
  report.transcript = flow.transcript()

  -- Back to default; during the next prompt, at its first approval, acceptEdits: the prompt's
  -- second write is not asked.
  vim.cmd('SantraMode default')
  local approval = require('santra.approval')
  vim.cmd('Santra write first.txt and second.txt')
  flow.wait('no approval appeared', function()
    return approval.current() ~= nil
  end)
  vim.cmd('SantraMode acceptEdits')
  flow.press_in_approval('y')
  flow.wait_run_end()
  report.approvals_after_switch = approval.current() == nil and 0 or 1
  report.second_mode = santra.status().last_result.permissionMode
  local client = santra.status().client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
