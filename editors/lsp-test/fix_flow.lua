-- The LSP exchange an editor makes with `santra-server lsp`, run in Neovim's built-in client
-- (0.7: vim.lsp.start_client): open greet.js, ask for code actions on line 2 and pick
-- "Santra: fix" through vim.lsp.buf.range_code_action (vim.ui.select answered here), answer the
-- approval's window/showMessageRequest with "allow", wait until the buffer holds the change
-- (workspace/applyEdit) and the answer was shown, then stop the client. What it saw goes to
-- $SANTRA_LSP_OUT as JSON for scripts/test/lsp-nvim.test.ts.
local out = os.getenv('SANTRA_LSP_OUT')
local report = { messages = {}, requests = {}, actions = {} }

local function finish(err)
  report.error = err
  local file = io.open(out, 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  vim.cmd('edit greet.js')
  local bufnr = vim.api.nvim_get_current_buf()
  local exit_code
  local client_id = vim.lsp.start_client({
    name = 'santra',
    cmd = { os.getenv('SANTRA_LSP_NODE'), os.getenv('SANTRA_LSP_SERVER'), 'lsp' },
    root_dir = vim.fn.getcwd(),
    init_options = { agent = 'tester' },
    handlers = {
      ['window/showMessageRequest'] = function(_, params)
        table.insert(report.requests, params)
        return { title = 'allow' }
      end,
      ['window/showMessage'] = function(_, params)
        table.insert(report.messages, params.message)
      end,
    },
    on_exit = function(code)
      exit_code = code
    end,
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  assert(vim.wait(10000, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end), 'the client did not initialize')

  vim.ui.select = function(items, opts, on_choice)
    local chosen
    for i, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(report.actions, title)
      if title == 'Santra: fix' then
        chosen = i
      end
    end
    on_choice(items[chosen], chosen)
  end
  vim.lsp.buf.range_code_action(nil, { 2, 0 }, { 2, 10 })

  local fixed = vim.wait(20000, function()
    return #report.messages > 0 and vim.api.nvim_buf_get_lines(bufnr, 1, 2, false)[1] ~= '  return "Hello " + name;'
  end, 20)
  report.lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  report.modified = vim.bo[bufnr].modified
  assert(fixed, 'the buffer did not change: ' .. vim.inspect(report))
  vim.lsp.get_client_by_id(client_id).stop()
  vim.wait(10000, function() return exit_code ~= nil end)
  report.exit_code = exit_code
end)
finish(not ok and tostring(err) or nil)
