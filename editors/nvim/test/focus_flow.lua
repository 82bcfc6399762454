-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath, the user's own file $SANTRA_NVIM_FILE open. $SANTRA_NVIM_CASE:
--   typing: the user types `:Santra …` and goes on typing in the file (`Go# typing in my buffer,
--     yes and no`) while the approval appears: every key must reach the file, none the approval,
--     which waits until :SantraAllow.
--   close: the first approval is closed with :q (it is rejected, the run goes on); the second is
--     hidden by :only from the file's window (it waits) and :SantraApprovals shows it again, where
--     "y" allows it.
-- Writes what it saw as JSON to $SANTRA_NVIM_OUT, with the notices (vim.notify) given.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local case = assert(os.getenv('SANTRA_NVIM_CASE'))
local file = assert(os.getenv('SANTRA_NVIM_FILE'))
local ESC = vim.api.nvim_replace_termcodes('<Esc>', true, false, true)
local report = { notices = {} }

vim.notify = function(msg)
  table.insert(report.notices, msg)
end

local function approval_state(approval, win)
  local current = approval.current()
  return {
    waiting = current ~= nil,
    path = current and current.params.path,
    shown = current ~= nil and current.win ~= nil,
    entered = current ~= nil and vim.api.nvim_get_current_win() == current.win,
    cursor_in_file = vim.api.nvim_get_current_win() == win,
  }
end

local function typing(santra, approval, buf, win)
  -- Once the approval shows, the user goes on typing (20 s at most, so the flow cannot hang).
  local started = vim.loop.now()
  local timer = vim.loop.new_timer()
  timer:start(10, 10, vim.schedule_wrap(function()
    if timer:is_closing() then
      return
    end
    local shown = approval.current() ~= nil
    if shown or vim.loop.now() - started > 20000 then
      timer:stop()
      timer:close()
      report.shown_while_typing = shown and vim.api.nvim_get_mode().mode == 'i'
      vim.api.nvim_feedkeys(' in my buffer, yes and no' .. ESC, 'n', false)
    end
  end))
  -- `:Santra …`, then straight on in the file: insert mode until the Esc above.
  vim.api.nvim_feedkeys(':Santra write the greeting\rGo# typing', 'x!', false)
  report.file = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  report.after_typing = approval_state(approval, win)
  report.statusline_waiting = santra.statusline()
  vim.cmd('SantraAllow')
  flow.wait_run_end()
end

local function close(santra, approval, win)
  vim.cmd('Santra write the files')
  flow.wait('no approval appeared', function()
    return approval.current() ~= nil
  end)
  report.first = approval_state(approval, win)
  -- :q in the approval's window rejects it, and the run goes on.
  flow.press_in_approval(':q\r')
  flow.wait('the run did not go on after :q', function()
    local current = approval.current()
    return (current ~= nil and current.params.path ~= report.first.path) or not santra.status().running
  end)
  report.second = approval_state(approval, win)
  -- :only from the file's window closes the approval's: it waits, hidden.
  vim.api.nvim_set_current_win(win)
  vim.cmd('only')
  vim.wait(50)
  report.hidden = approval_state(approval, win)
  vim.cmd('SantraApprovals')
  report.reopened = approval_state(approval, win)
  vim.api.nvim_feedkeys('y', 'x', false)
  flow.wait_run_end()
end

flow.run(report, function()
  local santra = require('santra')
  local approval = require('santra.approval')
  santra.setup({ cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') }, agent = 'tester' })
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  if case == 'typing' then
    typing(santra, approval, buf, win)
  else
    close(santra, approval, win)
  end
  report.result_status = santra.status().last_result.status
  report.transcript = flow.transcript()
  report.statusline_after = santra.statusline()
  local client = santra.status().client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
