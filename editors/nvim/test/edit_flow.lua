-- Driven by scripts/test/nvim-approval-edit.test.ts: `nvim --headless -u NONE` with the plugin on
-- the runtimepath, the user's file $SANTRA_NVIM_FILE open (when set), approvals that edit
-- (§7.3.2) answered as a user would. $SANTRA_NVIM_CASE:
--   drop: the change has two hunks; in the approval's window ]c ]c goes to the second, <Space>
--     drops it, y allows the first only.
--   drop_stale: as drop, but the user changes the file's middle line before pressing y: the
--     hunks chosen are not sent; Santra makes its change again on the user's text and asks
--     again, and y allows that whole.
--   edit: e opens the proposal beside the file in diff mode; the user changes its last line and
--     :w allows that version.
--   command: e on a command approval opens the command; the user changes it and :w runs it.
--   trust: the project's .mcp.json server asks to be trusted; y trusts it, then its tool's call
--     (an `mcp_tool` approval) is allowed with y.
-- Writes what it saw as JSON to $SANTRA_NVIM_OUT, with the notices (vim.notify) given.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local case = assert(os.getenv('SANTRA_NVIM_CASE'))
local file = os.getenv('SANTRA_NVIM_FILE')
local report = { notices = {}, approvals = {} }

vim.notify = function(msg)
  table.insert(report.notices, msg)
end

--- Waits for an approval other than those seen, records its lines, kind and filetype.
local function next_approval(approval, seen)
  flow.wait('no approval appeared', function()
    local current = approval.current()
    return current ~= nil and not seen[current.id]
  end)
  local current = approval.current()
  seen[current.id] = true
  table.insert(report.approvals, {
    kind = current.params.kind,
    lines = vim.api.nvim_buf_get_lines(current.buf, 0, -1, false),
    filetype = vim.api.nvim_buf_get_option(current.buf, 'filetype'),
  })
  return current
end

local function drop_case(approval)
  local current = next_approval(approval, {})
  vim.api.nvim_set_current_win(current.win)
  vim.api.nvim_win_set_cursor(current.win, { 1, 0 })
  vim.api.nvim_feedkeys(']c]c ', 'x', false)
  report.cursor_line = vim.api.nvim_get_current_line()
  report.after_toggle = vim.api.nvim_buf_get_lines(current.buf, 0, -1, false)
  report.marks = {}
  local ns = vim.api.nvim_get_namespaces()['santra.approval']
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(current.buf, ns, 0, -1, { details = true })) do
    table.insert(report.marks, mark[4].virt_text[1][1])
  end
  vim.api.nvim_feedkeys('y', 'x', false)
end

local function drop_stale_case(approval, buf)
  local seen = {}
  local current = next_approval(approval, seen)
  vim.api.nvim_set_current_win(current.win)
  vim.api.nvim_win_set_cursor(current.win, { 1, 0 })
  vim.api.nvim_feedkeys(']c]c ', 'x', false)
  -- The user edits line 6 of the file meanwhile (unsaved), then answers.
  vim.api.nvim_buf_set_lines(buf, 5, 6, true, { 'the user was here' })
  flow.press_in_approval('y')
  next_approval(approval, seen)
  flow.press_in_approval('y')
end

local function edit_case(approval, buf)
  local current = next_approval(approval, {})
  flow.press_in_approval('e')
  local edit = vim.api.nvim_get_current_buf()
  report.edit_name = vim.api.nvim_buf_get_name(edit)
  report.proposal = vim.api.nvim_buf_get_lines(edit, 0, -1, true)
  report.diff_windows = #vim.tbl_filter(function(win)
    return vim.api.nvim_win_get_option(win, 'diff')
  end, vim.api.nvim_tabpage_list_wins(0))
  report.tabs_while_editing = #vim.api.nvim_list_tabpages()
  -- The user makes the last line their own, and saves.
  local count = vim.api.nvim_buf_line_count(edit)
  vim.api.nvim_buf_set_lines(edit, count - 1, count, true, { 'edited by the user' })
  vim.cmd('write')
  report.answered = approval.current() == nil or approval.current().id ~= current.id
  flow.wait('the edit tab did not close', function()
    return #vim.api.nvim_list_tabpages() == 1
  end)
  report.buffer_valid_after = vim.api.nvim_buf_is_valid(edit)
  report.file_buffer = buf and vim.api.nvim_buf_get_lines(buf, 0, -1, true)
end

local function command_case(approval)
  local seen = {}
  next_approval(approval, seen)
  flow.press_in_approval('e')
  local edit = vim.api.nvim_get_current_buf()
  report.edit_name = vim.api.nvim_buf_get_name(edit)
  report.command_lines = vim.api.nvim_buf_get_lines(edit, 0, -1, true)
  vim.api.nvim_buf_set_lines(edit, 0, -1, true, { 'printf "%s\\n" edited-by-user > edited.txt' })
  vim.cmd('write')
  -- The edited command is a new one: the server asks again, with the user's version.
  next_approval(approval, seen)
  flow.press_in_approval('y')
end

local function trust_case(approval)
  local seen = {}
  -- The server asks as soon as it starts, before any prompt: trusted first, the tool is there.
  require('santra.server').with_client(function() end)
  local trust = next_approval(approval, seen)
  report.trust_keys_refused = not approval.answer('allow_all')
  flow.press_in_approval('y')
  report.trust_answered = approval.current() == nil or approval.current().id ~= trust.id
  -- Trusted, the server starts it: the prompt goes once `mcp/list` shows it connected.
  local connected = false
  flow.wait('the trusted MCP server did not connect', function()
    require('santra.server').with_client(function(client)
      client:request('mcp/list', {}, function(_, result)
        for _, server in ipairs(result and result.servers or {}) do
          connected = connected or (server.name == 'proj' and server.state == 'connected')
        end
      end)
    end)
    vim.wait(50)
    return connected
  end)
  vim.cmd('Santra ' .. assert(os.getenv('SANTRA_NVIM_PROMPT')))
  next_approval(approval, seen)
  flow.press_in_approval('y')
end

flow.run(report, function()
  local santra = require('santra')
  local approval = require('santra.approval')
  santra.setup({ cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') }, agent = 'tester' })
  local buf
  if file ~= nil then
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
    buf = vim.api.nvim_get_current_buf()
  end
  if case ~= 'trust' then
    vim.cmd('Santra ' .. assert(os.getenv('SANTRA_NVIM_PROMPT')))
  end
  if case == 'drop' then
    drop_case(approval)
  elseif case == 'drop_stale' then
    drop_stale_case(approval, buf)
  elseif case == 'edit' then
    edit_case(approval, buf)
  elseif case == 'command' then
    command_case(approval)
  elseif case == 'trust' then
    trust_case(approval)
  else
    error('unknown case ' .. case)
  end
  flow.wait_run_end()
  report.result_status = santra.status().last_result.status
  report.transcript = flow.transcript()
  if buf ~= nil then
    report.buffer = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
    report.buffer_modified = vim.bo[buf].modified
  end
  local client = santra.status().client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
