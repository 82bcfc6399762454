-- `approve` requests (protocol §7.3). A request shows in a split the user did not ask to enter
-- (santra.waiting): the cursor stays where it was, so keys typed for a file keep going to it, and
-- a notice says how to answer. Only a deliberate act answers: y (allow), a (allow all), r or n
-- (reject), f (reject with feedback, asked with vim.ui.input) pressed in the approval's window —
-- the keys of the terminal UI and `santra -p` — or the commands :SantraAllow, :SantraAllowAll,
-- :SantraReject and :SantraRejectWithFeedback from anywhere. `:q` in the window rejects; a window
-- closed any other way (:close, :hide, :only) leaves the request waiting, and :SantraApprovals
-- shows it again.
--
-- Requests wait in a queue; the oldest is the one shown and answered. Before a change of a file is
-- allowed, the file is compared with what Santra read: when the user changed it meanwhile, the
-- answer makes Santra compute the change again and ask again, never write over the user's text.
-- A request the server cancels (§6.3) is withdrawn.
local buffers = require('santra.buffers')
local notice = require('santra.notice').send

local M = {}

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

local queue
queue = require('santra.waiting').new({
  name = 'approve',
  split = function()
    return split
  end,
  what = what,
  lines = function(item)
    return lines_of(item.params)
  end,
  filetype = function(item)
    return item.params.kind == 'command' and 'sh' or 'diff'
  end,
  keys = function()
    return {
      y = { function() M.answer('allow') end, 'allow this action' },
      a = { function() M.answer('allow_all') end, 'allow every action for the rest of the session' },
      r = { function() M.answer('reject') end, 'reject' },
      n = { function() M.answer('reject') end, 'reject' },
      f = { function() M.feedback() end, 'reject, telling the agent why' },
    }
  end,
  asked = function(more)
    return '?' .. more .. ' :SantraAllow, :SantraReject'
  end,
  waiting = '? (approval waiting) :SantraApprovals shows it',
  hidden = 'approval hidden, still waiting: :SantraApprovals shows it',
  quit = function(item)
    queue:respond(item, { decision = 'reject' })
    notice('rejected (you closed the approval with :q): ' .. what(item.params))
  end,
})

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
  local item = queue.pending[1]
  if item == nil then
    notice('no approval is waiting')
    return false
  end
  if decision == 'allow' or decision == 'allow_all' then
    queue:respond(item, checked(item, decision))
  elseif decision == 'feedback' and feedback ~= nil and vim.trim(feedback) ~= '' then
    queue:respond(item, { decision = 'feedback', feedback = feedback })
  else
    -- No reason given is a plain reject: `feedback` must carry text (ApproveResult).
    queue:respond(item, { decision = 'reject' })
  end
  return true
end

--- Rejects the request shown with feedback: `text`, or asked for with vim.ui.input.
function M.feedback(text)
  local item = queue.pending[1]
  if item == nil then
    return notice('no approval is waiting')
  end
  if text ~= nil and vim.trim(text) ~= '' then
    return M.answer('feedback', text)
  end
  vim.ui.input({ prompt = 'Feedback for the agent: ' }, function(input)
    -- The request may have been answered or cancelled by the time this returns.
    if input ~= nil and queue.pending[1] == item then
      M.answer('feedback', input)
    end
  end)
end

--- request (the server's `approve`), reopen (`:SantraApprovals`), cancel (§6.3), reset, current (the request
--- shown: { id, params, buf, win }, or nil) and count.
queue:export(M, 'no approval is waiting')

return M
