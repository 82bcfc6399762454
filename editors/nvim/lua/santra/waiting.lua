-- Requests from the server that wait for the user — approvals (santra.approval) and questions
-- (santra.question) — and the window that shows them. The window opens without the cursor: keys
-- typed for a file keep going to it, and a one-line notice says how to answer. Only a deliberate
-- act answers: a key pressed in the window, which the user enters on purpose, or a command. `:q`
-- in the window answers as the kind says (an approval is rejected, a question declined); a
-- window closed any other way (:close, :hide, :only) leaves the request waiting, shown again by
-- `reopen()`.
--
-- Requests wait in a queue; the oldest is the one shown and answered. A request the server
-- cancels (§6.3) is withdrawn.
local notice = require('santra.notice').send

local M = {}

local Queue = {}
Queue.__index = Queue

--- A queue of requests of one kind. `kind`:
---   name: the buffers' names, `santra://<name>/<id>`
---   split(): the Ex command that opens the window
---   what(params): the request in a few words, for notices
---   lines(item): the lines the window shows
---   filetype(item)
---   keys(item): lhs → { function, description }, Normal mode in the window
---   asked(more): the notice's tail when the request is shown; `more` says how many wait
---   waiting: the notice's tail when it cannot be shown now
---   hidden: the notice when its window was closed and it still waits
---   quit(item): `:q` in its window (answers it)
---   made(item): optional, after its buffer is made (for marks the lines cannot carry)
---   dismissed(item): optional, after it is answered or withdrawn (to close what it opened)
function M.new(kind)
  return setmetatable({ kind = kind, pending = {}, win = nil }, Queue)
end

function Queue:valid_win()
  return self.win ~= nil and vim.api.nvim_win_is_valid(self.win)
end

--- Whether `item` is in the queue's window now.
function Queue:visible(item)
  return self:valid_win() and item.buf ~= nil and vim.api.nvim_win_get_buf(self.win) == item.buf
end

function Queue:remove(item)
  for i, other in ipairs(self.pending) do
    if other == item then
      table.remove(self.pending, i)
      require('santra.status').changed()
      return true
    end
  end
  return false
end

--- Takes `item` off the screen: its window shows the next request, or goes; its buffer is wiped.
function Queue:dismiss(item)
  item.done = true
  if self.kind.dismissed ~= nil then
    self.kind.dismissed(item)
  end
  if self:visible(item) then
    local reused = self.pending[1] ~= nil and pcall(self.show, self, self.pending[1], false)
    if not reused and #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(self.win, true)
    end
  end
  if item.buf ~= nil and vim.api.nvim_buf_is_valid(item.buf) then
    vim.api.nvim_buf_delete(item.buf, { force = true })
  end
end

--- Shows the oldest request, if it is not on screen, and says how to answer it.
function Queue:present()
  local item = self.pending[1]
  if item == nil or self:visible(item) and item.presented then
    return
  end
  -- Neovim may refuse a new window now (the command-line window is open): the request still
  -- waits, is shown once the user is back (or with reopen()).
  local shown = pcall(self.show, self, item, false)
  item.presented = true
  local what = self.kind.what(item.params)
  if not shown then
    vim.api.nvim_create_autocmd({ 'CmdwinLeave', 'CursorHold' }, {
      once = true,
      callback = vim.schedule_wrap(function()
        self:present()
      end),
    })
    return notice(what, vim.log.levels.WARN, self.kind.waiting)
  end
  local more = #self.pending > 1 and string.format(' (%d waiting)', #self.pending) or ''
  notice(what, vim.log.levels.INFO, self.kind.asked(more))
end

--- Answers `item` (the server first, whatever the screen does next) and shows the next one.
--- `result`: the result, or nil and `err`, a JSON-RPC error. False when it was answered already.
function Queue:respond(item, result, err)
  if not self:remove(item) then
    return false
  end
  item.respond(result, err)
  self:dismiss(item)
  self:present()
  return true
end

