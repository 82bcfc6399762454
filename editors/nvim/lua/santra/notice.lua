-- Messages to the user, through vim.notify. Neovim's own vim.notify echoes them, and a message
-- longer than the command line makes Neovim wait for Enter: the next key the user types, meant
-- for a file, would answer that prompt instead. So with Neovim's own vim.notify a message is cut
-- to the room on the command line; a plugin that replaces vim.notify (nvim-notify, noice) gets it
-- whole.
local M = {}

--- Whether vim.notify is Neovim's own (runtime/lua/vim/_editor.lua).
local function stock_notify()
  local info = debug.getinfo(vim.notify, 'S')
  return info ~= nil and info.source:find('vim/_editor.lua', 1, true) ~= nil
end

--- Shows 'santra: ' .. `msg`. `keep`: a tail kept whole when the message must be cut (what to do).
function M.send(msg, level, keep)
  local text = 'santra: ' .. msg .. (keep or '')
  if stock_notify() then
    local room = math.max(vim.v.echospace - 1, 20)
    if vim.fn.strdisplaywidth(text) > room then
      local head = 'santra: ' .. msg
      local width = math.max(room - vim.fn.strdisplaywidth(keep or '') - 1, 10)
      text = vim.fn.strcharpart(head, 0, width) .. '…' .. (keep or '')
      if vim.fn.strdisplaywidth(text) > room then
        text = vim.fn.strcharpart(text, 0, room - 1) .. '…'
      end
    end
    text = text:gsub('\n', ' ')
  end
  vim.notify(text, level or vim.log.levels.INFO)
end

return M
