-- A headless Neovim with the plugin on its runtimepath rewinds a session, against the built server
-- and a fake model provider, and writes what it saw as JSON to $SANTRA_NVIM_OUT: two prompts,
-- :SantraRewind picking the newer one with Neovim's own vim.ui.select, the prompt put back in the
-- chat buffer, and that buffer sent again.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local report = flow.report()

flow.run(report, function()
  local santra = flow.setup()
  vim.cmd('Santra first question alpha')
  flow.wait_run_end('the first run did not end')
  vim.cmd('Santra second question beta')
  flow.wait_run_end('the second run did not end')
  report.session = santra.status().session_id

  -- Neovim's own vim.ui.select is a numbered inputlist: the newest prompt is the first item.
  vim.fn.inputlist = function(list)
    report.choices = list
    return 1
  end
  local before = #report.notices
  vim.cmd('SantraRewind')
  flow.wait('the rewind was not answered', function()
    return #report.notices > before
  end)
  report.rewind_notice = report.notices[#report.notices]
  local chat = require('santra.chat').existing_buffer()
  report.chat = chat and vim.api.nvim_buf_get_lines(chat, 0, -1, false) or {}
  report.transcript_tail = flow.transcript()[#flow.transcript()]

  -- Edited and sent again from the chat buffer.
  vim.api.nvim_buf_set_lines(chat, 0, -1, false, { 'second question beta, edited' })
  require('santra.chat').submit()
  flow.wait_run_end('the edited prompt did not end')
  report.same_session = santra.status().session_id == report.session

  -- An event sent into the idle session is drawn as a card in its transcript.
  local answered = nil
  santra.status().client:request('session/event', { sessionId = report.session, text = 'CI failed: test_login', source = 'ci' }, function(err, result)
    answered = err and ('error: ' .. tostring(err.message)) or result.delivered
  end)
  flow.wait('session/event was not answered', function()
    return answered ~= nil
  end)
  report.event_delivered = answered
  flow.wait('no event card in the transcript', function()
    return table.concat(flow.transcript(), '\n'):find('event from ci', 1, true) ~= nil
  end)
  local transcript = flow.transcript()
  report.event_card = { transcript[#transcript - 1], transcript[#transcript] }
end)
