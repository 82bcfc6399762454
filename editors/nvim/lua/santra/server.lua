-- The plugin's one santra-server: started at the first command that needs it, initialised (§3),
-- and the requests and notifications it sends routed — `approve` to the approval window, `ask` to
-- the question window, `fs/readTextFile` and `fs/writeTextFile` to the buffers the plugin lends
-- (§7.5), `phase` to the sessions' transcripts.
local client_mod = require('santra.client')
local approval = require('santra.approval')
local question = require('santra.question')
local buffers = require('santra.buffers')
local sessions = require('santra.sessions')

local M = {}

local state = {
  client = nil,
  ready = false,
  stopping = false,
  starting = {}, -- callbacks waiting for the handshake
  server_info = nil,
  methods = {}, -- method name → true, from initialize
  root = nil, -- the workspace the server was started in (absolute, links resolved)
  exited = nil, -- how the last server ended: { code, stderr, expected (stopped by the plugin) }
}

local opts = {} -- { cmd, env, root = function }

function M.configure(options)
  opts = options
end

M.notify = require('santra.notice').send

-- RequestFailed (-32803): how a client declines a request it cannot serve (§7.5).
local function declined(respond, message)
  respond(nil, { code = -32803, message = message })
end

-- InvalidParams (-32602): a field that is not a string.
local function not_a_string(respond, method, field)
  respond(nil, { code = -32602, message = method .. ': params.' .. field .. ' must be a string' })
end

--- Runs `fn(...)`, which returns a value or nil and a message; Neovim refusing the change (the
--- command-line window is open, say) is a message too.
local function attempt(fn, ...)
  local ok, value, err = pcall(fn, ...)
  if not ok then
    return nil, 'santra.nvim: ' .. tostring(value)
  end
  return value, err
end

--- `fs/readTextFile` and `fs/writeTextFile` (§7.5): served from the loaded buffers. Declining
--- (RequestFailed) makes Santra use the disk.
local function serve_file(method, params, respond)
  if type(params.path) ~= 'string' then
    return not_a_string(respond, method, 'path')
  end
  if method == 'fs/readTextFile' then
    local text, err = attempt(buffers.read, params.path)
    if err then
      return declined(respond, err)
    end
    return respond({ text = text == nil and vim.NIL or text })
  end
  if type(params.text) ~= 'string' then
    return not_a_string(respond, method, 'text')
  end
  local written, err = attempt(buffers.write, params.path, params.text)
  if err then
    -- Whole in the transcript; the notice may have to be cut to one line.
    local session = sessions.find(params.sessionId)
    if session ~= nil then
      session.transcript:error(err)
    end
    M.notify(err, vim.log.levels.WARN)
  end
  if not written then
    return declined(respond, err)
  end
  respond(client_mod.object({}))
end

local function on_request(method, params, respond, id)
  if method == 'approve' then
    sessions.approval(params)
    approval.request(id, params, respond)
  elseif method == 'fs/readTextFile' or method == 'fs/writeTextFile' then
    serve_file(method, params, respond)
  elseif method == 'ask' then
    question.request(id, params, respond)
  else
    respond(nil, { code = -32601, message = 'Method not found: ' .. method })
  end
end

local function on_notification(method, params)
  if method == 'phase' then
    sessions.on_phase(params)
  end
end

local function on_exit(code, _, stderr)
  local was_ready = state.ready
  state.client, state.ready = nil, false
  state.exited = { code = code, stderr = stderr, expected = state.stopping }
  sessions.reset()
  approval.reset()
  question.reset()
  local waiting = state.starting
  state.starting = {}
  for _, cb in ipairs(waiting) do
    cb('santra-server exited (code ' .. tostring(code) .. '): ' .. stderr)
  end
  if was_ready and not state.stopping then
    M.notify('santra-server exited with code ' .. tostring(code), vim.log.levels.WARN)
  end
  state.stopping = false
end

local function started(err)
  local waiting = state.starting
  state.starting = {}
  for _, cb in ipairs(waiting) do
    cb(err)
  end
end

--- Runs `fn(client)` once the server is started and initialised (starting it if needed);
--- `failed(message)` when it cannot be, after the message is shown.
function M.with_client(fn, failed)
  if state.client ~= nil and state.ready then
    return fn(state.client)
  end
  table.insert(state.starting, function(err)
    if err then
      M.notify(err, vim.log.levels.ERROR)
      if failed then
        failed(err)
      end
    else
      fn(state.client)
    end
  end)
  if state.client ~= nil then
    return
  end
  local root = opts.root()
  state.root = root
  local client, err = client_mod.start({
    cmd = opts.cmd,
    cwd = root,
    env = opts.env,
    on_request = on_request,
    on_notification = on_notification,
    on_cancel = function(id)
      if not approval.cancel(id) then
        question.cancel(id)
      end
    end,
    on_exit = on_exit,
  })
  if not client then
    return started(err)
  end
  state.client = client
  client:initialize(root, function(ierr, result)
    if ierr then
      return started('initialize failed: ' .. tostring(ierr.message))
    end
    state.ready = true
    state.server_info = result.serverInfo
    state.methods = {}
    for _, method in ipairs(result.capabilities and result.capabilities.methods or {}) do
      state.methods[method] = true
    end
    started(nil)
  end)
end

--- Whether the server handles `method` (from its initialize result).
function M.has(method)
  return state.methods[method] == true
end

--- Ends the server politely (shutdown, exit); `wait_ms`: wait for it to exit.
function M.stop(wait_ms)
  local client = state.client
  if client ~= nil then
    state.stopping = true
    client:stop()
    if wait_ms then
      client:wait_exit(wait_ms)
    end
  end
end

function M.state()
  return state
end

return M
