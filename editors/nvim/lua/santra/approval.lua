-- `approve` requests (protocol §7.3). A request shows in a split the user did not ask to enter:
-- the cursor stays where it was, so keys typed for a file keep going to it, and a notice says how
-- to answer. Only a deliberate act answers: y (allow), a (allow all), r or n (reject), f (reject
-- with feedback, asked with vim.ui.input) pressed in the approval's window — the keys of the
-- terminal UI and `santra -p` — or the commands :SantraAllow, :SantraAllowAll, :SantraReject and
-- :SantraRejectWithFeedback from anywhere. `:q` in the window rejects; a window closed any other
-- way (:close, :hide, :only) leaves the request waiting, and :SantraApprovals shows it again.
--
-- Requests wait in a queue; the oldest is the one shown and answered. Before a change of a file is
-- allowed, the file is compared with what Santra read: when the user changed it meanwhile, the
-- answer makes Santra compute the change again and ask again, never write over the user's text.
-- A request the server cancels (§6.3) is withdrawn.
local buffers = require('santra.buffers')
local notice = require('santra.notice').send

local M = {}

local pending = {} -- { id, params, respond, buf, quitting }, oldest first: pending[1] is shown
local win = nil -- the approval window
local split = 'botright split'
local resolve = function(path)
  return path
end
local recomputed = {} -- toolCallId → true: its change is made again after the user's edit

local KEYS = '[y] allow   [a] allow all   [r/n] reject   [f] reject with feedback   (:q rejects)'
local COMMANDS = 'From any window: :SantraAllow  :SantraAllowAll  :SantraReject  :SantraRejectWithFeedback  :SantraApprovals'

function M.configure(opts)
  split = opts.approval_split or split
  resolve = opts.resolve or resolve
end

--- What a request asks, in a few words.
local function what(params)
  if params.kind == 'command' then
    return 'run ' .. (params.command or ''):gsub('\n.*', ' …')
  end
  return string.format('%s %s%s', params.operation or 'change', params.path or '?', params.destination and (' to ' .. params.destination) or '')
end

--- The request as the window shows it: what and where, warnings, the keys, then the diff or the
--- command, and the commands that answer from any window.
local function lines_of(params)
  local lines, body = {}, {}
  if params.kind == 'command' then
    table.insert(lines, 'Santra wants to run a command (in ' .. tostring(params.cwd or '.') .. '):')
    for _, l in ipairs(vim.split(params.command or '', '\n', true)) do
      table.insert(body, '  $ ' .. l)
    end
  else
    local diff = params.diff or {}
    local counts = diff.added and string.format('  (+%d -%d%s)', diff.added, diff.removed or 0, diff.replacement and ', whole file' or '') or ''
    local undo = params.toolName == 'session/undo' and ' (to undo its change; the file changed since)' or ''
    table.insert(lines, 'Santra wants to ' .. what(params) .. counts .. undo)
    body = vim.split((diff.unifiedDiff or ''):gsub('\n$', ''), '\n', true)
  end
  if params.protected then
    table.insert(lines, '! protected location: ' .. tostring(params.protectedReason or ''))
  end
  if recomputed[params.toolCallId] then
    recomputed[params.toolCallId] = nil
    table.insert(lines, '! You changed the file while you were asked: this is the change made again on your text.')
  end
  table.insert(lines, KEYS)
  table.insert(lines, '')
  vim.list_extend(lines, body)
  vim.list_extend(lines, { '', COMMANDS })
  return lines
end

local function valid_win()
  return win ~= nil and vim.api.nvim_win_is_valid(win)
end

local function visible(item)
  return valid_win() and item.buf ~= nil and vim.api.nvim_win_get_buf(win) == item.buf
end

local function remove(item)
  for i, other in ipairs(pending) do
    if other == item then
      table.remove(pending, i)
      require('santra.status').changed()
      return true
    end
  end
  return false
end

--- Takes `item` off the screen: its window shows the next request, or goes; its buffer is wiped.
local function dismiss(item)
  item.done = true
  if visible(item) then
    local reused = pending[1] ~= nil and pcall(M.show, pending[1], false)
    if not reused and #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(win, true)
    end
  end
  if item.buf ~= nil and vim.api.nvim_buf_is_valid(item.buf) then
    vim.api.nvim_buf_delete(item.buf, { force = true })
  end
end

--- Shows the oldest request, if it is not on screen, and says how to answer it.
local function present()
  local item = pending[1]
  if item == nil or visible(item) and item.presented then
    return
  end
  -- Neovim may refuse a new window now (the command-line window is open): the request still
  -- waits, is shown once the user is back (or with :SantraApprovals).
  local shown = pcall(M.show, item, false)
  item.presented = true
  if not shown then
    vim.api.nvim_create_autocmd({ 'CmdwinLeave', 'CursorHold' }, { once = true, callback = vim.schedule_wrap(present) })
    return notice(what(item.params), vim.log.levels.WARN, '? (approval waiting) :SantraApprovals shows it')
  end
  local more = #pending > 1 and string.format(' (%d waiting)', #pending) or ''
  notice(what(item.params), vim.log.levels.INFO, '?' .. more .. ' :SantraAllow, :SantraReject')
end

--- Answers `item` (the server first, whatever the screen does next) and shows the next one.
local function respond(item, result)
  if not remove(item) then
    return
  end
  item.respond(result)
  dismiss(item)
  present()
end

