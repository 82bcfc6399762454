-- Following the agent: going to the file and line a tool call read or changed (`:SantraFollow`,
-- or <CR> on a tool call's row in a transcript), and the files a run changed as a quickfix list
-- (`:SantraQuickfix`). Paths and lines come from the calls' arguments and their approvals' diffs
-- (santra.sessions).
local buffers = require('santra.buffers')
local sessions = require('santra.sessions')
local notice = require('santra.notice').send

local M = {}

--- A window to open a file in: the current one when it shows a file, else the one before it,
--- else any showing a file; a new split when there is none.
local function file_window()
  local function is_file(win)
    return win ~= 0 and vim.api.nvim_win_is_valid(win) and vim.api.nvim_buf_get_option(vim.api.nvim_win_get_buf(win), 'buftype') == ''
  end
  local current = vim.api.nvim_get_current_win()
  if is_file(current) then
    return current
  end
  local previous = vim.fn.win_getid(vim.fn.winnr('#'))
  if is_file(previous) then
    return previous
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if is_file(win) then
      return win
    end
  end
  vim.cmd('topleft split')
  return vim.api.nvim_get_current_win()
end

--- Opens `path` at `line` and goes there: in a window that shows it already, else in a window
--- that shows a file (a split of it when its buffer has unsaved changes and cannot be hidden).
function M.open(path, line)
  local buf = buffers.find(path)
  if buf == nil and vim.fn.filereadable(path) ~= 1 then
    return notice(path .. ' does not exist (any more)', vim.log.levels.WARN)
  end
  local win = buf and vim.fn.win_findbuf(buf)[1]
  if win == nil then
    win = file_window()
    vim.api.nvim_set_current_win(win)
    if vim.bo.modified and not vim.o.hidden and vim.bo.bufhidden == '' then
      vim.cmd('split')
      win = vim.api.nvim_get_current_win()
    end
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
  end
  vim.api.nvim_set_current_win(win)
  local last = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_win_set_cursor(win, { math.max(1, math.min(line or 1, last)), 0 })
  vim.cmd('normal! zv')
end

--- `:SantraFollow`: in a transcript, the tool call on the cursor's row; elsewhere (or on another
--- row) the last tool call of the current session that names a file. `row_only` (<CR> in a
--- transcript): the call on the cursor's row, or nothing.
function M.follow(row_only)
  local session = sessions.current(false)
  local call = nil
  if session ~= nil and session.transcript.buf == vim.api.nvim_get_current_buf() then
    local id = session.transcript:call_at(vim.api.nvim_win_get_cursor(0)[1])
    if id ~= nil and session.calls[id] == nil then
      return notice('that tool call names no file', vim.log.levels.INFO)
    end
    call = id and session.calls[id]
    if call == nil and row_only then
      return notice('no tool call on this row', vim.log.levels.INFO)
    end
  end
  call = call or (session and session.last_call)
  if call == nil then
    return notice('no tool call has named a file yet', vim.log.levels.INFO)
  end
  M.open(call.destination or call.path, call.line)
end

--- `:SantraQuickfix`: the files the last run that changed some changed, in the quickfix list
--- (each at its first changed line), and the quickfix window opened.
function M.quickfix()
  local session = sessions.current(false)
  local run = nil
  for i = #(session and session.runs or {}), 1, -1 do
    if #session.runs[i].changed > 0 then
      run = session.runs[i]
      break
    end
  end
  if run == nil then
    return notice('no run of this session changed a file', vim.log.levels.INFO)
  end
  local items = {}
  for _, change in ipairs(run.changed) do
    table.insert(items, { filename = change.path, lnum = change.line, text = change.text })
  end
  local title = 'Santra: ' .. vim.split(run.prompt, '\n', true)[1]
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  vim.cmd('botright copen')
end

return M
