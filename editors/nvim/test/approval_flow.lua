-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath runs one prompt against the built server (and a fake model provider), answers its
-- approval by pressing a key in the approval split, and writes what it saw as JSON to
-- $SANTRA_NVIM_OUT. $SANTRA_NVIM_DECISION: `allow`, `allow_all`, `feedback` (a question answered
-- with :SantraAnswer first, then the approval rejected with the text below), or `cancel` (no
-- approval: :SantraCancel once answer text streams);
-- $SANTRA_NVIM_AGENT: the custom agent to run (none: the server routes the prompt);
-- $SANTRA_NVIM_MODEL: a model to choose with :SantraModel first.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local decision = os.getenv('SANTRA_NVIM_DECISION') or 'allow'
local agent = os.getenv('SANTRA_NVIM_AGENT')
local model = os.getenv('SANTRA_NVIM_MODEL')
local report = {}

local wait = flow.wait

-- vim.ui.select answered by `pick(items, formatted)`, which returns the chosen item.
local select_prompt = nil
local function select_with(pick)
  vim.ui.select = function(items, opts, on_choice)
    select_prompt = opts.prompt
    local formatted = vim.tbl_map(opts.format_item or tostring, items)
    on_choice(pick(items, formatted))
  end
end

flow.run(report, function()
  local santra = require('santra')
  local approval = require('santra.approval')
  santra.setup({
    cmd = { os.getenv('SANTRA_NVIM_NODE'), os.getenv('SANTRA_NVIM_SERVER') },
    agent = agent ~= '' and agent or nil,
  })

  if model ~= nil and model ~= '' then
    local notified = nil
    vim.notify = function(msg)
      notified = msg
    end
    select_with(function(items, formatted)
      report.models = formatted
      for _, item in ipairs(items) do
        if item.ref == model then
          return item
        end
      end
    end)
    vim.cmd('SantraModel')
    wait('model/set was not answered', function()
      return notified ~= nil
    end)
    report.model_notice = notified
  end

  vim.cmd('Santra ' .. (os.getenv('SANTRA_NVIM_PROMPT') or 'write the greeting'))

  if decision == 'feedback' then
    -- The run asks a question first (ask_user with options): it waits until :SantraAnswer, which
    -- offers the options with vim.ui.select.
    local question = require('santra.question')
    wait('no question appeared', function()
      return question.current() ~= nil
    end)
    select_with(function(items, formatted)
      report.question = { prompt = select_prompt, options = formatted }
      return items[2]
    end)
    vim.cmd('SantraAnswer')
  end

  if decision == 'cancel' then
    local streamed = function()
      return table.concat(flow.transcript(), '\n'):find('working', 1, true) ~= nil
    end
    -- A run that ended (an error) before its text came is said at once, not waited out.
    wait('no answer text streamed', function()
      return streamed() or not santra.status().running
    end)
    assert(streamed(), 'the run ended before any answer text streamed')
    vim.cmd('SantraCancel')
  else
    wait('no approval split appeared', function()
      return approval.current() ~= nil
    end)
    local current = approval.current()
    report.approval_lines = vim.api.nvim_buf_get_lines(current.buf, 0, -1, false)
    -- It shows in a window the cursor did not move to.
    report.approval_shown_not_entered = current.win ~= nil
      and vim.api.nvim_win_get_buf(current.win) == current.buf
      and vim.api.nvim_get_current_win() ~= current.win
    report.approval_filetype = vim.api.nvim_buf_get_option(current.buf, 'filetype')
    local key = decision == 'allow_all' and 'a' or 'y'
    if decision == 'feedback' then
      key = 'f'
      vim.ui.input = function(opts, on_confirm)
        report.input_prompt = opts.prompt
        on_confirm('use a.md instead')
      end
    end
    flow.press_in_approval(key)
    report.approval_closed = approval.current() == nil and not vim.api.nvim_buf_is_valid(current.buf)
  end

  -- After "allow all" no other approval may appear (the server allows the rest itself).
  wait('the run did not end', function()
    return not santra.status().running or approval.current() ~= nil
  end)
  if approval.current() ~= nil then
    report.another_approval = vim.api.nvim_buf_get_lines(approval.current().buf, 0, 1, false)[1]
    error('another approval appeared: ' .. report.another_approval)
  end
  local status = santra.status()
  report.result_status = assert(status.last_result, 'the prompt failed: see the transcript').status
  report.session_id = status.session_id
  report.transcript = flow.transcript()

  -- :SantraResume lists the saved sessions; choosing this one draws it again (afterSeq 0).
  select_with(function(items, formatted)
    report.sessions = formatted
    for _, item in ipairs(items) do
      if item.sessionId == status.session_id then
        return item
      end
    end
  end)
  vim.cmd('SantraResume')
  wait('the session was not resumed', function()
    return (flow.transcript()[1] or ''):sub(1, 2) == '# '
  end)
  report.resumed_transcript = flow.transcript()

  local client = status.client
  santra.stop()
  report.server_exited = client:wait_exit(10000)
end)