--- What to answer instead of allowing a change of a file the user edited since Santra read it.
local function checked(item, decision)
  local params = item.params
  if params.kind ~= 'file_change' or params.operation ~= 'modify' or params.toolName == 'session/undo' then
    return { decision = decision }
  end
  local change = buffers.changed_since_read(resolve(params.path))
  if change == 'lent' then
    -- Santra reads the buffer again before writing: it computes the change on the new text and
    -- asks again. Allow-all is not given for a diff the user has not seen.
    recomputed[params.toolCallId] = true
    notice(params.path, vim.log.levels.INFO, ' changed meanwhile: Santra makes the change again on it and asks again')
    return { decision = 'allow' }
  elseif change == 'unlent' then
    notice(params.path, vim.log.levels.WARN, ' changed meanwhile: not written; the agent is told to read it again')
    return {
      decision = 'feedback',
      feedback = string.format(
        'The user changed %s in the editor while this change waited for approval, so it was not applied. Read the file again and make the change on its current content.',
        params.path
      ),
    }
  end
  return { decision = decision }
end

--- Answers the request shown (the oldest): `decision` is allow, allow_all, reject or feedback.
function M.answer(decision, feedback)
  local item = pending[1]
  if item == nil then
    notice('no approval is waiting')
    return false
  end
  if decision == 'allow' or decision == 'allow_all' then
    respond(item, checked(item, decision))
  elseif decision == 'feedback' and feedback ~= nil and vim.trim(feedback) ~= '' then
    respond(item, { decision = 'feedback', feedback = feedback })
  else
    -- No reason given is a plain reject: `feedback` must carry text (ApproveResult).
    respond(item, { decision = 'reject' })
  end
  return true
end

--- Rejects the request shown with feedback: `text`, or asked for with vim.ui.input.
function M.feedback(text)
  local item = pending[1]
  if item == nil then
    return notice('no approval is waiting')
  end
  if text ~= nil and vim.trim(text) ~= '' then
    return M.answer('feedback', text)
  end
  vim.ui.input({ prompt = 'Feedback for the agent: ' }, function(input)
    -- The request may have been answered or cancelled by the time this returns.
    if input ~= nil and pending[1] == item then
      M.answer('feedback', input)
    end
  end)
end

--- The approval's window went away without an answer: `:q` rejects; otherwise it waits.
local function left(item, quitting)
  if item.done or pending[1] ~= item or visible(item) then
    return
  end
  if quitting then
    respond(item, { decision = 'reject' })
    notice('rejected (you closed the approval with :q): ' .. what(item.params))
  else
    notice('approval hidden, still waiting: :SantraApprovals shows it', vim.log.levels.WARN)
  end
end

local function make_buffer(item)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'santra://approve/' .. tostring(item.id))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines_of(item.params))
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  vim.api.nvim_buf_set_option(buf, 'filetype', item.params.kind == 'command' and 'sh' or 'diff')
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  local keys = {
    y = { function() M.answer('allow') end, 'allow this action' },
    a = { function() M.answer('allow_all') end, 'allow every action for the rest of the session' },
    r = { function() M.answer('reject') end, 'reject' },
    n = { function() M.answer('reject') end, 'reject' },
    f = { function() M.feedback() end, 'reject, telling the agent why' },
  }
  for lhs, map in pairs(keys) do
    vim.api.nvim_buf_set_keymap(buf, 'n', lhs, '', { callback = map[1], desc = 'santra: ' .. map[2], nowait = true, noremap = true })
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
        left(item, quitting)
      end)
    end,
  })
  item.buf = buf
end

--- Shows `item` in the approval window (opened without entering it), entering it when `enter`.
function M.show(item, enter)
  if item.buf == nil or not vim.api.nvim_buf_is_valid(item.buf) then
    make_buffer(item)
  end
  local height = math.min(vim.api.nvim_buf_line_count(item.buf), math.max(math.floor(vim.o.lines / 3), 5))
  if not valid_win() then
    local from = vim.api.nvim_get_current_win()
    vim.cmd(split)
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_set_current_win(from)
  end
  vim.api.nvim_win_set_buf(win, item.buf)
  if vim.api.nvim_win_get_width(win) == vim.o.columns then
    vim.api.nvim_win_set_height(win, height)
  end
  if enter then
    vim.api.nvim_set_current_win(win)
  end
end

--- Handles an `approve` request; `respond_fn(result)` answers it.
function M.request(id, params, respond_fn)
  table.insert(pending, { id = id, params = params, respond = respond_fn })
  require('santra.status').changed()
  present()
end

--- `:SantraApprovals`: shows the waiting request again, and enters its window.
function M.reopen()
  if pending[1] == nil then
    return notice('no approval is waiting')
  end
  M.show(pending[1], true)
end

--- The server cancelled request `id` (§6.3): withdraw it, unanswered.
function M.cancel(id)
  for _, item in ipairs(pending) do
    if item.id == id then
      remove(item)
      dismiss(item)
      present()
      return
    end
  end
end

--- Withdraws everything (the server exited).
function M.reset()
  local all = pending
  pending = {}
  require('santra.status').changed()
  for _, item in ipairs(all) do
    dismiss(item)
  end
end

--- The request shown: { id, params, buf, win }, or nil.
function M.current()
  local item = pending[1]
  if item == nil then
    return nil
  end
  return { id = item.id, params = item.params, buf = item.buf, win = visible(item) and win or nil }
end

--- How many requests wait for an answer.
function M.count()
  return #pending
end

return M
