-- The connection to santra-server: spawns it, frames JSON-RPC messages with Content-Length
-- headers (protocol §1, the framing LSP uses), performs the handshake (§3) and routes what the
-- server sends. vim.lsp.rpc frames the same way, but it answers a server request with whatever
-- its handler returns at once, and `approve` and `ask` (§7.3, §7.4) are answered later, when the
-- user has decided; so this module keeps its own small transport on vim.loop.
local M = {}

M.PROTOCOL_VERSION = '0.2.0'
M.CLIENT_VERSION = '0.1.0'

local uv = vim.loop

local Client = {}
Client.__index = Client

-- JSON `{}`: vim.json.encode turns an empty Lua table into `[]`.
local function object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return t
end
M.object = object

local function environment(extra)
  if extra == nil or next(extra) == nil then
    return nil
  end
  local env = vim.tbl_extend('force', vim.fn.environ(), extra)
  local list = {}
  for k, v in pairs(env) do
    table.insert(list, k .. '=' .. tostring(v))
  end
  return list
end

--- Starts the server. `opts`: `cmd` (a list: program and arguments), `cwd`, `env` (added to the
--- environment), `on_notification(method, params)`, `on_request(method, params, respond, id)`
--- where `respond(result, err)` answers once, `on_cancel(id)` for a server `$/cancelRequest`, and
--- `on_exit(code, signal, stderr)`. Returns the client, or nil and a message.
function M.start(opts)
  local cmd = opts.cmd
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then
    return nil, 'santra: cmd must be a list such as {"santra-server"}'
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    return nil, string.format('santra: %s is not executable (is it on PATH? set cmd in setup())', cmd[1])
  end
  local self = setmetatable({
    next_id = 0,
    pending = {},
    buffer = '',
    stderr = '',
    closed = false,
    opts = opts,
  }, Client)
  local stdin, stdout, stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
  self.stdin = stdin
  local args = {}
  for i = 2, #cmd do
    args[#args + 1] = cmd[i]
  end
  local handle, pid
  handle, pid = uv.spawn(cmd[1], {
    args = args,
    stdio = { stdin, stdout, stderr },
    cwd = opts.cwd,
    env = environment(opts.env),
  }, function(code, signal)
    for _, pipe in ipairs({ stdin, stdout, stderr }) do
      if not pipe:is_closing() then
        pipe:close()
      end
    end
    if handle and not handle:is_closing() then
      handle:close()
    end
    vim.schedule(function()
      self:_closed(code, signal)
    end)
  end)
  if not handle then
    for _, pipe in ipairs({ stdin, stdout, stderr }) do
      pipe:close()
    end
    return nil, string.format('santra: cannot start %s: %s', cmd[1], tostring(pid))
  end
  self.handle, self.pid = handle, pid
  stdout:read_start(function(err, chunk)
    if err == nil and chunk then
      self:_feed(chunk)
    end
  end)
  stderr:read_start(function(err, chunk)
    if err == nil and chunk then
      self.stderr = (self.stderr .. chunk):sub(-8192)
    end
  end)
  return self
end

-- Runs on the loop's thread: splits frames and hands each decoded message to the main loop.
function Client:_feed(chunk)
  self.buffer = self.buffer .. chunk
  while true do
    local head_end = self.buffer:find('\r\n\r\n', 1, true)
    if not head_end then
      return
    end
    local head = self.buffer:sub(1, head_end - 1)
    local length = tonumber(head:lower():match('content%-length:%s*(%d+)'))
    if not length then
      self.buffer = ''
      return
    end
    local body_start = head_end + 4
    if #self.buffer < body_start + length - 1 then
      return
    end
    local body = self.buffer:sub(body_start, body_start + length - 1)
    self.buffer = self.buffer:sub(body_start + length)
    local ok, message = pcall(vim.json.decode, body, { luanil = { object = true, array = true } })
    if ok and type(message) == 'table' then
      vim.schedule(function()
        self:_dispatch(message)
      end)
    end
  end
end

function Client:_dispatch(message)
  local opts = self.opts
  if message.method ~= nil and message.id ~= nil then
    local answered = false
    local respond = function(result, err)
      if answered then
        return
      end
      answered = true
      if err ~= nil then
        self:_send({ jsonrpc = '2.0', id = message.id, error = err })
      else
        self:_send({ jsonrpc = '2.0', id = message.id, result = result == nil and vim.NIL or result })
      end
    end
    if opts.on_request then
      local ok, err = pcall(opts.on_request, message.method, message.params or {}, respond, message.id)
      if not ok then
        respond(nil, { code = -32603, message = tostring(err) })
      end
    else
      respond(nil, { code = -32601, message = 'Method not found: ' .. message.method })
    end
  elseif message.method ~= nil then
    if message.method == '$/cancelRequest' then
      if opts.on_cancel and message.params then
        opts.on_cancel(message.params.id)
      end
    elseif opts.on_notification then
      opts.on_notification(message.method, message.params or {})
    end
  elseif message.id ~= nil then
    local callback = self.pending[message.id]
    self.pending[message.id] = nil
    if callback then
      callback(message.error, message.result)
    end
  end
end

function Client:_closed(code, signal)
  if self.closed then
    return
  end
  self.closed = true
  local pending = self.pending
  self.pending = {}
  -- What it said last on stderr tells why (a Node.js too old, a bad config file).
  local said = vim.trim(self.stderr):match('([^\n]*)$') or ''
  local message = 'santra-server exited (code ' .. tostring(code) .. ')' .. (said ~= '' and (': ' .. said) or '')
  for _, callback in pairs(pending) do
    callback({ code = -32099, message = message }, nil)
  end
  if self.opts.on_exit then
    self.opts.on_exit(code, signal, self.stderr)
  end
end

--- The members of a message in the order the spec asks for (§1.4: `id` and `method` before
--- `params`): a Lua table has no order of its own, so each member is encoded on its own.
local MEMBER_ORDER = { 'jsonrpc', 'id', 'method', 'params', 'result', 'error' }

local function encode_message(payload)
  local members = {}
  for _, key in ipairs(MEMBER_ORDER) do
    if payload[key] ~= nil then
      table.insert(members, vim.json.encode(key) .. ':' .. vim.json.encode(payload[key]))
    end
  end
  return '{' .. table.concat(members, ',') .. '}'
end

function Client:_send(payload)
  if self.closed or self.stdin:is_closing() then
    return false
  end
  local body = encode_message(payload)
  self.stdin:write('Content-Length: ' .. #body .. '\r\n\r\n' .. body)
  return true
end

--- Sends a request; `callback(err, result)` runs on the main loop. Returns the request's id.
function Client:request(method, params, callback)
  self.next_id = self.next_id + 1
  local id = self.next_id
  self.pending[id] = callback or function() end
  if not self:_send({ jsonrpc = '2.0', id = id, method = method, params = object(params) }) then
    self.pending[id] = nil
    if callback then
      callback({ code = -32099, message = 'santra-server is not running' }, nil)
    end
    return nil
  end
  return id
end

function Client:notify(method, params)
  return self:_send({ jsonrpc = '2.0', method = method, params = object(params) })
end

--- Asks the server to cancel one of our requests (§6.1); it is still answered.
function Client:cancel(id)
  return self:notify('$/cancelRequest', { id = id })
end

--- The handshake (§3.1, §3.2): `callback(err, result)` once `initialized` has been sent.
function Client:initialize(root, callback)
  self:request('initialize', {
    protocolVersion = M.PROTOCOL_VERSION,
    clientInfo = { name = 'santra.nvim', version = M.CLIENT_VERSION },
    workspaceRoot = root,
    -- The plugin lends its buffers (santra.buffers); it has no terminal to lend yet.
    capabilities = {
      approve = true,
      ask = true,
      diffs = true,
      fs = { readTextFile = true, writeTextFile = true },
    },
  }, function(err, result)
    if err == nil then
      self:notify('initialized', {})
    end
    callback(err, result)
  end)
end

--- `shutdown` then `exit` (§3.3, §3.4); the process is killed if it has not gone after `ms`.
function Client:stop(ms)
  if self.closed then
    return
  end
  self:request('shutdown', nil, function()
    self:notify('exit', {})
    if not self.stdin:is_closing() then
      self.stdin:shutdown()
    end
  end)
  local timer = uv.new_timer()
  timer:start(ms or 3000, 0, function()
    timer:close()
    if self.handle and not self.handle:is_closing() then
      self.handle:kill('sigkill')
    end
  end)
end

--- Waits (running the event loop) until the process has exited, at most `ms`.
function Client:wait_exit(ms)
  return vim.wait(ms or 5000, function()
    return self.closed
  end, 10)
end

M.Client = Client
return M
