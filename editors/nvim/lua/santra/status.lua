-- The statusline component, `require('santra').statusline()`: the agent working in the current
-- session, the approvals and questions waiting, the session's cost — '' before Santra is used.
-- Status lines are drawn again when one of these changes (once per turn of the event loop), not
-- only when Neovim happens to redraw them.
local M = {}

local scheduled = false

--- What the statusline shows changed: redraw the status lines soon.
function M.changed()
  if scheduled then
    return
  end
  scheduled = true
  vim.schedule(function()
    scheduled = false
    vim.cmd('redrawstatus!')
  end)
end

function M.line()
  local session = require('santra.sessions').current(false)
  local parts = {}
  if session ~= nil and session.prompt_id ~= nil then
    table.insert(parts, (session.agent or 'starting') .. ' running')
  end
  local waiting = require('santra.approval').count()
  if waiting > 0 then
    table.insert(parts, string.format('%d approval%s', waiting, waiting == 1 and '' or 's'))
  end
  local asked = require('santra.question').count()
  if asked > 0 then
    table.insert(parts, string.format('%d question%s', asked, asked == 1 and '' or 's'))
  end
  if session ~= nil and session.permission_mode ~= nil and session.permission_mode ~= 'default' then
    table.insert(parts, session.permission_mode)
  end
  if session ~= nil and session.cost ~= nil then
    table.insert(parts, string.format('$%.4f', session.cost))
  end
  if session == nil and #parts == 0 then
    return ''
  end
  return 'santra' .. (#parts > 0 and (': ' .. table.concat(parts, ' · ')) or '')
end

return M
