-- santra.nvim: Santra in Neovim. Starts santra-server, speaks its protocol (protocol-spec/README.md)
-- and draws each session's runs in a transcript buffer; a prompt carries the editor's context
-- (santra.context); approvals and questions show in splits the cursor does not move to. This file
-- holds the commands and the Lua API; santra.server the connection, santra.sessions what each
-- session did.
local server = require('santra.server')
local sessions = require('santra.sessions')
local transcript = require('santra.transcript')
local approval = require('santra.approval')
local question = require('santra.question')
local buffers = require('santra.buffers')
local select = require('santra.select')
local context = require('santra.context')

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
  -- Send the editor's context with each prompt: the file, the cursor or the lines selected, their
  -- diagnostics, the other files loaded (santra.context). false: the prompt's text only.
  context = true,
  -- How the transcript, approval, question and chat windows open.
  transcript_split = 'botright vsplit',
  approval_split = 'botright split',
  question_split = 'botright split',
  chat_split = 'belowright 8split',
  -- How many lines of a command's output the transcript shows (the last ones).
  command_output_lines = 10,
  -- The permission mode new sessions start in (§7.8): 'default', 'acceptEdits', 'plan' or
  -- 'bypassPermissions'; nil: the server's configured one. :SantraMode changes the session's.
  permission_mode = nil,
}

--- The permission modes, in the order :SantraMode with no argument cycles them (as Shift+Tab).
local MODES = { 'default', 'acceptEdits', 'plan', 'bypassPermissions' }

M.config = vim.deepcopy(defaults)

local notify = server.notify

--- The workspace root, absolute, symbolic links resolved (as Santra names files).
function M.root()
  local r = M.config.root
  if type(r) == 'function' then
    r = r()
  end
  local dir = (vim.fn.fnamemodify(r or vim.fn.getcwd(), ':p'):gsub('/$', ''))
  return vim.loop.fs_realpath(dir) or dir
end

--- The absolute path of a path Santra gives relative to the workspace root.
local function resolve(path)
  if path:sub(1, 1) == '/' then
    return path
  end
  return M.root() .. '/' .. path
end

--- The params of a `prompt`, with the editor's context (§7.1.1) when there is one.
local function prompt_params(session, text, ctx)
  local mode = session.permission_mode or M.config.permission_mode
  return { text = text, sessionId = session.id, agent = M.config.agent, context = ctx, permissionMode = mode }
end

