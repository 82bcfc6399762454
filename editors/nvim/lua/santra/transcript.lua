-- A transcript buffer: what the runs of one session do, drawn from their `phase` notifications
-- (protocol §7.2). Answer text is appended as it streams; tool calls and results, status lines,
-- errors and each agent's end get a row of their own; a sub-agent's rows are indented under its
-- section. A command's output is shown under its result, its last lines only. Each tool call's
-- row carries an extmark, so the row can be followed to the file the call read or changed.
local M = {}

local INDENT = '  '
local ns = vim.api.nvim_create_namespace('santra-transcript')

-- How many lines of a command's output a transcript shows (the last ones).
M.command_output_lines = 10

local Transcript = {}
Transcript.__index = Transcript

--- A transcript named `name` (its buffer is created on first use).
function M.new(name)
  return setmetatable({
    name = name,
    buf = nil,
    depth = {}, -- agentId → depth in the agent tree
    text_agent = nil, -- the agent whose text the last line holds, while text streams
    root = nil, -- the root agent of the run being drawn
    root_text = false, -- whether the root agent streamed answer text since its last tool call
    keyed = nil, -- agentId .. key of the status line that is the buffer's last line, if one is
    kinds = {}, -- toolCallId → the kind of its tool (execute: a command, whose output is shown)
    marks = {}, -- extmark id → toolCallId
    on_wipe = nil, -- called when the person wipes the buffer
  }, Transcript)
end

--- The buffer, created on first use: listed, so `:ls` and `:buffer` find it after another
--- session took its window.
function Transcript:buffer()
  if self.buf ~= nil and vim.api.nvim_buf_is_valid(self.buf) then
    return self.buf
  end
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_name(buf, self.name)
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  vim.api.nvim_buf_set_option(buf, 'filetype', 'santra')
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.b[buf].santra_transcript = true
  -- Wiped (`:bwipeout`): its session may be done with (sessions.lua decides).
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      if self.on_wipe ~= nil then
        self.on_wipe()
      end
    end,
  })
  -- A tool call's row leads to the file and line it read or changed.
  for _, lhs in ipairs({ '<CR>', 'gf' }) do
    vim.api.nvim_buf_set_keymap(buf, 'n', lhs, '', {
      callback = function()
        require('santra.follow').follow(true)
      end,
      desc = "santra: go to the tool call's file and line",
      noremap = true,
    })
  end
  self.buf = buf
  self.marks = {}
  return buf
end

