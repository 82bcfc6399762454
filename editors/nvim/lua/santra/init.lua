-- santra.nvim: Santra in Neovim. Starts santra-server, speaks its protocol (protocol-spec/README.md)
-- and draws runs in a transcript buffer; approvals open a split, questions use vim.ui.
local client_mod = require('santra.client')
local transcript = require('santra.transcript')
local approval = require('santra.approval')
local buffers = require('santra.buffers')

local M = {}

local defaults = {
  -- The server command: a list, program first.
  cmd = { 'santra-server' },
  -- The workspace: a directory, or a function returning one. Default: the current directory.
  root = nil,
  -- Extra environment variables for the server.
  env = nil,
  -- A custom agent (.agents/*.json) to run prompts with instead of the server's routing.
  agent = nil,
  -- How the transcript and approval windows open.
  transcript_split = 'botright vsplit',
  approval_split = 'botright split',
}

M.config = vim.deepcopy(defaults)

local state = {
  client = nil,
  ready = false,
  starting = {}, -- callbacks waiting for the handshake
  server_info = nil,
  session_id = nil,
  prompt_id = nil, -- the id of the running `prompt` request
  last_result = nil, -- the last `prompt` result
}

local function notify(msg, level)
  vim.notify('santra: ' .. msg, level or vim.log.levels.INFO)
end

local function root()
  local r = M.config.root
  if type(r) == 'function' then
    r = r()
  end
  return (vim.fn.fnamemodify(r or vim.fn.getcwd(), ':p'):gsub('/$', ''))
end

-- RequestFailed (-32803): how a client declines a request it cannot serve (§7.4, §7.5).
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
  if not written then
    return declined(respond, err)
  end
  if err then
    notify(err, vim.log.levels.WARN)
  end
  respond(client_mod.object({}))
end

local function on_request(method, params, respond, id)
  if method == 'approve' then
    approval.request(id, params, respond)
  elseif method == 'fs/readTextFile' or method == 'fs/writeTextFile' then
    serve_file(method, params, respond)
  elseif method == 'ask' then
    local answer = function(value)
      if value == nil then
        -- RequestFailed is how a client declines (§7.4); RequestCancelled is for the server's own cancels.
        declined(respond, 'The user dismissed the question.')
      else
        respond({ answer = value })
      end
    end
    local question = params.prompt or ''
    if params.header ~= nil then
      question = params.header .. ': ' .. question
    end
    if params.options ~= nil and #params.options > 0 then
      vim.ui.select(params.options, {
        prompt = question,
        format_item = function(o)
          return o.label
        end,
      }, function(choice)
        answer(choice and choice.value)
      end)
    else
      -- vim.ui.input has no hidden mode; a secret answer goes through inputsecret().
      if params.secret then
        local ok, value = pcall(vim.fn.inputsecret, question .. ' ')
        answer(ok and value or nil)
      else
        vim.ui.input({ prompt = question .. ' ' }, answer)
      end
    end
  else
    respond(nil, { code = -32601, message = 'Method not found: ' .. method })
  end
end

local function on_notification(method, params)
  if method == 'phase' then
    if params.sessionId ~= nil then
      state.session_id = params.sessionId
    end
    transcript.phase(params)
  end
end

local function on_exit(code, _, stderr)
  local was_ready = state.ready
  state.client, state.ready, state.prompt_id = nil, false, nil
  approval.reset()
  local waiting = state.starting
  state.starting = {}
  for _, cb in ipairs(waiting) do
    cb('santra-server exited (code ' .. tostring(code) .. '): ' .. stderr)
  end
  if was_ready and not state.stopping then
    notify('santra-server exited with code ' .. tostring(code), vim.log.levels.WARN)
  end
  state.stopping = false
end

--- Runs `fn(client)` once the server is started and initialised (starting it if needed).
local function with_client(fn)
  if state.client ~= nil and state.ready then
    return fn(state.client)
  end
  table.insert(state.starting, function(err)
    if err then
      notify(err, vim.log.levels.ERROR)
    else
      fn(state.client)
    end
  end)
  if state.client ~= nil then
    return
  end
  local client, err = client_mod.start({
    cmd = M.config.cmd,
    cwd = root(),
    env = M.config.env,
    on_request = on_request,
    on_notification = on_notification,
    on_cancel = approval.cancel,
    on_exit = on_exit,
  })
  if not client then
    local waiting = state.starting
    state.starting = {}
    for _, cb in ipairs(waiting) do
      cb(err)
    end
    return
  end
  state.client = client
  client:initialize(root(), function(ierr, result)
    local waiting = state.starting
    state.starting = {}
    if ierr then
      for _, cb in ipairs(waiting) do
        cb('initialize failed: ' .. tostring(ierr.message))
      end
      return
    end
    state.ready = true
    state.server_info = result.serverInfo
    for _, cb in ipairs(waiting) do
      cb(nil)
    end
  end)
end

--- Sends `text` as a prompt in the current session; the run is drawn in the transcript.
function M.prompt(text)
  if state.prompt_id ~= nil then
    notify('a prompt is running; :SantraCancel stops it', vim.log.levels.WARN)
    return
  end
  transcript.show(M.config.transcript_split)
  transcript.begin(text)
  with_client(function(client)
    local params = { text = text, sessionId = state.session_id, agent = M.config.agent }
    local id
    id = client:request('prompt', params, function(err, result)
      if state.prompt_id == id then
        state.prompt_id = nil
      end
      if err then
        transcript.append({ '! ' .. tostring(err.message) })
        return
      end
      state.session_id = result.sessionId or state.session_id
      state.last_result = result
      if result.costUsd ~= nil then
        transcript.append({ string.format('(%s, $%.4f)', result.status, result.costUsd) })
      end
    end)
    state.prompt_id = id
  end)
end

--- Cancels the running prompt (§6.1); it still ends with its `complete` phase.
function M.cancel()
  if state.client == nil or state.prompt_id == nil then
    notify('no prompt is running')
    return
  end
  state.client:cancel(state.prompt_id)
end

--- Lists saved sessions with vim.ui.select and resumes the chosen one, drawing it again.
function M.resume()
  with_client(function(client)
    client:request('session/list', { limit = 50 }, function(err, result)
      if err then
        return notify(tostring(err.message), vim.log.levels.ERROR)
      end
      local sessions = result.sessions or {}
      if #sessions == 0 then
        return notify('no saved sessions in this workspace')
      end
      vim.ui.select(sessions, {
        prompt = 'Resume a session',
        format_item = function(s)
          return string.format('%s  %s  (%d messages)', (s.updatedAt or ''):sub(1, 16), s.title or s.sessionId, s.messageCount or 0)
        end,
      }, function(choice)
        if choice then
          M.resume_session(choice.sessionId)
        end
      end)
    end)
  end)
end

--- Resumes session `id`: its saved phases are sent again (afterSeq 0) and drawn.
function M.resume_session(id, callback)
  if state.prompt_id ~= nil then
    return notify('a prompt is running', vim.log.levels.WARN)
  end
  transcript.show(M.config.transcript_split)
  transcript.clear()
  with_client(function(client)
    client:request('session/resume', { sessionId = id, afterSeq = 0 }, function(err, result)
      if err then
        notify(tostring(err.message), vim.log.levels.ERROR)
      else
        state.session_id = id
        local title = result.session and result.session.title or id
        transcript.prepend({ '# ' .. title, '' })
      end
      if callback then
        callback(err, result)
      end
    end)
  end)
end

--- Sets the model (of the session, or the connection's default); without `model`, picks one.
function M.model(model)
  with_client(function(client)
    local set = function(ref)
      client:request('model/set', { model = ref, sessionId = state.session_id }, function(err, result)
        if err then
          notify(tostring(err.message), vim.log.levels.ERROR)
        else
          notify('model: ' .. tostring(result.model))
        end
      end)
    end
    if model ~= nil and model ~= '' then
      return set(model)
    end
    client:request('model/list', { sessionId = state.session_id }, function(err, result)
      if err then
        return notify(tostring(err.message), vim.log.levels.ERROR)
      end
      vim.ui.select(result.models or {}, {
        prompt = 'Model (now ' .. tostring(result.current) .. ')',
        format_item = function(m)
          return m.ref .. (m.configured and '' or '  (not configured)')
        end,
      }, function(choice)
        if choice then
          set(choice.ref)
        end
      end)
    end)
  end)
end

--- Ends the server politely (shutdown, exit).
function M.stop()
  if state.client ~= nil then
    state.stopping = true
    state.client:stop()
  end
end

--- What the plugin knows, for tests and :checkhealth.
function M.status()
  return {
    running = state.prompt_id ~= nil,
    ready = state.ready,
    client = state.client,
    session_id = state.session_id,
    server_info = state.server_info,
    last_result = state.last_result,
  }
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- a list replaces, never merges
  end
  approval.configure(M.config)
  vim.api.nvim_create_user_command('Santra', function(c)
    M.prompt(c.args)
  end, { nargs = '+', desc = 'Send a prompt to Santra' })
  vim.api.nvim_create_user_command('SantraCancel', M.cancel, { nargs = 0, desc = 'Cancel the running Santra prompt' })
  vim.api.nvim_create_user_command('SantraResume', M.resume, { nargs = 0, desc = 'Resume a saved Santra session' })
  vim.api.nvim_create_user_command('SantraModel', function(c)
    M.model(c.args)
  end, { nargs = '?', desc = 'Show or switch the Santra model' })
  local group = vim.api.nvim_create_augroup('santra', { clear = true })
  -- Neovim quits when this returns: wait (briefly) for the server's answer to `shutdown`, so that
  -- `exit` is sent too and the server ends cleanly instead of seeing its input close.
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = group,
    callback = function()
      local client = state.client
      M.stop()
      if client ~= nil then
        client:wait_exit(2000)
      end
    end,
  })
end

return M
