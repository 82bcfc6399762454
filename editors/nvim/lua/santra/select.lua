-- Picking from a long list (30 and more models). A picker plugin that replaces vim.ui.select
-- (telescope-ui-select, dressing.nvim) filters as you type, and is used as it is. Neovim's own
-- vim.ui.select is a numbered inputlist that scrolls past the screen: for more than `threshold`
-- items the user first types a filter (words that must all appear), and picks from what matches.
local M = {}

M.threshold = 15

-- What input() returns when the user presses <Esc>: no filter is this.
local CANCELLED = '\1'

--- Whether vim.ui.select is Neovim's own (runtime/lua/vim/ui.lua), not a plugin's.
local function stock_select()
  local info = debug.getinfo(vim.ui.select, 'S')
  return info ~= nil and info.source:find('vim/ui.lua', 1, true) ~= nil
end

--- The items whose text has every word of `filter` (case ignored).
local function matching(items, format, filter)
  local words = {}
  for word in filter:lower():gmatch('%S+') do
    table.insert(words, word)
  end
  local found = {}
  for _, item in ipairs(items) do
    local text = format(item):lower()
    local all = true
    for _, word in ipairs(words) do
      if not text:find(word, 1, true) then
        all = false
        break
      end
    end
    if all then
      table.insert(found, item)
    end
  end
  return found
end

--- vim.ui.select, with a filter first when the list is long and the select is Neovim's own.
function M.select(items, opts, on_choice)
  if #items <= M.threshold or not stock_select() then
    return vim.ui.select(items, opts, on_choice)
  end
  local format = opts.format_item or tostring
  local prompt = string.format('%s — filter %d items (words; Enter: all, Esc: cancel): ', opts.prompt or 'Select', #items)
  local ok, filter = pcall(vim.fn.input, { prompt = prompt, cancelreturn = CANCELLED })
  if not ok or filter == CANCELLED then
    return on_choice(nil)
  end
  local found = matching(items, format, filter)
  if #found == 0 then
    require('santra.notice').send(string.format('nothing matches "%s"', filter), vim.log.levels.WARN)
    return M.select(items, opts, on_choice)
  end
  vim.ui.select(found, opts, on_choice)
end

return M