--- Gives the buffer a new name (the session's id, once known).
function Transcript:rename(name)
  self.name = name
  if self.buf ~= nil and vim.api.nvim_buf_is_valid(self.buf) then
    vim.api.nvim_buf_set_name(self.buf, name)
  end
end

--- A window showing a transcript (any session's), or nil.
local function transcript_window()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.b[vim.api.nvim_win_get_buf(win)].santra_transcript then
      return win
    end
  end
  return nil
end

--- Shows the transcript without leaving the current window: in the window of a transcript when
--- one is open (another session's gives its place), else in a new one opened with `open`.
function Transcript:show(open)
  local buf = self:buffer()
  local win = transcript_window()
  if win == nil then
    local current = vim.api.nvim_get_current_win()
    vim.cmd(open or 'botright vsplit')
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_set_current_win(current)
  end
  if vim.api.nvim_win_get_buf(win) ~= buf then
    vim.api.nvim_win_set_buf(win, buf)
    vim.api.nvim_win_set_option(win, 'wrap', true)
    vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  end
  return win
end

function Transcript:edit(fn)
  local buf = self:buffer()
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  fn(buf)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  -- Keep windows that showed the end following it.
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf and win ~= vim.api.nvim_get_current_win() then
      vim.api.nvim_win_set_cursor(win, { last, 0 })
    end
  end
end

local function is_empty(buf)
  return vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
end

--- Appends whole lines; returns the 0-based row of the first.
function Transcript:append(lines)
  self.text_agent = nil
  self.keyed = nil
  local first = 0
  self:edit(function(buf)
    if is_empty(buf) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    else
      first = vim.api.nvim_buf_line_count(buf)
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
    end
  end)
  return first
end

-- Appends streamed text: continues the last line while the same agent is writing.
function Transcript:append_text(agent, prefix, text)
  self.keyed = nil
  self:edit(function(buf)
    local pieces = vim.split(text, '\n', true)
    if self.text_agent == agent and not is_empty(buf) then
      local last = vim.api.nvim_buf_line_count(buf)
      local line = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1]
      pieces[1] = line .. pieces[1]
      for i = 2, #pieces do
        pieces[i] = prefix .. pieces[i]
      end
      vim.api.nvim_buf_set_lines(buf, last - 1, last, false, pieces)
    else
      for i = 1, #pieces do
        pieces[i] = prefix .. pieces[i]
      end
      if is_empty(buf) then
        vim.api.nvim_buf_set_lines(buf, 0, -1, false, pieces)
      else
        vim.api.nvim_buf_set_lines(buf, -1, -1, false, pieces)
      end
    end
  end)
  self.text_agent = agent
end

--- Appends an error the plugin met (the server's own come as `error` phases).
function Transcript:error(message)
  self:append(vim.tbl_map(function(line)
    return '! ' .. line
  end, vim.split(tostring(message), '\n', true)))
end

--- Starts the drawing of a run: a header with the user's prompt and, under it, what the editor
--- sent with it (`attached`: "with src/a.ts:12–14 selected, 2 diagnostics").
function Transcript:begin(prompt, attached)
  self.depth = {}
  self.root = nil
  self.root_text = false
  local lines = {}
  if not is_empty(self:buffer()) then
    lines[1] = ''
  end
  for _, line in ipairs(vim.split(prompt, '\n', true)) do
    table.insert(lines, '> ' .. line)
  end
  if attached ~= nil then
    table.insert(lines, '(' .. attached .. ')')
  end
  table.insert(lines, '')
  self:append(lines)
end

--- The line that ends a run: its status and cost (of the prompt result, or a saved run's end).
function M.cost_line(status, cost)
  return string.format('(%s, $%.4f)', tostring(status), cost or 0)
end

function Transcript:depth_of(phase)
  local agent = phase.agentId or '?'
  if self.depth[agent] ~= nil then
    return self.depth[agent]
  end
  local depth = 0
  if phase.parentAgentId ~= nil then
    depth = (self.depth[phase.parentAgentId] or 0) + 1
  elseif self.root == nil then
    self.root = agent
  end
  self.depth[agent] = depth
  return depth
end

--- Whether `phase` (a complete) ends the run's root agent.
function Transcript:ends_run(phase)
  return phase.type == 'complete' and phase.parentAgentId == nil and (self.root == nil or self.root == phase.agentId)
end

--- The output of a command as the model read it (run_command wraps each stream in <stdout>,
--- <stderr> or <output> tags after a status line): the streams' lines, stderr's marked.
local function command_lines(output)
  local lines = {}
  for name, body in output:gmatch('<(%a+)>\n(.-)</%1>') do
    for _, line in ipairs(vim.split((body:gsub('\n$', '')), '\n', true)) do
      table.insert(lines, name == 'stderr' and ('stderr: ' .. line) or line)
    end
  end
  return lines
end

--- The last `M.command_output_lines` lines of a command's output, under its result.
local function output_rows(prefix, output)
  local lines = command_lines(output or '')
  local rows = {}
  local left_out = #lines - M.command_output_lines
  if left_out > 0 then
    table.insert(rows, string.format('%s    │ … %d earlier line%s left out', prefix, left_out, left_out == 1 and '' or 's'))
  end
  for i = math.max(left_out, 0) + 1, #lines do
    table.insert(rows, prefix .. '    │ ' .. lines[i])
  end
  return rows
end

local MARK = { ok = '✓', error = '✗', rejected = '⊘', cancelled = '⊘' }

--- Draws one phase.
function Transcript:phase(phase)
  if phase.type == 'event' then
    -- An event from outside (session/event): a card with its sender's words, never the agent's.
    -- It belongs to no run, so it takes no part in the run's agent tree.
    local lines = { '✉ event from ' .. tostring(phase.source) .. ' (' .. tostring(phase.delivery) .. ', untrusted):' }
    for _, line in ipairs(vim.split(phase.text or '', '\n', true)) do
      table.insert(lines, '  │ ' .. line)
    end
    self:append(lines)
    return
  end
  local depth = self:depth_of(phase)
  local prefix = string.rep(INDENT, depth)
  local t = phase.type
  if t == 'text' then
    if depth == 0 then
      self.root_text = true
    end
    self:append_text(phase.agentId, prefix, phase.text or '')
  elseif t == 'thinking' then
    return
  elseif t == 'status' then
    local line = prefix .. '… ' .. (phase.text or '')
    local key = phase.key and (phase.agentId .. '\0' .. phase.key) or nil
    if key ~= nil and self.keyed == key then
      -- A line with a key replaces the one before it (a wait, then retries; a growing tool call).
      self:edit(function(buf)
        local last = vim.api.nvim_buf_line_count(buf)
        vim.api.nvim_buf_set_lines(buf, last - 1, last, false, { line })
      end)
    else
      self:append({ line })
      self.keyed = key
    end
  elseif t == 'tool_call' then
    -- Text before a call is not the answer: the answer comes after the last call, as text or as
    -- the call's result (task_completed).
    if depth == 0 then
      self.root_text = false
    end
    self.kinds[phase.toolCallId or ''] = phase.kind or (phase.toolName == 'run_command' and 'execute' or nil)
    local row = self:append({ prefix .. '• ' .. (phase.summary or phase.toolName or 'tool') })
    if phase.toolCallId ~= nil then
      local id = vim.api.nvim_buf_set_extmark(self:buffer(), ns, row, 0, {})
      self.marks[id] = phase.toolCallId
    end
  elseif t == 'tool_result' then
    local line = prefix .. '  ' .. (MARK[phase.status] or '?') .. ' ' .. (phase.status or '')
    if phase.summary ~= nil and phase.summary ~= '' then
      line = line .. ': ' .. phase.summary
    end
    local lines = vim.split(line, '\n', true)
    if self.kinds[phase.toolCallId or ''] == 'execute' and (phase.status == 'ok' or phase.status == 'error') then
      vim.list_extend(lines, output_rows(prefix, phase.output))
    end
    self:append(lines)
  elseif t == 'section' then
    -- The section opens the sub-agent: its own rows go one level deeper.
    self:append({ string.rep(INDENT, math.max(depth - 1, 0)) .. '▸ ' .. (phase.title or phase.agentRole or '') })
  elseif t == 'error' then
    self:append(vim.tbl_map(function(l)
      return prefix .. '! ' .. l
    end, vim.split(phase.message or 'error', '\n', true)))
  elseif t == 'complete' then
    if self:ends_run(phase) then
      local lines = {}
      -- An answer given as the agent's result (task_completed) after its last text was not
      -- streamed as text.
      if not self.root_text and phase.output ~= nil and phase.output ~= '' then
        lines = vim.split(phase.output, '\n', true)
      end
      table.insert(lines, '')
      table.insert(lines, '[' .. (phase.status or 'done') .. ']')
      self:append(lines)
      self.root_text = false
    else
      self:append({ prefix .. '[' .. (phase.agentRole or phase.agentId or 'agent') .. ' ' .. (phase.status or 'done') .. ']' })
    end
  end
end

--- The tool call whose row is line `line` (1-based) of the buffer, or nil.
function Transcript:call_at(line)
  local marks = vim.api.nvim_buf_get_extmarks(self:buffer(), ns, { line - 1, 0 }, { line - 1, -1 }, {})
  for _, mark in ipairs(marks) do
    if self.marks[mark[1]] ~= nil then
      return self.marks[mark[1]]
    end
  end
  return nil
end

--- The buffer's lines.
function Transcript:lines()
  return vim.api.nvim_buf_get_lines(self:buffer(), 0, -1, false)
end

--- Puts lines at the top (the title of a resumed session).
function Transcript:prepend(lines)
  self:edit(function(buf)
    if is_empty(buf) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    else
      vim.api.nvim_buf_set_lines(buf, 0, 0, false, lines)
    end
  end)
end

--- Empties the transcript (before a resumed session is drawn again).
function Transcript:clear()
  self.text_agent = nil
  self.root_text = false
  self.depth = {}
  self.root = nil
  self.kinds = {}
  self.marks = {}
  self:edit(function(buf)
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  end)
end

return M
