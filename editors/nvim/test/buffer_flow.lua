-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath opens $SANTRA_NVIM_FILE, adds a line it does not save ($SANTRA_NVIM_UNSAVED), sends
-- $SANTRA_NVIM_PROMPT with :Santra to the built server (the fake provider scripts reads and edits),
-- allows every approval with "y", and writes what it saw as JSON to $SANTRA_NVIM_OUT: the approval
-- splits, the buffer after the run and after `undo`, and which files have loaded buffers.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local file = assert(os.getenv('SANTRA_NVIM_FILE'))
local unsaved = assert(os.getenv('SANTRA_NVIM_UNSAVED'))
local report = { approvals = {} }

local wait = flow.wait

flow.run(report, function()
  local santra = require('santra')
  local approval = require('santra.approval')
  santra.setup({ cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') } })

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  vim.api.nvim_buf_set_lines(buf, -1, -1, true, { unsaved })
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  report.before = vim.api.nvim_buf_get_lines(buf, 0, -1, true)

  vim.cmd('Santra ' .. assert(os.getenv('SANTRA_NVIM_PROMPT')))
  -- Every approval is allowed with "y", pressed in its split as a user would.
  wait('the run did not end', function()
    local current = approval.current()
    if current ~= nil then
      table.insert(report.approvals, vim.api.nvim_buf_get_lines(current.buf, 0, -1, false))
      vim.api.nvim_set_current_win(current.win)
      vim.api.nvim_feedkeys('y', 'x', false)
    end
    return not santra.status().running
  end)
  report.result_status = assert(santra.status().last_result, 'the prompt failed: see the transcript').status

  report.after = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  report.after_modified = vim.bo[buf].modified
  report.cursor = vim.api.nvim_win_get_cursor(win)
  report.loaded = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == '' and vim.api.nvim_buf_get_name(b) ~= '' then
      table.insert(report.loaded, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t'))
    end
  end
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('undo')
  end)
  report.undone = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  report.undone_modified = vim.bo[buf].modified

  local client = santra.status().client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
