-- `approve` requests (protocol §7.3): the change or command in a split, answered with a key —
-- y allow, a allow all, r or n reject, f feedback (asked with vim.ui.input): the keys of the
-- terminal UI and `santra -p`, so a user moving between clients never allows all by accident. One request at a time;
-- more wait in a queue. A request the server cancels (§6.3) is withdrawn.
local M = {}

local queue = {} -- { id, params, respond }
local current = nil -- { id, params, respond, buf, win }
local split = 'botright split'

function M.configure(opts)
  split = opts.approval_split or split
end

local function lines_of(params)
  local lines = {}
  if params.kind == 'command' then
    table.insert(lines, 'Santra wants to run a command (in ' .. tostring(params.cwd or '.') .. '):')
    table.insert(lines, '')
    for _, l in ipairs(vim.split(params.command or '', '\n', true)) do
      table.insert(lines, '  $ ' .. l)
    end
  else
    local where = params.path or '?'
    if params.destination ~= nil then
      where = where .. ' to ' .. params.destination
    end
    table.insert(lines, string.format('Santra wants to %s %s', params.operation or 'change', where))
    local diff = params.diff or {}
    if diff.added ~= nil then
      table.insert(lines, string.format('+%d -%d%s', diff.added, diff.removed or 0, diff.replacement and ' (whole file)' or ''))
    end
    table.insert(lines, '')
    for _, l in ipairs(vim.split((diff.unifiedDiff or ''):gsub('\n$', ''), '\n', true)) do
      table.insert(lines, l)
    end
  end
  if params.protected then
    table.insert(lines, 2, '! protected location: ' .. tostring(params.protectedReason or ''))
  end
  table.insert(lines, '')
  table.insert(lines, '[y] allow   [a] allow all   [r/n] reject   [f] reject with feedback')
  return lines
end

local function close_current()
  if current == nil then
    return
  end
  local c = current
  current = nil
  if c.win ~= nil and vim.api.nvim_win_is_valid(c.win) then
    -- The last window cannot be closed; show another buffer there instead.
    if #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(c.win, true)
    end
  end
  if vim.api.nvim_buf_is_valid(c.buf) then
    vim.api.nvim_buf_delete(c.buf, { force = true })
  end
end

local show_next

--- Answers the request on screen: `decision` is allow, allow_all, reject or feedback.
function M.answer(decision, feedback)
  if current == nil then
    return
  end
  local respond = current.respond
  close_current()
  if decision == 'feedback' then
    respond({ decision = 'feedback', feedback = feedback or '' })
  else
    respond({ decision = decision })
  end
  show_next()
end

local function ask_feedback()
  if current == nil then
    return
  end
  local id = current.id
  vim.ui.input({ prompt = 'Feedback for the agent: ' }, function(text)
    -- The request may have been cancelled, or another be on screen, by the time this returns.
    if current == nil or current.id ~= id or text == nil then
      return
    end
    -- No reason given is a plain reject: `feedback` must carry text (ApproveResult).
    if vim.trim(text) == '' then
      M.answer('reject')
    else
      M.answer('feedback', text)
    end
  end)
end

show_next = function()
  if current ~= nil or #queue == 0 then
    return
  end
  current = table.remove(queue, 1)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'santra://approve/' .. tostring(current.id))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines_of(current.params))
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(buf, 'filetype', current.params.kind == 'command' and 'sh' or 'diff')
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  local keys = {
    y = { function() M.answer('allow') end, 'allow this action' },
    a = { function() M.answer('allow_all') end, 'allow every action for the rest of the session' },
    r = { function() M.answer('reject') end, 'reject' },
    n = { function() M.answer('reject') end, 'reject' },
    f = { ask_feedback, 'reject, telling the agent why' },
  }
  for lhs, map in pairs(keys) do
    vim.api.nvim_buf_set_keymap(buf, 'n', lhs, '', { callback = map[1], desc = 'santra: ' .. map[2], nowait = true, noremap = true })
  end
  vim.cmd(split)
  current.win = vim.api.nvim_get_current_win()
  current.buf = buf
  vim.api.nvim_win_set_buf(current.win, buf)
end

--- Handles an `approve` request; `respond(result)` answers it.
function M.request(id, params, respond)
  table.insert(queue, { id = id, params = params, respond = respond })
  show_next()
end

--- The server cancelled request `id` (§6.3): withdraw it, unanswered.
function M.cancel(id)
  for i, item in ipairs(queue) do
    if item.id == id then
      table.remove(queue, i)
      return
    end
  end
  if current ~= nil and current.id == id then
    close_current()
    show_next()
  end
end

--- Withdraws everything (the server exited).
function M.reset()
  queue = {}
  close_current()
end

--- The request on screen: { id, params, buf, win }, or nil.
function M.current()
  return current
end

return M
