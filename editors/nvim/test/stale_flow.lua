-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath opens $SANTRA_NVIM_FILE (saved, unmodified), sends $SANTRA_NVIM_PROMPT with :Santra;
-- while the approval of the agent's edit is open the user runs $SANTRA_NVIM_EDIT in the file, then
-- allows with "y" in the approval window. The change must be made again on the user's text and
-- asked again, never written over it. Writes what it saw as JSON to $SANTRA_NVIM_OUT.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local file = assert(os.getenv('SANTRA_NVIM_FILE'))
local report = { approvals = {} }

flow.run(report, function()
  local santra = require('santra')
  local approval = require('santra.approval')
  santra.setup({ cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') }, agent = 'tester' })

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  vim.cmd('Santra ' .. assert(os.getenv('SANTRA_NVIM_PROMPT')))
  flow.wait('no approval appeared', function()
    return approval.current() ~= nil
  end)
  local first = approval.current()
  table.insert(report.approvals, vim.api.nvim_buf_get_lines(first.buf, 0, -1, false))

  -- The user edits the file while the approval is open, then allows.
  vim.api.nvim_set_current_win(win)
  vim.cmd(assert(os.getenv('SANTRA_NVIM_EDIT')))
  report.edited = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  flow.press_in_approval('y')

  -- Every approval after that is allowed too; each is recorded.
  flow.wait('the run did not end', function()
    local current = approval.current()
    if current ~= nil and current.id ~= first.id then
      table.insert(report.approvals, vim.api.nvim_buf_get_lines(current.buf, 0, -1, false))
      flow.press_in_approval('y')
    end
    return not santra.status().running
  end)
  report.result_status = assert(santra.status().last_result, 'the prompt failed: see the transcript').status
  report.after = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  report.after_modified = vim.bo[buf].modified
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('undo')
  end)
  report.undone = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  report.undone_modified = vim.bo[buf].modified

  local client = santra.status().client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
