-- Driven by scripts/test/nvim-features.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath sends prompts with the editor's context (santra.context) to the built server, whose
-- fake model records what it was sent. $SANTRA_NVIM_FILE is open, with diagnostics set through
-- vim.diagnostic.set; $SANTRA_NVIM_OTHER is loaded too, and so is $SANTRA_NVIM_OUTSIDE (a file
-- outside the workspace, never to be sent), and a scratch buffer. $SANTRA_NVIM_CASE:
--   range: lines 2–3 selected linewise (`2GVj`, then `:Santra explain` typed, which makes it
--     `:'<,'>Santra explain`); then a charwise selection (`2G03lvj04l`) sent the same way.
--   cursor: the cursor on line 60, in the middle of the window; `:Santra what is here`; then the
--     session resumed (:SantraResume's way), drawn again.
--   chat: the cursor on line 7; :SantraChat, a prompt typed and sent with <C-s>.
-- Writes what it saw as JSON to $SANTRA_NVIM_OUT: each run's transcript and the window's view.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local case = assert(os.getenv('SANTRA_NVIM_CASE'))
local report = { notices = {} }

vim.notify = function(msg)
  table.insert(report.notices, msg)
end

local function keys(k)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), 'x', false)
end

--- A diagnostic as a language server would give it: line and columns 0-based.
local function diagnostic(lnum, col, end_col, severity, message)
  return { lnum = lnum - 1, col = col, end_lnum = lnum - 1, end_col = end_col, severity = severity, message = message, source = 'fakels', code = 'F' .. lnum }
end

--- Waits until run `count` of the session has ended with a result (its cost line drawn).
local function run_end(santra, count)
  flow.wait('run ' .. count .. ' did not end', function()
    return not santra.status().running
  end)
  local ends = vim.tbl_filter(function(line)
    return line:match('^%(%a+, %$') ~= nil
  end, flow.transcript())
  assert(#ends == count, 'run ' .. count .. ' failed: see the transcript')
end

flow.run(report, function()
  local santra = require('santra')
  santra.setup({ cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') }, agent = 'tester' })
  -- Loaded and listed: a file outside the workspace, a scratch buffer, another workspace file.
  vim.cmd('edit ' .. vim.fn.fnameescape(assert(os.getenv('SANTRA_NVIM_OUTSIDE'))))
  local scratch = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_name(scratch, 'scratch-notes')
  vim.cmd('edit ' .. vim.fn.fnameescape(assert(os.getenv('SANTRA_NVIM_OTHER'))))
  vim.cmd('edit ' .. vim.fn.fnameescape(assert(os.getenv('SANTRA_NVIM_FILE'))))
  local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  local ns = vim.api.nvim_create_namespace('context-flow-test')

  if case == 'range' then
    vim.diagnostic.set(ns, buf, {
      diagnostic(2, 15, 19, vim.diagnostic.severity.ERROR, "Cannot find name 'nmae'."),
      diagnostic(5, 0, 3, vim.diagnostic.severity.WARN, 'A diagnostic outside the selection.'),
    })
    keys('2GVj')
    keys(':Santra explain<CR>')
    run_end(santra, 1)
    report.transcript_lines = flow.transcript()
    -- Charwise: from line 2, column 4, to line 3, column 5.
    keys('2G03lvj04l')
    keys(':Santra and this part<CR>')
    run_end(santra, 2)
  elseif case == 'cursor' then
    vim.diagnostic.set(ns, buf, {
      diagnostic(62, 2, 8, vim.diagnostic.severity.HINT, 'A hint in view.'),
      diagnostic(5, 0, 3, vim.diagnostic.severity.ERROR, 'An error out of view.'),
    })
    vim.api.nvim_win_set_cursor(win, { 60, 4 })
    vim.cmd('normal! zz')
    report.view = vim.api.nvim_win_call(win, function()
      return { vim.fn.line('w0'), vim.fn.line('w$') }
    end)
    vim.cmd('Santra what is here')
    run_end(santra, 1)
    report.transcript = flow.transcript()
    -- Resumed, the run is drawn again with what was attached to its prompt (from its record).
    santra.resume_session(santra.status().session_id)
    flow.wait('the session was not resumed', function()
      return (flow.transcript()[1] or ''):sub(1, 2) == '# '
    end)
    report.resumed_transcript = flow.transcript()
  else
    vim.api.nvim_win_set_cursor(win, { 7, 0 })
    vim.cmd('SantraChat')
    local chat = vim.api.nvim_get_current_buf()
    vim.cmd('stopinsert')
    vim.api.nvim_buf_set_lines(chat, 0, -1, false, { 'What does this line do?' })
    keys('<C-s>')
    run_end(santra, 1)
  end
  report.transcript = report.transcript or flow.transcript()
  local client = santra.status().client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
