-- The sessions this Neovim shows, side by side: each has its transcript buffer, named after the
-- session, its running prompt, its cost, and what its runs did to files — the tool calls that
-- name a file (for following the agent there) and the files each run changed (the quickfix list,
-- and what `session/undo` may restore).
local transcript = require('santra.transcript')

local M = {}

local list = {} -- every session, oldest first
local current = nil -- the session commands act on
local resolve = function(path)
  return path
end
local on_wiped = function(_) end

-- Tools that change the file named by their `path` (or move `from` to `to`), for a server that
-- does not send a call's kind.
local CHANGES = { edit = true, delete = true, move = true }
local CHANGING_TOOLS = { write_file = 'edit', str_replace = 'edit', multi_edit = 'edit', delete_file = 'delete', move_file = 'move' }

--- `resolve_path(path)`: the absolute path of a workspace-relative one; `wiped(session)`: its
--- transcript was wiped (`:bwipeout`).
function M.configure(resolve_path, wiped)
  resolve = resolve_path
  on_wiped = wiped or on_wiped
end

--- A new session (its id comes with its first prompt or from session/resume); it becomes current.
function M.new()
  local session = {
    id = nil,
    transcript = transcript.new('santra://transcript/new-' .. (#list + 1)),
    prompt_id = nil, -- the id of its running `prompt` request
    last_result = nil, -- its last `prompt` result
    cost = nil, -- the session's cost so far, in US dollars
    agent = nil, -- the agent working now, while a prompt runs
    calls = {}, -- toolCallId → { path, destination, line, kind, tool, args } of a call naming a file
    last_call = nil, -- the last tool call that names a file
    runs = {}, -- { prompt, changed = { { path, line, text } } }, oldest first
    changed = {}, -- absolute path → true: every file a run of this session changed
    replay = nil, -- while session/resume draws it again: { runs = runId → { prompt, context, status, cost } }
  }
  session.transcript.on_wipe = function()
    on_wiped(session)
  end
  table.insert(list, session)
  current = session
  return session
end

--- Names the session (and its transcript buffer) after its id.
function M.set_id(session, id)
  if session.id == id then
    return
  end
  session.id = id
  session.transcript:rename('santra://transcript/' .. id)
end

--- The session with id `id`, or nil.
function M.find(id)
  for _, session in ipairs(list) do
    if session.id == id then
      return session
    end
  end
  return nil
end

--- The session commands act on: the one whose transcript is in the current window, else the one
--- used last; nil when there is none and `create` is false.
function M.current(create)
  local buf = vim.api.nvim_get_current_buf()
  for _, session in ipairs(list) do
    if session.transcript.buf == buf then
      current = session
    end
  end
  if current == nil and create then
    return M.new()
  end
  return current
end

--- Makes `session` the one commands act on.
function M.select(session)
  current = session
end

function M.all()
  return list
end

--- The session a phase belongs to: by its id, or a session whose first prompt is waiting for one.
function M.of_phase(phase)
  local session = M.find(phase.sessionId)
  if session ~= nil then
    return session
  end
  for _, s in ipairs(list) do
    if s.id == nil and s.prompt_id ~= nil then
      M.set_id(s, phase.sessionId)
      return s
    end
  end
  return nil
end

--- Starts the bookkeeping of a run with prompt `text`.
function M.begin_run(session, text)
  table.insert(session.runs, { prompt = text, changed = {} })
end

local function note_change(session, call, text)
  local run = session.runs[#session.runs]
  session.changed[call.path] = true
  if call.destination ~= nil then
    session.changed[call.destination] = true
  end
  if run == nil then
    return
  end
  local path = call.destination or call.path
  for _, item in ipairs(run.changed) do
    if item.path == path then
      return
    end
  end
  table.insert(run.changed, { path = path, line = call.line or 1, text = text })
end

--- The line of `path` where `text`'s first line is, or nil.
local function line_of(path, text)
  local first = vim.split(text, '\n', true)[1]
  if first == nil or vim.trim(first) == '' or vim.fn.filereadable(path) ~= 1 then
    return nil
  end
  local buf = vim.fn.bufnr(path)
  local lines = (buf ~= -1 and vim.api.nvim_buf_is_loaded(buf)) and vim.api.nvim_buf_get_lines(buf, 0, -1, false) or vim.fn.readfile(path)
  for i, line in ipairs(lines) do
    if line:find(first, 1, true) then
      return i
    end
  end
  return nil
end

--- Keeps what a phase tells about files and the working agent.
local function keep(session, phase)
  local agent = phase.agentRole or phase.agentId
  if session.prompt_id ~= nil and session.agent ~= agent then
    session.agent = agent
    require('santra.status').changed()
  end
  local args = phase.args or {}
  if phase.type == 'tool_call' and type(args.path or args.from) == 'string' then
    local call = {
      path = resolve(args.path or args.from),
      destination = type(args.to) == 'string' and resolve(args.to) or nil,
      line = type(args.startLine) == 'number' and args.startLine or nil,
      kind = phase.kind or CHANGING_TOOLS[phase.toolName],
      tool = phase.toolName,
      args = args,
    }
    session.calls[phase.toolCallId] = call
    session.last_call = call
  elseif phase.type == 'tool_result' and phase.status == 'ok' then
    local call = session.calls[phase.toolCallId]
    if call ~= nil and CHANGES[call.kind] then
      if call.line == nil and type(call.args.newStr) == 'string' then
        call.line = line_of(call.path, call.args.newStr)
      end
      note_change(session, call, string.format('%s: %s', call.tool, phase.summary or 'changed'))
    end
  end
end

--- A `phase` notification: drawn in its session's transcript, and kept. While a saved session is
--- drawn again (session/resume), each run starts with its prompt and ends with its cost, from the
--- session's records (`session.replay`: runId → { prompt, context, status, cost }).
function M.on_phase(phase)
  local session = M.of_phase(phase)
  if session == nil then
    return
  end
  local replay = session.replay
  if replay ~= nil and phase.runId ~= replay.run then
    replay.run = phase.runId
    local saved = replay.runs[phase.runId] or {}
    local prompt = saved.prompt or '(the prompt was not saved)'
    session.transcript:begin(prompt, require('santra.context').describe(saved.context))
    M.begin_run(session, prompt)
  end
  keep(session, phase)
  session.transcript:phase(phase)
  local saved = replay and replay.runs[phase.runId]
  if saved ~= nil and saved.cost ~= nil and session.transcript:ends_run(phase) then
    session.transcript:append({ transcript.cost_line(saved.status, saved.cost) })
  end
end

--- An approval shows where a change goes: its first changed line.
function M.approval(params)
  local session = M.find(params.sessionId)
  local call = session and session.calls[params.toolCallId]
  local hunk = params.diff and params.diff.hunks and params.diff.hunks[1]
  if call == nil or hunk == nil then
    return
  end
  for _, line in ipairs(hunk.lines or {}) do
    if line.type ~= 'context' then
      call.line = line.newLine or line.oldLine
      return
    end
  end
end

--- The prompt ended (answered or failed): nothing runs in the session any more.
function M.ended(session)
  session.prompt_id = nil
  session.agent = nil
  require('santra.status').changed()
end

--- The server exited: no prompt runs.
function M.reset()
  for _, session in ipairs(list) do
    M.ended(session)
  end
end

return M