--- The request's window went away without an answer: `:q` answers as the kind says; otherwise
--- it waits.
function Queue:left(item, quitting)
  if item.done or self.pending[1] ~= item or self:visible(item) then
    return
  end
  if quitting then
    self.kind.quit(item)
  else
    notice(self.kind.hidden, vim.log.levels.WARN)
  end
end

function Queue:make_buffer(item)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'santra://' .. self.kind.name .. '/' .. tostring(item.id))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, self.kind.lines(item))
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  vim.api.nvim_buf_set_option(buf, 'filetype', self.kind.filetype(item))
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  for lhs, map in pairs(self.kind.keys(item)) do
    vim.api.nvim_buf_set_keymap(buf, 'n', lhs, '', { callback = map[1], desc = 'santra: ' .. map[2], nowait = true, noremap = true })
  end
  if self.kind.made ~= nil then
    self.kind.made(item)
  end
  -- `:q` runs QuitPre before the window closes; :close, :hide and :only do not.
  vim.api.nvim_create_autocmd('QuitPre', {
    buffer = buf,
    callback = function()
      item.quitting = true
      vim.schedule(function()
        item.quitting = false
      end)
    end,
  })
  vim.api.nvim_create_autocmd('BufWinLeave', {
    buffer = buf,
    callback = function()
      local quitting = item.quitting
      vim.schedule(function()
        self:left(item, quitting)
      end)
    end,
  })
  item.buf = buf
end

--- Shows `item` in the queue's window (opened without entering it), entering it when `enter`.
function Queue:show(item, enter)
  if item.buf == nil or not vim.api.nvim_buf_is_valid(item.buf) then
    self:make_buffer(item)
  end
  local height = math.min(vim.api.nvim_buf_line_count(item.buf), math.max(math.floor(vim.o.lines / 3), 5))
  if not self:valid_win() then
    local from = vim.api.nvim_get_current_win()
    vim.cmd(self.kind.split())
    self.win = vim.api.nvim_get_current_win()
    vim.api.nvim_set_current_win(from)
  end
  vim.api.nvim_win_set_buf(self.win, item.buf)
  if vim.api.nvim_win_get_width(self.win) == vim.o.columns then
    vim.api.nvim_win_set_height(self.win, height)
  end
  if enter then
    vim.api.nvim_set_current_win(self.win)
  end
end

--- A request `id` from the server; `respond_fn(result, err)` answers it.
function Queue:add(id, params, respond_fn)
  table.insert(self.pending, { id = id, params = params, respond = respond_fn })
  require('santra.status').changed()
  self:present()
end

--- Shows the waiting request again, and enters its window. False when none waits.
function Queue:reopen()
  if self.pending[1] == nil then
    return false
  end
  self:show(self.pending[1], true)
  return true
end

--- The server cancelled request `id` (§6.3): withdraw it, unanswered. True when it was here.
function Queue:cancel(id)
  for _, item in ipairs(self.pending) do
    if item.id == id then
      self:remove(item)
      self:dismiss(item)
      self:present()
      return true
    end
  end
  return false
end

--- Withdraws everything (the server exited).
function Queue:reset()
  local all = self.pending
  self.pending = {}
  require('santra.status').changed()
  for _, item in ipairs(all) do
    self:dismiss(item)
  end
end

--- The request shown: { id, params, buf, win }, or nil.
function Queue:current()
  local item = self.pending[1]
  if item == nil then
    return nil
  end
  return { id = item.id, params = item.params, buf = item.buf, win = self:visible(item) and self.win or nil }
end

function Queue:count()
  return #self.pending
end

--- Puts on module `into` what every kind of waiting request offers — request, reopen, cancel,
--- reset, current, count — bound to this queue; `none` is the notice when nothing waits to reopen.
function Queue:export(into, none)
  into.request = function(id, params, respond_fn)
    self:add(id, params, respond_fn)
  end
  into.reopen = function()
    if not self:reopen() then
      notice(none)
    end
  end
  into.cancel = function(id)
    return self:cancel(id)
  end
  into.reset = function()
    self:reset()
  end
  into.current = function()
    return self:current()
  end
  into.count = function()
    return self:count()
  end
end

return M
