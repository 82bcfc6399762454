-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath, the user's own file $SANTRA_NVIM_FILE open. $SANTRA_NVIM_CASE:
--   typing: the user types `:Santra …` and goes on typing in the file (`Go# typing in my buffer,
--     yes and no`) while the approval appears: every key must reach the file, none the approval,
--     which waits until :SantraAllow.
--   close: the first approval is closed with :q (it is rejected, the run goes on); the second is
--     hidden by :only from the file's window (it waits) and :SantraApprovals shows it again, where
--     "y" allows it.
--   question: as `typing`, but the agent asks a question (with options): the keys reach the
--     file, the question waits; "2" pressed in its window answers it. Then a secret question:
--     `:SantraAnswer {secret}` typed on the command line is refused (and leaves the history),
--     :SantraAnswer asks with inputsecret(). Then a third question, closed with :q: declined.
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
  -- santra.question has the same current(): the same state tells of a question.
  local current = approval.current()
  return {
    waiting = current ~= nil,
    path = current and current.params.path,
    shown = current ~= nil and current.win ~= nil,
    entered = current ~= nil and vim.api.nvim_get_current_win() == current.win,
    cursor_in_file = vim.api.nvim_get_current_win() == win,
  }
end

--- `:Santra {prompt}` typed, then straight on in the file; the rest is typed once `shown()` (20 s
--- at most, so the flow cannot hang), while the flow is still in Insert mode.
local function type_on(prompt, shown)
  local started = vim.loop.now()
  local timer = vim.loop.new_timer()
  timer:start(10, 10, vim.schedule_wrap(function()
    if timer:is_closing() then
      return
    end
    local appeared = shown()
    -- A run that ended (the server could not start) shows nothing: the flow fails after.
    if appeared or not require('santra').status().running or vim.loop.now() - started > 20000 then
      timer:stop()
      timer:close()
      report.shown_while_typing = appeared and vim.api.nvim_get_mode().mode == 'i'
      vim.api.nvim_feedkeys(' in my buffer, yes and no' .. ESC, 'n', false)
    end
  end))
  -- Insert mode until the Esc above.
  vim.api.nvim_feedkeys(':Santra ' .. prompt .. '\rGo# typing', 'x!', false)
end

--- Every line of every buffer, and the command-line and input histories: where a secret must not be.
local function everything_kept()
  local kept = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      vim.list_extend(kept, vim.api.nvim_buf_get_lines(b, 0, -1, false))
    end
  end
  for _, history in ipairs({ ':', '@', '/', '=' }) do
    for i = 1, vim.fn.histnr(history) do
      table.insert(kept, vim.fn.histget(history, i))
    end
  end
  return kept
end

local function question_case(santra, buf, win)
  local question = require('santra.question')
  type_on('set up the project', function()
    return question.current() ~= nil
  end)
  report.file = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  report.after_typing = approval_state(question, win)
  report.question_lines = vim.api.nvim_buf_get_lines(question.current().buf, 0, -1, false)
  report.statusline_waiting = santra.statusline()
  -- The user goes to the question's window on purpose and presses "2".
  flow.press_in_approval('2', question)
  flow.wait('no second question', function()
    local current = question.current()
    return current ~= nil and current.params.secret
  end)
  -- A secret typed after :SantraAnswer is refused, and does not stay in the history, where a
  -- command typed ("t": as if typed, not from a mapping) goes.
  vim.api.nvim_set_current_win(win)
  local secret = assert(os.getenv('SANTRA_NVIM_SECRET'))
  vim.api.nvim_feedkeys(':echo "a command of my own"\r', 'xt', false)
  vim.api.nvim_feedkeys(':SantraAnswer typed-' .. secret .. '\r', 'xt', false)
  report.typed_secret_refused = question.current() ~= nil and question.current().params.secret == true
  -- :SantraAnswer asks for it with inputsecret().
  vim.fn.inputsecret = function(prompt)
    report.secret_prompt = prompt
    return secret
  end
  vim.ui.input = function()
    error('vim.ui.input must not ask for a secret')
  end
  vim.cmd('SantraAnswer')
  flow.wait('no third question', function()
    local current = question.current()
    return current ~= nil and not current.params.secret
  end)
  -- :q in the third question's window declines it.
  flow.press_in_approval(':q\r', question)
  flow.wait_run_end()
  report.kept = everything_kept()
end

local function typing(santra, approval, buf, win)
  type_on('write the greeting', function()
    return approval.current() ~= nil
  end)
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
  -- The plugin hears of it on the next turn of the event loop, and says so.
  flow.wait('the hidden approval was not noticed', function()
    return vim.tbl_contains(vim.tbl_map(function(n)
      return n:match('^santra: approval hidden, still waiting') ~= nil
    end, report.notices), true)
  end)
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
  elseif case == 'question' then
    question_case(santra, buf, win)
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
