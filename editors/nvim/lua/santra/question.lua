-- `ask` requests (protocol §7.4): a question an agent puts to the user. Like an approval
-- (santra.waiting), a question never takes the keyboard: it shows in a split the cursor does not
-- move to, with a notice, so keys typed for a file keep going to it; it waits for a deliberate
-- answer. In its window: a number picks that option, <CR> the option under the cursor (elsewhere
-- it asks), `i` types an answer. From any window: `:SantraAnswer {text}` answers (an option by
-- its number, label or value, else the text itself), `:SantraAnswer` alone asks (vim.ui.select
-- over the options and "another answer", or vim.ui.input), `:SantraAnswer!` declines, and
-- `:SantraQuestions` shows the question again. `:q` in its window declines too: the agent is told
-- the question went unanswered (RequestFailed, SANTRA-ASK-004) and goes on on its own judgement.
--
-- A secret question (`secret`, e.g. an API key) is answered only with inputsecret(), which shows
-- no text and keeps no history: the answer is never put in a buffer, and a secret typed after
-- :SantraAnswer on the command line is refused and taken out of the command-line history.
local notice = require('santra.notice').send

local M = {}

local split = 'botright split'

-- RequestFailed (-32803): how a client declines a request (§7.4); the server's own cancels use
-- RequestCancelled.
local REQUEST_FAILED = -32803

local COMMANDS = 'From any window: :SantraAnswer [text]  :SantraAnswer! declines  :SantraQuestions'

function M.configure(opts)
  split = opts.question_split or split
end

--- The question's text, its header in front.
local function question_text(params)
  local text = params.prompt or ''
  return params.header ~= nil and (params.header .. ': ' .. text) or text
end

local function what(params)
  return 'question: ' .. (question_text(params):gsub('\n.*', ' …'))
end

local function options_of(item)
  return (not item.params.secret and item.params.options) or {}
end

--- The question as its window shows it: what is asked, the keys, the options, the commands.
local function lines_of(item)
  local params = item.params
  local question = vim.split(params.prompt or '', '\n', true)
  local title = params.secret and 'Santra asks for a secret' or 'Santra asks'
  if params.header ~= nil then
    title = title .. ' (' .. params.header .. ')'
  end
  local lines = { title .. ': ' .. question[1] }
  for i = 2, #question do
    table.insert(lines, '  ' .. question[i])
  end
  local options = options_of(item)
  if params.secret then
    table.insert(lines, '[<CR>/i] type it (not shown)   (:q declines)')
  elseif #options > 0 then
    table.insert(lines, string.format('[1-%d] choose   [<CR>] the option under the cursor   [i] another answer   (:q declines)', math.min(#options, 9)))
  else
    table.insert(lines, '[<CR>/i] type the answer   (:q declines)')
  end
  table.insert(lines, '')
  item.first_option = #lines + 1
  for i, option in ipairs(options) do
    table.insert(lines, string.format('  %d. %s', i, option.label))
  end
  if #options > 0 then
    table.insert(lines, '')
  end
  table.insert(lines, COMMANDS)
  return lines
end

local queue

local function answer(item, value)
  queue:respond(item, { answer = value })
end

local function decline(item, why)
  queue:respond(item, nil, { code = REQUEST_FAILED, message = why })
end

--- Asks for a typed answer: inputsecret() for a secret, else vim.ui.input. Nothing typed (or
--- <Esc>) leaves the question waiting.
local function type_answer(item)
  local prompt = question_text(item.params) .. ' '
  if item.params.secret then
    -- inputsecret() shows '*' for each character and puts nothing in any history.
    local ok, value = pcall(vim.fn.inputsecret, prompt)
    vim.cmd('redraw')
    if ok and value ~= '' and queue.pending[1] == item then
      answer(item, value)
    end
    return
  end
  vim.ui.input({ prompt = prompt }, function(input)
    -- The question may have been answered or cancelled by the time this returns.
    if input ~= nil and input ~= '' and queue.pending[1] == item then
      answer(item, input)
    end
  end)
end

--- Asks for the answer: an option (vim.ui.select, with "another answer" last), or typed.
local function choose(item)
  local options = options_of(item)
  if #options == 0 then
    return type_answer(item)
  end
  local other = { label = 'Another answer…' }
  local items = vim.list_extend(vim.list_extend({}, options), { other })
  require('santra.select').select(items, {
    prompt = question_text(item.params),
    format_item = function(option)
      return option.label
    end,
  }, function(choice)
    if choice == nil or queue.pending[1] ~= item then
      return
    elseif choice == other then
      type_answer(item)
    else
      answer(item, choice.value)
    end
  end)
end

--- The value of the option `text` names (its number, label or value, case ignored), or nil.
local function option_named(item, text)
  local options = options_of(item)
  local n = tonumber(text)
  if n ~= nil and options[n] ~= nil then
    return options[n].value
  end
  for _, option in ipairs(options) do
    if option.label:lower() == text:lower() or option.value:lower() == text:lower() then
      return option.value
    end
  end
  return nil
end

local function window_keys(item)
  local pending = function(fn)
    return function()
      if queue.pending[1] == item then
        fn()
      end
    end
  end
  local keys = {
    i = { pending(function() type_answer(item) end), 'type the answer' },
    ['<CR>'] = {
      pending(function()
        local options = options_of(item)
        local index = vim.api.nvim_win_get_cursor(0)[1] - (item.first_option or 0) + 1
        if options[index] ~= nil then
          answer(item, options[index].value)
        else
          choose(item)
        end
      end),
      'choose the option under the cursor, or answer',
    },
  }
  for n, option in ipairs(options_of(item)) do
    if n > 9 then
      break
    end
    keys[tostring(n)] = { pending(function() answer(item, option.value) end), 'answer ' .. option.label }
  end
  return keys
end

queue = require('santra.waiting').new({
  name = 'ask',
  split = function()
    return split
  end,
  what = what,
  lines = lines_of,
  filetype = function()
    return 'santra-question'
  end,
  keys = window_keys,
  asked = function(more)
    return more .. '  :SantraAnswer answers'
  end,
  waiting = ' (question waiting) :SantraQuestions shows it',
  hidden = 'question hidden, still waiting: :SantraQuestions shows it',
  quit = function(item)
    decline(item, 'The user closed the question without answering.')
    notice('declined (you closed the question with :q): ' .. what(item.params))
  end,
})

--- `:SantraAnswer [text]`: answers the question shown (the oldest) with `text`; without text,
--- asks for the answer. `declining` (`:SantraAnswer!`): declines it.
function M.answer(text, declining)
  local item = queue.pending[1]
  if item == nil then
    return notice('no question is waiting')
  end
  if declining then
    decline(item, 'The user declined to answer.')
    return notice('declined: ' .. what(item.params))
  end
  if text == nil or vim.trim(text) == '' then
    return choose(item)
  end
  if item.params.secret then
    -- Typed on the command line, it was shown and went into the history: take it out of there.
    local last = vim.fn.histget(':', -1)
    if last:find(text, 1, true) then
      vim.fn.histdel(':', -1)
    end
    return notice('not taken: a secret is typed where it is not shown, :SantraAnswer without text', vim.log.levels.WARN)
  end
  answer(item, option_named(item, vim.trim(text)) or text)
end

--- request (the server's `ask`), reopen (`:SantraQuestions`), cancel (§6.3), reset, current (the request
--- shown: { id, params, buf, win }, or nil) and count.
queue:export(M, 'no question is waiting')

return M
