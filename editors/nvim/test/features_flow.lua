-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath goes through what an editor user does around a run, against the built server and
-- a fake model provider, and writes what it saw as JSON to $SANTRA_NVIM_OUT:
--   the chat buffer (:SantraChat): a prompt of two lines with a file completed after `@`, sent
--   with <C-s>; the statusline while an approval waits and after the run; :SantraQuickfix;
--   following a tool call (<CR> on its row, :SantraFollow); the chat's history (<C-p>, <C-n>);
--   :SantraUndo refused over unsaved changes, then undoing the run's edit; :SantraNew beside the
--   first session; :SantraModel's filter with Neovim's own vim.ui.select.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local report = { notices = {} }
local function keys(k)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), 'x', false)
end

vim.notify = function(msg)
  table.insert(report.notices, msg)
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

flow.run(report, function()
  local santra = require('santra')
  local approval = require('santra.approval')
  santra.setup({ cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') }, agent = 'tester' })
  report.statusline_before = santra.statusline()

  -- The chat buffer: two lines, the second completing a file after `@`, sent with <C-s>.
  vim.cmd('SantraChat')
  local chat_win = vim.api.nvim_get_current_win()
  local chat = vim.api.nvim_get_current_buf()
  report.chat_name = vim.api.nvim_buf_get_name(chat)
  vim.cmd('stopinsert')
  vim.api.nvim_buf_set_lines(chat, 0, -1, false, { 'Use a template string', 'in @gre' })
  vim.api.nvim_win_set_cursor(chat_win, { 2, 6 })
  keys('A<C-x><C-o><Esc>')
  report.chat_completed = lines(chat)
  keys('<C-s>')
  report.chat_after_send = lines(chat)

  flow.wait('no approval appeared', function()
    return approval.current() ~= nil
  end)
  report.statusline_waiting = santra.statusline()
  report.cursor_in_chat = vim.api.nvim_get_current_win() == chat_win
  vim.cmd('SantraAllow')
  flow.wait_run_end()
  report.statusline_after = santra.statusline()
  local first = santra.status()
  report.first_session = first.session_id
  report.first_transcript_name = vim.api.nvim_buf_get_name(first.transcript)

  -- The files the run changed, in the quickfix list.
  vim.cmd('SantraQuickfix')
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  report.quickfix_title = qf.title
  report.quickfix = vim.tbl_map(function(item)
    return { file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ':t'), lnum = item.lnum, text = item.text }
  end, qf.items)
  vim.cmd('cclose')

  -- <CR> on the read_file row of the transcript goes to the file and the line it read.
  local twin = vim.fn.win_findbuf(first.transcript)[1]
  vim.api.nvim_set_current_win(twin)
  for i, line in ipairs(lines(first.transcript)) do
    if line:find('• read_file', 1, true) then
      vim.api.nvim_win_set_cursor(twin, { i, 0 })
    end
  end
  keys('<CR>')
  report.followed_read = { vim.fn.expand('%:t'), vim.api.nvim_win_get_cursor(0)[1] }
  -- :SantraFollow elsewhere: the last call that named a file (the edit), at its changed line.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('SantraFollow')
  report.followed_last = { vim.fn.expand('%:t'), vim.api.nvim_win_get_cursor(0)[1] }
  local greet = vim.api.nvim_get_current_buf()
  report.greet_after_run = lines(greet)

  -- The chat's history: <C-p> brings back the prompt sent, <C-n> what was typed before.
  vim.api.nvim_set_current_win(chat_win)
  vim.api.nvim_buf_set_lines(chat, 0, -1, false, { 'a draft' })
  keys('<C-p>')
  report.history_back = lines(chat)
  keys('<C-n>')
  report.history_forward = lines(chat)

  -- :SantraUndo: refused while greet.js has unsaved changes, then undoes the edit and reloads it.
  vim.api.nvim_buf_set_lines(greet, -1, -1, true, { '// unsaved' })
  vim.cmd('SantraUndo')
  report.undo_refused = report.notices[#report.notices]
  vim.api.nvim_buf_call(greet, function()
    vim.cmd('edit!')
  end)
  local before = #report.notices
  vim.cmd('SantraUndo')
  flow.wait('the undo was not answered', function()
    return #report.notices > before
  end)
  report.undo_notice = report.notices[#report.notices]
  report.greet_undone = lines(greet)
  report.greet_undone_modified = vim.bo[greet].modified

  -- :SantraNew: a second session in a transcript of its own; the first stays readable.
  vim.cmd('SantraNew')
  vim.cmd('Santra hello again')
  flow.wait_run_end('the second run did not end')
  local second = santra.status()
  report.second_session = second.session_id
  report.second_transcript_name = vim.api.nvim_buf_get_name(second.transcript)
  report.second_transcript = lines(second.transcript)
  report.first_transcript_kept = vim.api.nvim_buf_is_valid(first.transcript) and lines(first.transcript)[1]

  -- :SantraModel with Neovim's own vim.ui.select: a filter first, then the numbered list.
  local input_prompt, choices = nil, nil
  vim.fn.input = function(opts)
    input_prompt = opts.prompt
    return 'haiku 4-5'
  end
  vim.fn.inputlist = function(list)
    choices = list
    return 1
  end
  before = #report.notices
  vim.cmd('SantraModel')
  flow.wait('model/set was not answered', function()
    return #report.notices > before
  end)
  report.filter_prompt = input_prompt
  report.filtered_choices = choices
  report.model_notice = report.notices[#report.notices]

  local client = santra.status().client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
