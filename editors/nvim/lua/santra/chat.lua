-- The chat buffer (`:SantraChat`): a prompt of several lines, written in a buffer that stays open
-- under the transcript. <C-s> (insert or normal mode) or <CR> (normal mode) sends it to the
-- current session and empties the buffer; <C-p> and <C-n> (normal mode) go through the prompts
-- sent before. `@` and the start of a path, then <C-x><C-o>, completes a workspace file. A prompt
-- sent from here carries the editor's context of the window the user came from (the file they
-- were in), as it is when the prompt is sent.
local M = {}

local NAME = 'santra://chat'
-- Most files listed for completion, and most read from the workspace to find them.
local MAX_ITEMS = 100
local MAX_FILES = 20000
local SKIP = { ['.git'] = true, node_modules = true }

local state = {
  buf = nil,
  root = nil,
  history = {}, -- prompts sent, oldest first
  index = nil, -- the entry shown while going through the history
  draft = nil, -- what the buffer held before that
  origin = nil, -- the window showing a file the user came to the chat from
}

--- Whether window `win` shows a file (not a transcript, a terminal or another scratch buffer).
local function shows_file(win)
  return win ~= nil and win ~= 0 and vim.api.nvim_win_is_valid(win) and vim.api.nvim_buf_get_option(vim.api.nvim_win_get_buf(win), 'buftype') == ''
end

--- The window with the file the user came to the chat from, or nil (none, or it is gone).
function M.origin()
  return shows_file(state.origin) and state.origin or nil
end

--- The chat buffer, if there is one.
function M.existing_buffer()
  return state.buf ~= nil and vim.api.nvim_buf_is_valid(state.buf) and state.buf or nil
end

--- Keeps a sent prompt for <C-p>.
function M.remember(text)
  if text ~= '' and state.history[#state.history] ~= text then
    table.insert(state.history, text)
  end
  state.index, state.draft = nil, nil
end

local function set_text(text)
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, vim.split(text, '\n', true))
  local last = vim.api.nvim_buf_line_count(state.buf)
  for _, win in ipairs(vim.fn.win_findbuf(state.buf)) do
    vim.api.nvim_win_set_cursor(win, { last, #vim.api.nvim_buf_get_lines(state.buf, last - 1, last, false)[1] })
  end
end

local function text()
  return table.concat(vim.api.nvim_buf_get_lines(state.buf, 0, -1, false), '\n')
end

--- Puts `text` in the chat buffer, to edit and send again (a rewound prompt, :SantraRewind).
function M.set_draft(value)
  M.buffer()
  set_text(value)
end

--- Sends the buffer's text as a prompt; it is emptied once sent.
function M.submit()
  local prompt = vim.trim(text())
  if prompt == '' then
    return
  end
  if require('santra').prompt(prompt, { win = M.origin() or false }) then
    set_text('')
  end
end

--- Shows the prompt `step` entries back (-1) or forward (+1) in the history.
function M.history(step)
  local count = #state.history
  if count == 0 then
    return
  end
  if state.index == nil then
    if step > 0 then
      return
    end
    state.draft = text()
    state.index = count + 1
  end
  local index = math.max(1, state.index + step)
  if index > count then
    state.index = nil
    set_text(state.draft or '')
    return
  end
  state.index = index
  set_text(state.history[index])
end

--- The workspace's files, relative to its root: what git tracks or would (not ignored), else a
--- walk of the directories (without .git and node_modules); at most MAX_FILES.
local function workspace_files(root)
  local listed = vim.fn.systemlist({ 'git', '-C', root, 'ls-files', '--cached', '--others', '--exclude-standard' })
  if vim.v.shell_error == 0 then
    return vim.list_slice(listed, 1, MAX_FILES)
  end
  local files, dirs = {}, { '' }
  while #dirs > 0 and #files < MAX_FILES do
    local dir = table.remove(dirs, 1)
    local handle = vim.loop.fs_scandir(root .. '/' .. dir)
    while handle do
      local name, kind = vim.loop.fs_scandir_next(handle)
      if name == nil then
        break
      end
      local path = dir == '' and name or (dir .. '/' .. name)
      if kind == 'directory' and not SKIP[name] then
        table.insert(dirs, path)
      elseif kind == 'file' then
        table.insert(files, path)
      end
    end
  end
  return files
end

--- 'omnifunc' of the chat buffer: after `@`, the workspace files whose path starts with what was
--- typed, then those that contain it (case ignored), at most MAX_ITEMS.
function M.complete(findstart, base)
  if findstart == 1 then
    local col = vim.api.nvim_win_get_cursor(0)[2]
    local before = vim.api.nvim_get_current_line():sub(1, col)
    local at = before:find('@[^%s@]*$')
    -- -3: no completion here, and no message.
    return at == nil and -3 or at
  end
  local typed = base:lower()
  local first, then_ = {}, {}
  for _, path in ipairs(workspace_files(state.root or vim.fn.getcwd())) do
    local lower = path:lower()
    if lower:sub(1, #typed) == typed then
      table.insert(first, path)
    elseif lower:find(typed, 1, true) then
      table.insert(then_, path)
    end
  end
  local items = {}
  for _, path in ipairs(vim.list_extend(first, then_)) do
    if #items >= MAX_ITEMS then
      break
    end
    table.insert(items, { word = path, menu = '[file]' })
  end
  return items
end

function M.buffer()
  if state.buf ~= nil and vim.api.nvim_buf_is_valid(state.buf) then
    return state.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, NAME)
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  vim.api.nvim_buf_set_option(buf, 'filetype', 'markdown')
  vim.api.nvim_buf_set_option(buf, 'omnifunc', "v:lua.require'santra.chat'.complete")
  local maps = {
    { { 'n', 'i' }, '<C-s>', M.submit, 'send the prompt' },
    { 'n', '<CR>', M.submit, 'send the prompt' },
    { 'n', '<C-p>', function() M.history(-1) end, 'the prompt sent before' },
    { 'n', '<C-n>', function() M.history(1) end, 'the prompt sent after' },
  }
  for _, map in ipairs(maps) do
    vim.keymap.set(map[1], map[2], map[3], { buffer = buf, desc = 'santra: ' .. map[4] })
  end
  -- Coming to the chat from a file's window (<C-w>j, :SantraChat): that file is what a prompt is about.
  vim.api.nvim_create_autocmd('WinEnter', {
    buffer = buf,
    callback = function()
      local previous = vim.fn.win_getid(vim.fn.winnr('#'))
      if shows_file(previous) then
        state.origin = previous
      end
    end,
  })
  state.buf = buf
  return buf
end

--- Opens the chat under the transcript window `transcript_win` (with `split`), or goes to it,
--- in insert mode. `root`: the workspace, whose files `@` completes.
function M.open(transcript_win, split, root)
  state.root = root
  local from = vim.api.nvim_get_current_win()
  if shows_file(from) then
    state.origin = from
  end
  local buf = M.buffer()
  local win = vim.fn.win_findbuf(buf)[1]
  if win == nil then
    vim.api.nvim_set_current_win(transcript_win)
    vim.cmd(split)
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
  end
  vim.api.nvim_set_current_win(win)
  vim.cmd('startinsert!')
  return win
end

return M
