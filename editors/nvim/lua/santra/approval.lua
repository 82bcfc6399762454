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
--
-- Approvals that edit (§7.3.2): in the window of a change of several hunks, <Space> keeps or drops
-- the hunk under the cursor (]c and [c move between hunks), and y allows the kept ones only. e
-- (or :SantraEdit) opens the proposal beside the file as Santra read it, in diff mode, in a tab of
-- its own: drop a hunk with `do`, change any line, and :w allows what you wrote. e on a command
-- opens it in a buffer, and :w runs your version (the server asks again unless it is read-only).
-- Trust requests (§7.7: a project's MCP server or hooks) and MCP tool calls show what would run.
local buffers = require('santra.buffers')
local proposal = require('santra.proposal')
local notice = require('santra.notice').send

local M = {}

local split = 'botright split'
local resolve = function(path)
  return path
end
local recomputed = {} -- toolCallId → true: its change is made again after the user's edit

local KEYS = '[y] allow   [a] allow all   [r/n] reject   [f] reject with feedback   (:q rejects)'
local TRUST_KEYS = '[y] trust it   [r/n] do not trust it   [f] do not, telling the agent why   (:q does not trust it)'
local HUNK_KEYS = '[space] keep/drop the hunk under the cursor   ]c [c] next/previous hunk   '
local EDIT_KEY = '[e] edit the proposal, :w allows your version'
local EDIT_COMMAND_KEY = '[e] edit the command, :w runs your version'
local marks = vim.api.nvim_create_namespace('santra.approval')
local COMMANDS = 'From any window: :SantraAllow  :SantraAllowAll  :SantraReject  :SantraRejectWithFeedback  :SantraApprovals'

function M.configure(opts)
  split = opts.approval_split or split
  resolve = opts.resolve or resolve
end

--- What a request asks, in a few words.
local function what(params)
  if params.kind == 'command' then
    return 'run ' .. (params.command or ''):gsub('\n.*', ' …')
  elseif params.kind == 'trust' then
    local subject = params.subject == 'hooks' and 'the project hooks for ' or 'the MCP server '
    return string.format('trust %s%s from %s', subject, tostring(params.name), tostring(params.source))
  elseif params.kind == 'mcp_tool' then
    return string.format('call %s on MCP server %s', tostring(params.tool), tostring(params.server))
  end
  return string.format('%s %s%s', params.operation or 'change', params.path or '?', params.destination and (' to ' .. params.destination) or '')
end

--- Whether the change of `params` can be answered hunk by hunk, and edited.
local function by_hunks(params)
  return params.kind == 'file_change' and (params.operation == 'create' or params.operation == 'modify')
    and params.toolName ~= 'session/undo' and proposal.has_ids(params)
end

local function editable_command(params)
  return params.kind == 'command' and params.escalation == nil
end

--- A JSON value as lines, indented by `indent`: objects and arrays one entry a line, so that a
--- long argument or definition reads as written.
local function json_lines(value, indent, out)
  out = out or {}
  local text = vim.json.encode(value)
  if type(value) ~= 'table' or #text <= 72 then
    table.insert(out, indent .. text)
    return out
  end
  local list = vim.tbl_islist(value)
  table.insert(out, indent .. (list and '[' or '{'))
  local keys = {}
  for key in pairs(value) do
    table.insert(keys, key)
  end
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  for _, key in ipairs(keys) do
    local inner = json_lines(value[key], indent .. '  ', {})
    if not list then
      inner[1] = indent .. '  ' .. vim.json.encode(tostring(key)) .. ': ' .. vim.trim(inner[1])
    end
    vim.list_extend(out, inner)
  end
  table.insert(out, indent .. (list and ']' or '}'))
  return out
end

--- How many hunks of `item` are kept, as its window says it.
local function hunk_summary(item)
  local total = #item.params.diff.hunks
  return string.format('hunks: %d of %d kept', #proposal.kept(item.params, item.dropped), total)
end

--- The request as the window shows it: what and where, warnings, the keys, then the diff (each
--- hunk's rows kept on `item`, for the keys that keep or drop it), the command, or what a trust or
--- MCP tool request would run, and the commands that answer from any window.
local function lines_of(item)
  local params = item.params
  local lines, body, keys = {}, {}, KEYS
  if params.kind == 'command' then
    table.insert(lines, 'Santra wants to run a command (in ' .. tostring(params.cwd or '.') .. '):')
    for _, l in ipairs(vim.split(params.command or '', '\n', true)) do
      table.insert(body, '  $ ' .. l)
    end
  elseif params.kind == 'trust' then
    local subject = params.subject == 'hooks' and 'hooks for ' or 'the MCP server '
    table.insert(lines, string.format('Santra asks you to trust %s%s, from %s: it runs code on your machine', subject, tostring(params.name), tostring(params.source)))
    if params.changed then
      table.insert(lines, '! changed since you trusted it: read the definition again')
    end
    keys = TRUST_KEYS
    body = vim.split(params.definition or '', '\n', true)
  elseif params.kind == 'mcp_tool' then
    table.insert(lines, string.format('Santra wants to call the tool %s of the MCP server %s, with:', tostring(params.tool), tostring(params.server)))
    body = json_lines(params.arguments or vim.empty_dict(), '  ')
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
  if params.toolCallId ~= nil and recomputed[params.toolCallId] then
    recomputed[params.toolCallId] = nil
    table.insert(lines, '! You changed the file while you were asked: this is the change made again on your text.')
  end
  table.insert(lines, keys)
  if by_hunks(params) then
    item.dropped = item.dropped or {}
    local many = #params.diff.hunks > 1
    table.insert(lines, (many and HUNK_KEYS or '') .. EDIT_KEY)
    if many then
      item.summary_row = #lines + 1
      table.insert(lines, hunk_summary(item))
    end
  elseif editable_command(params) then
    table.insert(lines, EDIT_COMMAND_KEY)
  end
  table.insert(lines, '')
  -- Each hunk runs from its @@ line to the line before the next one; hunks come in diff order.
  item.hunk_rows = {}
  for i, line in ipairs(body) do
    if line:sub(1, 2) == '@@' then
      table.insert(item.hunk_rows, { first = #lines + i, last = #lines + #body })
      local previous = item.hunk_rows[#item.hunk_rows - 1]
      if previous then
        previous.last = #lines + i - 1
      end
    end
  end
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
  lines = lines_of,
  filetype = function(item)
    local kind = item.params.kind
    return kind == 'command' and 'sh' or (kind == 'trust' or kind == 'mcp_tool') and 'json' or 'diff'
  end,
  keys = function(item)
    local keys = {
      y = { function() M.answer('allow') end, 'allow this action' },
      a = { function() M.answer('allow_all') end, 'allow every action for the rest of the session' },
      r = { function() M.answer('reject') end, 'reject' },
      n = { function() M.answer('reject') end, 'reject' },
      f = { function() M.feedback() end, 'reject, telling the agent why' },
    }
    if by_hunks(item.params) or editable_command(item.params) then
      keys.e = { function() M.edit() end, 'edit the proposal; :w allows your version' }
    end
    if by_hunks(item.params) and #item.params.diff.hunks > 1 then
      keys['<Space>'] = { function() M.toggle_hunk() end, 'keep or drop the hunk under the cursor' }
      keys[']c'] = { function() M.jump_hunk(1) end, 'the next hunk' }
      keys['[c'] = { function() M.jump_hunk(-1) end, 'the previous hunk' }
    end
    return keys
  end,
  made = function(item)
    M.mark_hunks(item)
  end,
  dismissed = function(item)
    -- Later: the answer may come from :w in the edit buffer, which cannot be wiped from there.
    vim.schedule(function()
      M.close_edit(item)
    end)
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

--- What to answer instead of allowing a change of a file the user edited since Santra read it,
--- and true then (the answer is not the user's `decision`, nor any edit they made of the change).
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
    return { decision = 'allow' }, true
  elseif change == 'unlent' then
    notice(params.path, vim.log.levels.WARN, ' changed meanwhile: not written; the agent is told to read it again')
    return {
      decision = 'feedback',
      feedback = string.format(
        'The user changed %s in the editor while this change waited for approval, so it was not applied. Read the file again and make the change on its current content.',
        params.path
      ),
    }, true
  end
  return { decision = decision }
end

--- The answer `allow` to `item` when the user dropped some of its hunks: only the kept ones, or
--- a reject when none is kept (nothing would be written). Nil when every hunk is kept.
local function chosen_hunks(item)
  if not by_hunks(item.params) or item.dropped == nil or next(item.dropped) == nil then
    return nil
  end
  local kept = proposal.kept(item.params, item.dropped)
  if #kept == 0 then
    notice('every hunk dropped: nothing to write, rejected: ' .. what(item.params))
    return { decision = 'reject' }
  end
  return { decision = 'allow', hunks = kept }
end

--- Answers the request shown (the oldest): `decision` is allow, allow_all, reject or feedback.
function M.answer(decision, feedback)
  local item = queue.pending[1]
  if item == nil then
    notice('no approval is waiting')
    return false
  end
  if decision == 'allow_all' and item.params.kind == 'trust' then
    notice('trust is given one project server or hook at a time: y trusts this one', vim.log.levels.WARN)
    return false
  end
  local part = (decision == 'allow' or decision == 'allow_all') and chosen_hunks(item)
  if part and decision == 'allow_all' then
    notice('you dropped hunks: y allows the kept ones; allow-all is for a whole change', vim.log.levels.WARN)
    return false
  end
  if decision == 'allow' or decision == 'allow_all' then
    local result, stale = checked(item, decision)
    -- A change made again on the user's text is asked again: the hunks are chosen on it then.
    if part and not stale then
      result = part
    end
    queue:respond(item, result)
  elseif decision == 'feedback' and feedback ~= nil and vim.trim(feedback) ~= '' then
    queue:respond(item, { decision = 'feedback', feedback = feedback })
  else
    -- No reason given is a plain reject: `feedback` must carry text (ApproveResult).
    queue:respond(item, { decision = 'reject' })
  end
  return true
end

--- Shows on each @@ line of `item`'s window whether its hunk is kept, and how many are.
function M.mark_hunks(item)
  if item.buf == nil or not vim.api.nvim_buf_is_valid(item.buf) or item.dropped == nil or item.summary_row == nil then
    return
  end
  vim.api.nvim_buf_clear_namespace(item.buf, marks, 0, -1)
  for i, rows in ipairs(item.hunk_rows) do
    local hunk = item.params.diff.hunks[i]
    local dropped = hunk ~= nil and item.dropped[hunk.id]
    vim.api.nvim_buf_set_extmark(item.buf, marks, rows.first - 1, 0, {
      virt_text = { { dropped and '  ✗ dropped' or '  ✓ kept', dropped and 'DiffDelete' or 'DiffAdd' } },
    })
  end
  vim.api.nvim_buf_set_option(item.buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(item.buf, item.summary_row - 1, item.summary_row, true, { hunk_summary(item) })
  vim.api.nvim_buf_set_option(item.buf, 'modifiable', false)
end

--- The index of the hunk at row `row` (1-based) of `item`'s window, or nil.
local function hunk_at(item, row)
  for i, rows in ipairs(item.hunk_rows or {}) do
    if row >= rows.first and row <= rows.last then
      return i
    end
  end
  return nil
end

--- <Space> in the approval's window: keeps the hunk under the cursor if dropped, drops it if kept.
function M.toggle_hunk()
  local item = queue.pending[1]
  if item == nil or not by_hunks(item.params) or item.dropped == nil then
    return notice('no change waiting to be approved hunk by hunk')
  end
  local row = vim.api.nvim_get_current_buf() == item.buf and vim.api.nvim_win_get_cursor(0)[1] or nil
  local index = row and hunk_at(item, row)
  if index == nil then
    return notice('the cursor is on no hunk: ]c goes to the next one')
  end
  local id = item.params.diff.hunks[index].id
  item.dropped[id] = not item.dropped[id] or nil
  M.mark_hunks(item)
end

--- ]c / [c in the approval's window: the cursor to the next (`step` 1) or previous hunk's @@ line.
function M.jump_hunk(step)
  local item = queue.pending[1]
  if item == nil or vim.api.nvim_get_current_buf() ~= item.buf then
    return
  end
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local rows = item.hunk_rows or {}
  local from, to = step > 0 and 1 or #rows, step > 0 and #rows or 1
  for i = from, to, step do
    local first = rows[i].first
    if step > 0 and first > row or step < 0 and first < row then
      return vim.api.nvim_win_set_cursor(0, { first, 0 })
    end
  end
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

--- A scratch buffer named `name` holding `lines`; `writable`: :w runs `on_write` (acwrite).
local function scratch(name, lines, writable, on_write)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'buftype', writable and 'acwrite' or 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  vim.api.nvim_buf_set_option(buf, 'modified', false)
  if writable then
    vim.api.nvim_create_autocmd('BufWriteCmd', { buffer = buf, callback = on_write })
  else
    vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  end
  -- The file's own filetype, from the name's extension, for its syntax.
  pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent! filetype detect')
  end)
  return buf
end

--- Answers `item` with what the user wrote in its edit buffer, unless it was answered meanwhile.
--- `result` is the answer; a file change is checked first as `y` checks it.
local function answer_edit(item, result)
  if item.done then
    return notice('this approval was answered already: your version was not sent', vim.log.levels.WARN)
  end
  local checked_result, stale = checked(item, 'allow')
  if stale then
    notice('your version was not sent: the file changed while you edited it', vim.log.levels.WARN)
    result = checked_result
  end
  queue:respond(item, result)
end

--- :w in the proposal buffer of `item`: its lines are the user's version of the file.
local function write_proposal(item, edit)
  local lines = vim.api.nvim_buf_get_lines(edit.buf, 0, -1, true)
  local empty = #lines == 1 and lines[1] == ''
  local text = empty and '' or proposal.join(lines, edit.ending, edit.final)
  vim.api.nvim_buf_set_option(edit.buf, 'modified', false)
  local result
  if text == edit.proposed then
    result = { decision = 'allow' }
  elseif text == edit.base and item.params.operation == 'modify' then
    notice('your version is the file as it is: nothing to write, rejected: ' .. what(item.params))
    result = { decision = 'reject' }
  else
    result = { decision = 'allow', content = text }
  end
  answer_edit(item, result)
end

--- :w in the command buffer of `item`: its lines are the user's command line.
local function write_command(item, edit)
  local lines = vim.api.nvim_buf_get_lines(edit.buf, 0, -1, true)
  while #lines > 0 and vim.trim(lines[#lines]) == '' do
    table.remove(lines)
  end
  local command = table.concat(lines, '\n')
  if vim.trim(command) == '' then
    return notice('the command is empty: nothing to run (:SantraReject rejects it)', vim.log.levels.WARN)
  end
  vim.api.nvim_buf_set_option(edit.buf, 'modified', false)
  answer_edit(item, command == item.params.command and { decision = 'allow' } or { decision = 'allow', command = command })
end

--- The proposal of the file change `item`, with its dropped hunks left out, beside the file as
--- Santra read it: a tab of its own, in diff mode.
local function edit_file(item)
  local params = item.params
  local path = resolve(params.path)
  if params.operation == 'modify' and buffers.changed_since_read(path) ~= nil then
    return notice(params.path .. ' changed since Santra read it: y has Santra make its change again on it', vim.log.levels.WARN)
  end
  local base = params.operation == 'create' and '' or buffers.text(path)
  local full, why = proposal.rebuild(params, base or '')
  local kept = full and proposal.rebuild(params, base or '', item.dropped)
  if kept == nil then
    return notice('cannot edit this change: ' .. tostring(why) .. '; answer it as a whole (y or r)', vim.log.levels.WARN)
  end
  local edit = { ending = kept.ending, final = kept.final, base = base or '' }
  edit.proposed = proposal.join(full.lines, full.ending, full.final)
  local name = 'santra://approve/' .. tostring(item.id)
  vim.cmd('tabnew')
  edit.tab = vim.api.nvim_get_current_tabpage()
  local scratch_buf = vim.api.nvim_get_current_buf()
  edit.original = scratch(name .. '/as-read/' .. params.path, kept.base.lines, false)
  vim.api.nvim_win_set_buf(0, edit.original)
  vim.cmd('diffthis')
  vim.cmd('rightbelow vsplit')
  edit.buf = scratch(name .. '/proposal/' .. params.path, kept.lines, true, function()
    write_proposal(item, edit)
  end)
  vim.api.nvim_win_set_buf(0, edit.buf)
  vim.cmd('diffthis')
  if vim.api.nvim_buf_is_valid(scratch_buf) and scratch_buf ~= edit.original then
    pcall(vim.api.nvim_buf_delete, scratch_buf, { force = true })
  end
  item.edit = edit
  notice('edit the proposal (do drops the hunk under the cursor); :w allows your version, :tabclose leaves it waiting')
end

--- The command of `item` in a buffer of its own; :w runs the user's version.
local function edit_command(item)
  local edit = {}
  vim.cmd(split)
  edit.buf = scratch('santra://approve/' .. tostring(item.id) .. '/command', vim.split(item.params.command or '', '\n', true), true, function()
    write_command(item, edit)
  end)
  vim.api.nvim_buf_set_option(edit.buf, 'filetype', 'sh')
  vim.api.nvim_win_set_buf(0, edit.buf)
  item.edit = edit
  notice('edit the command; :w runs your version (asked again unless it only reads), :q leaves it waiting')
end

--- `e` in the approval's window, or :SantraEdit: edit the change or command waiting, then :w.
function M.edit()
  local item = queue.pending[1]
  if item == nil then
    return notice('no approval is waiting')
  end
  if item.edit ~= nil and vim.api.nvim_buf_is_valid(item.edit.buf) then
    local win = vim.fn.bufwinid(item.edit.buf)
    if win ~= -1 then
      return vim.api.nvim_set_current_win(win)
    end
  end
  if by_hunks(item.params) then
    return edit_file(item)
  elseif editable_command(item.params) then
    return edit_command(item)
  end
  notice('this approval cannot be edited: answer it with y or r', vim.log.levels.WARN)
end

--- Closes what `item`'s edit opened (it was answered, or withdrawn).
function M.close_edit(item)
  local edit = item.edit
  item.edit = nil
  if edit == nil then
    return
  end
  if edit.tab ~= nil and vim.api.nvim_tabpage_is_valid(edit.tab) and #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd('tabclose! ' .. vim.api.nvim_tabpage_get_number(edit.tab))
  end
  for _, buf in ipairs({ edit.buf, edit.original }) do
    if buf ~= nil and vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
end

--- request (the server's `approve`), reopen (`:SantraApprovals`), cancel (§6.3), reset, current (the request
--- shown: { id, params, buf, win }, or nil) and count.
queue:export(M, 'no approval is waiting')

return M
