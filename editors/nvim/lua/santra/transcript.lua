-- The transcript buffer: what a run does, drawn from its `phase` notifications (protocol §7.2).
-- Answer text is appended as it streams; tool calls and results, status lines, errors and each
-- agent's end get a row of their own; a sub-agent's rows are indented under its section.
local M = {}

local NAME = 'santra://transcript'
local INDENT = '  '

local state = {
  buf = nil,
  depth = {}, -- agentId → depth in the agent tree
  text_agent = nil, -- the agent whose text the last line holds, while text streams
  root = nil, -- the root agent of the run being drawn
  root_text = false, -- whether the root agent streamed answer text since its last tool call
  keyed = nil, -- agentId .. key of the status line that is the buffer's last line, if one is
}

local function valid(buf)
  return buf ~= nil and vim.api.nvim_buf_is_valid(buf)
end

--- The transcript buffer, created on first use.
function M.buffer()
  if valid(state.buf) then
    return state.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, NAME)
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  vim.api.nvim_buf_set_option(buf, 'filetype', 'santra')
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  state.buf = buf
  return buf
end

--- Shows the transcript in a window (opened with `open`, e.g. "botright vsplit") unless one
--- already shows it.
function M.show(open)
  local buf = M.buffer()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  local current = vim.api.nvim_get_current_win()
  vim.cmd(open or 'botright vsplit')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.api.nvim_win_set_option(win, 'wrap', true)
  vim.api.nvim_set_current_win(current)
  return win
end

local function edit(fn)
  local buf = M.buffer()
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

--- Appends whole lines.
function M.append(lines)
  state.text_agent = nil
  state.keyed = nil
  edit(function(buf)
    if is_empty(buf) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    else
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
    end
  end)
end

-- Appends streamed text: continues the last line while the same agent is writing.
local function append_text(agent, prefix, text)
  state.keyed = nil
  edit(function(buf)
    local pieces = vim.split(text, '\n', true)
    if state.text_agent == agent and not is_empty(buf) then
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
  state.text_agent = agent
end

--- Starts the drawing of a run: a header with the user's prompt.
function M.begin(prompt)
  state.depth = {}
  state.root = nil
  state.root_text = false
  local lines = {}
  if not is_empty(M.buffer()) then
    lines[1] = ''
  end
  for _, line in ipairs(vim.split(prompt, '\n', true)) do
    table.insert(lines, '> ' .. line)
  end
  table.insert(lines, '')
  M.append(lines)
end

local function depth_of(phase)
  local agent = phase.agentId or '?'
  if state.depth[agent] ~= nil then
    return state.depth[agent]
  end
  local depth = 0
  if phase.parentAgentId ~= nil then
    depth = (state.depth[phase.parentAgentId] or 0) + 1
  elseif state.root == nil then
    state.root = agent
  end
  state.depth[agent] = depth
  return depth
end

local MARK = { ok = '✓', error = '✗', rejected = '⊘', cancelled = '⊘' }

--- Draws one phase.
function M.phase(phase)
  local depth = depth_of(phase)
  local prefix = string.rep(INDENT, depth)
  local t = phase.type
  if t == 'text' then
    if depth == 0 then
      state.root_text = true
    end
    append_text(phase.agentId, prefix, phase.text or '')
  elseif t == 'thinking' then
    return
  elseif t == 'status' then
    local line = prefix .. '… ' .. (phase.text or '')
    local key = phase.key and (phase.agentId .. '\0' .. phase.key) or nil
    if key ~= nil and state.keyed == key then
      -- A line with a key replaces the one before it (a wait, then retries; a growing tool call).
      edit(function(buf)
        local last = vim.api.nvim_buf_line_count(buf)
        vim.api.nvim_buf_set_lines(buf, last - 1, last, false, { line })
      end)
    else
      M.append({ line })
      state.keyed = key
    end
  elseif t == 'tool_call' then
    -- Text before a call is not the answer: the answer comes after the last call, as text or as
    -- the call's result (task_completed).
    if depth == 0 then
      state.root_text = false
    end
    M.append({ prefix .. '• ' .. (phase.summary or phase.toolName or 'tool') })
  elseif t == 'tool_result' then
    local line = prefix .. '  ' .. (MARK[phase.status] or '?') .. ' ' .. (phase.status or '')
    if phase.summary ~= nil and phase.summary ~= '' then
      line = line .. ': ' .. phase.summary
    end
    M.append(vim.split(line, '\n', true))
  elseif t == 'section' then
    -- The section opens the sub-agent: its own rows go one level deeper.
    M.append({ string.rep(INDENT, math.max(depth - 1, 0)) .. '▸ ' .. (phase.title or phase.agentRole or '') })
  elseif t == 'error' then
    M.append(vim.tbl_map(function(l)
      return prefix .. '! ' .. l
    end, vim.split(phase.message or 'error', '\n', true)))
  elseif t == 'complete' then
    if phase.parentAgentId == nil and (state.root == nil or state.root == phase.agentId) then
      local lines = {}
      -- An answer given as the agent's result (task_completed) after its last text was not
      -- streamed as text.
      if not state.root_text and phase.output ~= nil and phase.output ~= '' then
        lines = vim.split(phase.output, '\n', true)
      end
      table.insert(lines, '')
      table.insert(lines, '[' .. (phase.status or 'done') .. ']')
      M.append(lines)
      state.root_text = false
    else
      M.append({ prefix .. '[' .. (phase.agentRole or phase.agentId or 'agent') .. ' ' .. (phase.status or 'done') .. ']' })
    end
  end
end

--- The buffer's lines (for tests and :checkhealth).
function M.lines()
  return vim.api.nvim_buf_get_lines(M.buffer(), 0, -1, false)
end

--- Puts lines at the top (the title of a resumed session).
function M.prepend(lines)
  edit(function(buf)
    if is_empty(buf) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    else
      vim.api.nvim_buf_set_lines(buf, 0, 0, false, lines)
    end
  end)
end

--- Empties the transcript (before a resumed session is drawn again).
function M.clear()
  state.text_agent = nil
  state.root_text = false
  state.depth = {}
  state.root = nil
  edit(function(buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  end)
end

return M