--- `:SantraMode [mode]`: the current session's permission mode (§7.8); no argument: the next one
--- in MODES. A prompt running takes it at once (session/setMode: its later tool calls are gated in
--- it); otherwise it goes with the next prompt. The server enforces it; the statusline shows it.
function M.mode(mode)
  local session = sessions.current(true)
  local current = session.permission_mode or M.config.permission_mode or 'default'
  if mode == nil or mode == '' then
    for i, m in ipairs(MODES) do
      if m == current then
        mode = MODES[i % #MODES + 1]
      end
    end
  end
  if not vim.tbl_contains(MODES, mode) then
    return notify(
      string.format('unknown permission mode "%s"; use one of %s', tostring(mode), table.concat(MODES, ', ')),
      vim.log.levels.ERROR
    )
  end
  session.permission_mode = mode
  require('santra.status').changed()
  local client = server.state().client
  local running = session.prompt_id ~= nil and session.prompt_id ~= 'starting' and session.id ~= nil
  if running and client ~= nil and server.has('session/setMode') then
    client:request('session/setMode', { sessionId = session.id, permissionMode = mode }, function(err)
      if err then
        notify('permission mode: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      end
    end)
    notify('permission mode: ' .. mode .. ' (now, for the running prompt too)')
  else
    notify('permission mode: ' .. mode .. ' (from the next prompt on)')
  end
  return mode
end

--- The editor's context of a prompt (santra.context): of window `opts.win`, else of the current
--- window (for the chat buffer, of the window the user came from); `opts.range` = { line1, line2 }
--- the lines selected. Nil when there is none or `context` is off.
local function context_of(opts)
  if not M.config.context then
    return nil
  end
  local win = opts.win
  if win == nil then
    win = vim.api.nvim_get_current_win()
    if vim.api.nvim_win_get_buf(win) == require('santra.chat').existing_buffer() then
      win = require('santra.chat').origin()
    end
  end
  return context.collect(win, server.state().root or M.root(), opts.range)
end

--- Gives `session` an id before its first prompt (`session/new`), so that its phases are told
--- from another new session's; `done()` then. A server without session/new names it in the
--- prompt's phases.
local function with_id(client, session, done)
  if session.id ~= nil or not server.has('session/new') then
    return done()
  end
  client:request('session/new', nil, function(err, result)
    if err == nil and result and result.session then
      sessions.set_id(session, result.session.sessionId)
    end
    done()
  end)
end

--- Sends `text` as a prompt in the current session (the first prompt starts one), with the
--- editor's context; the run is drawn in the session's transcript. `opts`: `range` = { line1,
--- line2 } (the lines selected), `win` (the window whose file the prompt is about; default: the
--- current one). Returns false when a prompt of the session is running.
function M.prompt(text, opts)
  local session = sessions.current(true)
  if session.prompt_id ~= nil then
    notify('a prompt is running in this session; :SantraCancel stops it, :SantraNew starts another session', vim.log.levels.WARN)
    return false
  end
  -- Taken now, before any window opens: what the user had in front of them as they sent it.
  local ctx = context_of(opts or {})
  require('santra.chat').remember(text)
  session.transcript:show(M.config.transcript_split)
  session.transcript:begin(text, context.describe(ctx))
  sessions.begin_run(session, text)
  session.prompt_id = 'starting'
  require('santra.status').changed()
  server.with_client(function(client)
    with_id(client, session, function()
      local id
      id = client:request('prompt', prompt_params(session, text, ctx), function(err, result)
        if session.prompt_id == id then
          sessions.ended(session)
        end
        if err then
          session.transcript:error(err.message)
          return
        end
        sessions.set_id(session, result.sessionId or session.id)
        session.last_result = result
        session.cost = result.sessionCostUsd or session.cost
        -- An approved plan goes on in the mode the user chose.
        session.permission_mode = result.permissionMode or session.permission_mode
        require('santra.status').changed()
        session.transcript:append({ transcript.cost_line(result.status, result.costUsd) })
      end)
      session.prompt_id = id
      if session.cancel_asked and id ~= nil then
        client:cancel(id)
      end
      session.cancel_asked = nil
    end)
  end, function(err)
    sessions.ended(session)
    session.transcript:error(err)
  end)
  return true
end

--- Cancels the current session's running prompt (§6.1); it still ends with its `complete` phase.
--- A run this plugin did not start (a turn an event started) is stopped by its session
--- (`session/cancel`, §10.14).
function M.cancel()
  local session = sessions.current(false)
  local client = server.state().client
  if session ~= nil and session.prompt_id == nil and session.id ~= nil and client ~= nil and server.has('session/cancel') then
    client:request('session/cancel', { sessionId = session.id }, function(err, result)
      if err then
        notify('cancel: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      elseif result and result.cancelled then
        notify('stopped the run ' .. tostring(result.runId))
      else
        notify('no prompt is running')
      end
    end)
    return
  end
  if session == nil or session.prompt_id == nil then
    return notify('no prompt is running')
  end
  if session.prompt_id == 'starting' or client == nil then
    -- Not sent yet: it is cancelled as soon as it is.
    session.cancel_asked = true
    return
  end
  client:cancel(session.prompt_id)
end

--- A transcript wiped (`:bwipeout`) while its session is idle: the person is done with it, so the
--- server ends it now (`session/close`, §10.15: its SessionEnd hooks run), as the terminal UI's
--- /clear does. It stays saved; :SantraResume takes it up again.
local function close_wiped(session)
  local client = server.state().client
  if session.id == nil or session.prompt_id ~= nil or client == nil or not server.has('session/close') then
    return
  end
  client:request('session/close', { sessionId = session.id, reason = 'other' }, function(err, result)
    if err then
      return notify('session/close: ' .. (err.message or tostring(err)), vim.log.levels.WARN)
    end
    session.closed = result and result.closed
  end)
end

--- `:SantraNew`: a new session, in a transcript of its own; the others stay readable (:ls).
function M.new_session()
  local session = sessions.new()
  session.transcript:show(M.config.transcript_split)
  notify('new session: the next prompt starts it')
  return session
end

--- Lists saved sessions and resumes the chosen one, drawing it again.
function M.resume()
  server.with_client(function(client)
    client:request('session/list', { limit = 50 }, function(err, result)
      if err then
        return notify(tostring(err.message), vim.log.levels.ERROR)
      end
      local list = result.sessions or {}
      if #list == 0 then
        return notify('no saved sessions in this workspace')
      end
      select.select(list, {
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

--- runId → { prompt, context, status, cost } of session `id`'s runs, from its records
--- (`session/export` json: phases carry no prompt); empty when the server cannot export.
local function saved_runs(client, id, done)
  if not server.has('session/export') then
    return done({})
  end
  client:request('session/export', { sessionId = id, format = 'json' }, function(err, result)
    local runs = {}
    local records = result and result.records
    if err == nil and records == nil and result and type(result.content) == 'string' then
      local ok, parsed = pcall(vim.json.decode, result.content)
      records = ok and parsed or nil
    end
    for _, record in ipairs(type(records) == 'table' and records or {}) do
      if record.type == 'prompt' or record.type == 'run_end' then
        local run = runs[record.runId] or {}
        runs[record.runId] = run
        if record.type == 'prompt' then
          run.prompt, run.context = record.text, record.context
        else
          run.status, run.cost = record.status, record.costUsd
        end
      end
    end
    done(runs)
  end)
end

--- Resumes session `id`: its saved phases are sent again (afterSeq 0) and drawn, each run under
--- its prompt and ending with its cost, in the session's transcript.
function M.resume_session(id, callback)
  local session = sessions.find(id)
  if session == nil then
    local empty = sessions.current(false)
    session = (empty and empty.id == nil and #empty.runs == 0 and empty.prompt_id == nil) and empty or sessions.new()
  end
  if session.prompt_id ~= nil then
    return notify('a prompt is running in that session', vim.log.levels.WARN)
  end
  sessions.select(session)
  sessions.set_id(session, id)
  session.transcript:show(M.config.transcript_split)
  session.transcript:clear()
  session.runs, session.calls, session.last_call = {}, {}, nil
  server.with_client(function(client)
    saved_runs(client, id, function(runs)
      session.replay = { runs = runs }
      client:request('session/resume', { sessionId = id, afterSeq = 0 }, function(err, result)
        session.replay = nil
        if err then
          notify(tostring(err.message), vim.log.levels.ERROR)
        else
          session.cost = result.session and result.session.costUsd or session.cost
          require('santra.status').changed()
          local title = result.session and result.session.title or id
          session.transcript:prepend({ '# ' .. title, '' })
        end
        if callback then
          callback(err, result)
        end
      end)
    end)
  end)
end

--- Sets the model (of the session, or the connection's default); without `model`, picks one.
function M.model(model)
  local session = sessions.current(false)
  local session_id = session and session.id
  server.with_client(function(client)
    local set = function(ref)
      client:request('model/set', { model = ref, sessionId = session_id }, function(err, result)
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
    client:request('model/list', { sessionId = session_id }, function(err, result)
      if err then
        return notify(tostring(err.message), vim.log.levels.ERROR)
      end
      select.select(result.models or {}, {
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

local UNDONE = { create = 'deleted', modify = 'restored', delete = 'restored', move = 'moved back' }

--- `:SantraUndo [run]`: undoes the current session's last file change, or its last run's
--- (`session/undo`), and reloads the buffers of the files it restored. Refused while a buffer of a
--- file the session changed has unsaved changes: the undo would be written under them.
function M.undo(scope)
  local session = sessions.current(false)
  if session == nil or session.id == nil then
    return notify('no session to undo in')
  end
  if session.prompt_id ~= nil then
    return notify('a prompt is running in this session; undo when it has ended', vim.log.levels.WARN)
  end
  local unsaved = {}
  for path in pairs(session.changed) do
    local buf = buffers.find(path)
    if buf ~= nil and vim.api.nvim_buf_get_option(buf, 'modified') then
      table.insert(unsaved, vim.fn.fnamemodify(path, ':.'))
    end
  end
  if #unsaved > 0 then
    table.sort(unsaved)
    return notify('nothing undone: ' .. table.concat(unsaved, ', ') .. ' has unsaved changes; :write or :edit! it first', vim.log.levels.ERROR)
  end
  server.with_client(function(client)
    client:request('session/undo', { sessionId = session.id, scope = scope == 'run' and 'run' or 'change' }, function(err, result)
      if err then
        return notify(tostring(err.message), vim.log.levels.ERROR)
      end
      local changes = result.changes or {}
      local lines = { '', #changes == 0 and 'Nothing left to undo.' or 'Undone:' }
      local problems = {}
      for _, change in ipairs(changes) do
        local where = change.path .. (change.destination and (' → ' .. change.destination) or '')
        if change.outcome == 'restored' then
          table.insert(lines, string.format('  %-10s  %s', UNDONE[change.operation] or 'restored', where))
          for _, path in ipairs({ change.path, change.destination }) do
            local problem = buffers.reload(resolve(path))
            if problem ~= nil then
              table.insert(problems, problem)
            end
          end
        else
          table.insert(lines, string.format('  left as is  %s%s', where, change.reason and (': ' .. change.reason) or ''))
        end
      end
      session.transcript:append(lines)
      notify(#changes == 0 and 'nothing left to undo' or string.format('undone: %d change%s (see the transcript)', #changes, #changes == 1 and '' or 's'))
      for _, problem in ipairs(problems) do
        notify(problem, vim.log.levels.WARN)
      end
    end)
  end)
end

--- `require('santra').statusline()`: a short line for 'statusline' (santra.status).
M.statusline = function()
  return require('santra.status').line()
end

--- Ends the server politely (shutdown, exit).
function M.stop()
  server.stop()
end

--- What the plugin knows of the current session, for tests and :checkhealth.
function M.status()
  local session = sessions.current(false)
  local s = server.state()
  return {
    running = session ~= nil and session.prompt_id ~= nil,
    ready = s.ready,
    client = s.client,
    session_id = session and session.id,
    server_info = s.server_info,
    last_result = session and session.last_result,
    transcript = session and session.transcript:buffer(),
  }
end

M.approvals = approval.reopen
M.allow = function()
  approval.answer('allow')
end
M.allow_all = function()
  approval.answer('allow_all')
end
M.reject = function()
  approval.answer('reject')
end
M.reject_with_feedback = approval.feedback
M.edit = approval.edit
M.questions = question.reopen
--- Answers the waiting question with `text` (an option's number, label or value, or free text);
--- without `text`, asks for the answer.
M.answer = function(text)
  question.answer(text, false)
end
M.decline = function()
  question.answer(nil, true)
end

function M.follow()
  require('santra.follow').follow()
end

function M.quickfix()
  require('santra.follow').quickfix()
end

function M.chat()
  local session = sessions.current(true)
  require('santra.chat').open(session.transcript:show(M.config.transcript_split), M.config.chat_split, M.root())
end

-- name, function, nargs, what it does: the commands, and the <Plug>(Name) mappings of those that
-- take no argument.
--- `:SantraRewind [files] [fork]`: picks one of the current session's prompts (`session/prompts`,
--- newest first) and goes back to just before it (`session/rewind`): the model no longer sees that
--- prompt or what came after, and its text is put in the chat buffer to edit and send again.
--- `files` also puts back the files changed since (asking where one changed since); `fork` makes a
--- new session of it and keeps this one.
function M.rewind(args)
  local words = vim.split(args or '', '%s+', { trimempty = true })
  local opts = {}
  for _, word in ipairs(words) do
    if word == 'files' then
      opts.restoreFiles = true
    elseif word == 'fork' then
      opts.fork = true
    else
      return notify(':SantraRewind takes "files" and "fork", not ' .. word, vim.log.levels.ERROR)
    end
  end
  local session = sessions.current(false)
  if session == nil or session.id == nil then
    return notify('nothing to rewind: this session has no prompt yet')
  end
  if session.prompt_id ~= nil then
    return notify('a prompt is running in this session; rewind when it has ended', vim.log.levels.WARN)
  end
  server.with_client(function(client)
    client:request('session/prompts', { sessionId = session.id }, function(err, result)
      if err then
        return notify(tostring(err.message), vim.log.levels.ERROR)
      end
      local prompts = {}
      for i = #(result.prompts or {}), 1, -1 do
        table.insert(prompts, result.prompts[i])
      end
      if #prompts == 0 then
        return notify('nothing to rewind: the conversation has no prompt now')
      end
      select.select(prompts, {
        prompt = 'Go back to just before which prompt?',
        format_item = function(p)
          return string.format('%s  %s', (p.at or ''):sub(1, 16), (vim.split(p.text or '', '\n')[1] or ''))
        end,
      }, function(choice)
        if choice == nil then
          return
        end
        local params = vim.tbl_extend('force', { sessionId = session.id, runId = choice.runId }, opts)
        client:request('session/rewind', params, function(rerr, rewound)
          if rerr then
            return notify(tostring(rerr.message), vim.log.levels.ERROR)
          end
          local lines = { '', rewound.forkedFrom and ('Forked a new session from just before: ' .. choice.text)
            or ('Rewound to just before: ' .. choice.text) }
          for _, change in ipairs(rewound.changes or {}) do
            if change.outcome == 'restored' then
              table.insert(lines, '  put back  ' .. change.path)
              buffers.reload(resolve(change.path))
            else
              table.insert(lines, '  kept      ' .. change.path .. (change.reason and (': ' .. change.reason) or ''))
            end
          end
          session.transcript:append(vim.split(table.concat(lines, '\n'), '\n'))
          if rewound.forkedFrom then
            sessions.set_id(session, rewound.session.sessionId)
          end
          M.chat()
          require('santra.chat').set_draft(rewound.text)
          notify('rewound: the prompt is in the chat buffer to edit and send')
        end)
      end)
    end)
  end)
end

local COMMANDS = {
  { 'SantraCancel', M.cancel, 0, 'Cancel the running Santra prompt' },
  { 'SantraNew', M.new_session, 0, 'Start a new Santra session in a transcript of its own' },
  { 'SantraResume', M.resume, 0, 'Resume a saved Santra session' },
  { 'SantraApprovals', M.approvals, 0, 'Show the waiting Santra approval again' },
  { 'SantraQuestions', M.questions, 0, 'Show the waiting Santra question again' },
  { 'SantraAllow', M.allow, 0, 'Allow the waiting Santra action' },
  { 'SantraAllowAll', M.allow_all, 0, 'Allow it and every later action of the session' },
  { 'SantraReject', M.reject, 0, 'Reject the waiting Santra action' },
  { 'SantraEdit', M.edit, 0, 'Edit the waiting Santra change or command; :w allows your version' },
  { 'SantraFollow', M.follow, 0, 'Go to the file and line of the tool call under the cursor, or the last one' },
  { 'SantraQuickfix', M.quickfix, 0, 'The files the last Santra run changed, in the quickfix list' },
  { 'SantraChat', M.chat, 0, 'Open the Santra chat buffer' },
}

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- a list replaces, never merges
  end
  transcript.command_output_lines = M.config.command_output_lines
  server.configure({ cmd = M.config.cmd, env = M.config.env, root = M.root })
  sessions.configure(resolve, close_wiped)
  approval.configure({ approval_split = M.config.approval_split, resolve = resolve })
  question.configure({ question_split = M.config.question_split })
  local command = vim.api.nvim_create_user_command
  command('Santra', function(c)
    M.prompt(c.args, { range = c.range > 0 and { c.line1, c.line2 } or nil })
  end, { nargs = '+', range = true, desc = 'Send a prompt to Santra, with the file, the cursor or the lines selected' })
  command('SantraModel', function(c)
    M.model(c.args)
  end, { nargs = '?', desc = 'Show or switch the Santra model' })
  command('SantraMode', function(c)
    M.mode(c.args)
  end, {
    nargs = '?',
    complete = function()
      return MODES
    end,
    desc = "Set the Santra session's permission mode (default, acceptEdits, plan, bypassPermissions); no argument: the next one",
  })
  command('SantraUndo', function(c)
    M.undo(c.args)
  end, { nargs = '?', complete = function() return { 'run' } end, desc = "Undo the Santra session's last change (or run)" })
  command('SantraRewind', function(c)
    M.rewind(c.args)
  end, {
    nargs = '*',
    complete = function()
      return { 'files', 'fork' }
    end,
    desc = 'Go back to just before an earlier prompt of the Santra session (files: put the files back; fork: as a new session)',
  })
  command('SantraRejectWithFeedback', function(c)
    M.reject_with_feedback(c.args)
  end, { nargs = '*', desc = 'Reject the waiting Santra action, telling the agent why (the text, or asked for)' })
  command('SantraAnswer', function(c)
    question.answer(c.args, c.bang)
  end, { nargs = '*', bang = true, desc = "Answer Santra's question (the text, or asked for); with ! decline it" })
  for _, def in ipairs(COMMANDS) do
    command(def[1], function()
      def[2]()
    end, { nargs = def[3], desc = def[4] })
  end
  local feedback = { 'SantraRejectWithFeedback', M.reject_with_feedback, 0, 'Reject the waiting Santra action, telling the agent why' }
  local answer = { 'SantraAnswer', M.answer, 0, "Answer Santra's question (asked for)" }
  for _, def in ipairs(vim.list_extend({ feedback, answer }, COMMANDS)) do
    vim.keymap.set('n', '<Plug>(' .. def[1] .. ')', function()
      def[2]()
    end, { desc = def[4] })
  end
  local group = vim.api.nvim_create_augroup('santra', { clear = true })
  -- Neovim quits when this returns: wait (briefly) for the server's answer to `shutdown`, so that
  -- `exit` is sent too and the server ends cleanly instead of seeing its input close.
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = group,
    callback = function()
      server.stop(2000)
    end,
  })
end

return M
