-- The editor's context of a prompt (protocol §7.1.1, `prompt` params `context`): the file the
-- prompt was sent from with its cursor or, for `:'<,'>Santra`, the lines selected; the
-- diagnostics (vim.diagnostic) of those lines, or of the lines in view; and the other file
-- buffers loaded. The server reads the selected lines itself (from the buffer: santra.buffers
-- lends it), so only places are sent here, 1-based, columns in characters.
--
-- Only files inside the workspace are named: the server refuses the whole prompt for a path
-- outside it. Terminal, transcript, chat and other scratch buffers ('buftype' set) are never sent.
local M = {}

local api = vim.api

-- The protocol's bound (MAX_CONTEXT_DIAGNOSTICS), and how many other open files are named.
M.MAX_DIAGNOSTICS = 200
M.MAX_OTHER_FILES = 10

local SEVERITY = { 'error', 'warning', 'information', 'hint' } -- vim.diagnostic.severity 1..4

--- The path of buffer `buf`'s file relative to `root` (absolute, links resolved), or nil: not a
--- loaded file buffer, or a file outside the workspace. A file not yet written is named when its
--- directory is inside.
function M.path_of(buf, root)
  if not api.nvim_buf_is_valid(buf) or not api.nvim_buf_is_loaded(buf) then
    return nil
  end
  local name = api.nvim_buf_get_name(buf)
  -- 'buftype' set: a terminal, a transcript, the chat, a scratch buffer; a URL-like name
  -- (fugitive://, oil://) is not a file either; the server refuses control characters.
  if api.nvim_buf_get_option(buf, 'buftype') ~= '' or name == '' or name:find('%c') or name:match('^%a[%w+.-]*://') then
    return nil
  end
  local absolute = vim.fn.fnamemodify(name, ':p')
  local real = vim.loop.fs_realpath(absolute)
  if real == nil then
    local dir = vim.loop.fs_realpath(vim.fn.fnamemodify(absolute, ':h'))
    if dir == nil then
      return nil
    end
    real = dir .. '/' .. vim.fn.fnamemodify(absolute, ':t')
  end
  if root == nil or real:sub(1, #root + 1) ~= root .. '/' or vim.fn.isdirectory(real) == 1 then
    return nil
  end
  return real:sub(#root + 2)
end

--- The 1-based character column of byte `byte` (0-based) of line `row` (1-based), or nil.
local function column(buf, row, byte)
  local line = api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
  if line == nil or byte < 0 then
    return nil
  end
  local ok, chars = pcall(vim.str_utfindex, line, math.min(byte, #line))
  return ok and chars + 1 or nil
end

--- Lines `line1`–`line2` of `buf` as a range; with the columns of the last visual selection when
--- it was charwise and is these lines (`:'<,'>Santra` from `v`).
local function selection(buf, line1, line2)
  local range = { start = { line = line1 }, ['end'] = { line = line2 } }
  if vim.fn.visualmode() ~= 'v' then
    return range
  end
  local from, to = api.nvim_buf_get_mark(buf, '<'), api.nvim_buf_get_mark(buf, '>')
  if from[1] ~= line1 or to[1] ~= line2 then
    return range
  end
  local last = api.nvim_buf_get_lines(buf, line2 - 1, line2, false)[1] or ''
  -- '> is on the last character selected ('selection' exclusive: just after it); past the end of
  -- the line (`v$`) it is a huge number.
  local to_byte = math.min(to[2] - (vim.o.selection == 'exclusive' and 1 or 0), #last - 1)
  local start_col, end_col = column(buf, line1, from[2]), column(buf, line2, to_byte)
  if start_col ~= nil and end_col ~= nil and (line2 > line1 or end_col >= start_col) then
    range.start.column, range['end'].column = start_col, end_col
  end
  return range
end

--- A vim.diagnostic item as a ContextDiagnostic of `path`, or nil when it has no message.
local function diagnostic(buf, path, d)
  if type(d.message) ~= 'string' or vim.trim(d.message) == '' then
    return nil
  end
  local start = { line = d.lnum + 1, column = column(buf, d.lnum + 1, d.col or 0) }
  local end_lnum, end_col = d.end_lnum or d.lnum, d.end_col or d.col or 0
  local finish
  if end_lnum > d.lnum and end_col == 0 then
    -- Up to the start of a line: the line before, whole.
    finish = { line = end_lnum }
  else
    -- end_col is exclusive; the range's end is the last character included.
    finish = { line = end_lnum + 1, column = column(buf, end_lnum + 1, math.max(end_col - 1, 0)) }
    if finish.line == start.line and (finish.column == nil or start.column == nil or finish.column < start.column) then
      finish.column = start.column
    end
  end
  local lsp = type(d.user_data) == 'table' and d.user_data.lsp or {}
  local code = d.code ~= nil and d.code or lsp.code
  return {
    path = path,
    range = { start = start, ['end'] = finish },
    severity = SEVERITY[d.severity] or 'information',
    message = d.message,
    source = type(d.source) == 'string' and d.source ~= '' and d.source or nil,
    code = (type(code) == 'string' or type(code) == 'number') and code or nil,
  }
end

--- The diagnostics of `buf` that touch lines `first`–`last`, worst first, at most MAX_DIAGNOSTICS.
local function diagnostics_of(buf, path, first, last)
  if vim.diagnostic == nil then
    return {}
  end
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local d_last = (d.end_lnum or d.lnum) + 1
    if d.end_lnum ~= nil and d.end_lnum > d.lnum and (d.end_col or 0) == 0 then
      d_last = d.end_lnum
    end
    if d.lnum + 1 <= last and d_last >= first then
      table.insert(found, d)
    end
  end
  table.sort(found, function(a, b)
    if (a.severity or 9) ~= (b.severity or 9) then
      return (a.severity or 9) < (b.severity or 9)
    end
    if a.lnum ~= b.lnum then
      return a.lnum < b.lnum
    end
    return (a.col or 0) < (b.col or 0)
  end)
  local list = {}
  for _, d in ipairs(found) do
    if #list >= M.MAX_DIAGNOSTICS then
      break
    end
    local item = diagnostic(buf, path, d)
    if item ~= nil then
      table.insert(list, item)
    end
  end
  return list
end

--- The other file buffers loaded and listed, inside the workspace, most recently used first.
local function other_files(root, except)
  local infos = vim.fn.getbufinfo({ buflisted = 1 })
  table.sort(infos, function(a, b)
    return (a.lastused or 0) > (b.lastused or 0)
  end)
  local files = {}
  for _, info in ipairs(infos) do
    if #files >= M.MAX_OTHER_FILES then
      break
    end
    local path = info.bufnr ~= except and info.loaded == 1 and M.path_of(info.bufnr, root) or nil
    if path ~= nil then
      table.insert(files, { path = path })
    end
  end
  return files
end

--- The context of a prompt sent from window `win` (nil or false: no file focused), inside workspace
--- `root`; `range` = { line1, line2 } when a range was given. Nil when there is nothing to send.
function M.collect(win, root, range)
  local files, diagnostics = {}, {}
  local buf = win and api.nvim_win_is_valid(win) and api.nvim_win_get_buf(win) or nil
  local path = buf ~= nil and M.path_of(buf, root) or nil
  if path ~= nil then
    local file = { path = path, focused = true }
    local first, last
    if range ~= nil then
      -- The cursor is not sent: a command with a range has put it at the range's start.
      local count = api.nvim_buf_line_count(buf)
      first, last = math.max(1, math.min(range[1], range[2])), math.min(count, math.max(range[1], range[2]))
      file.selections = { selection(buf, first, last) }
    else
      local row, col = unpack(api.nvim_win_get_cursor(win))
      file.cursor = { line = row, column = column(buf, row, col) }
      local view = api.nvim_win_call(win, function()
        return { vim.fn.line('w0'), vim.fn.line('w$') }
      end)
      first, last = view[1], view[2]
    end
    table.insert(files, file)
    diagnostics = diagnostics_of(buf, path, first, last)
  end
  vim.list_extend(files, other_files(root, buf))
  if #files == 0 then
    return nil
  end
  return { files = files, diagnostics = #diagnostics > 0 and diagnostics or nil }
end

--- What a context carries, in a few words for the transcript ("with src/a.ts:12–14 selected,
--- 2 diagnostics"), or nil.
function M.describe(context)
  if type(context) ~= 'table' then
    return nil
  end
  local parts, others = {}, 0
  for _, file in ipairs(context.files or {}) do
    local selected = file.selections and file.selections[1]
    if selected ~= nil then
      local from, to = selected.start.line, selected['end'].line
      table.insert(parts, 1, string.format('%s:%s selected', file.path, from == to and tostring(from) or (from .. '–' .. to)))
    elseif file.focused and file.cursor ~= nil then
      table.insert(parts, 1, string.format('%s at line %d', file.path, file.cursor.line))
    elseif file.focused then
      table.insert(parts, 1, file.path)
    else
      others = others + 1
    end
  end
  local count = #(context.diagnostics or {})
  if count > 0 then
    table.insert(parts, string.format('%d diagnostic%s', count, count == 1 and '' or 's'))
  end
  if others > 0 then
    table.insert(parts, string.format('%d other open file%s', others, others == 1 and '' or 's'))
  end
  return #parts > 0 and ('with ' .. table.concat(parts, ', ')) or nil
end

return M
