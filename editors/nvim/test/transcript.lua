-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath draws phases into the transcript buffer without a server, and writes its lines as
-- JSON to $SANTRA_NVIM_OUT: status lines with a key replace each other; other lines stay.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local transcript = require('santra.transcript')
local report = {}

local seq = 0
local function phase(fields)
  seq = seq + 1
  local p = { runId = 'run_1', sessionId = 'ses_1', agentId = 'orchestrator', seq = seq }
  for k, v in pairs(fields) do
    p[k] = v
  end
  transcript.phase(p)
end

flow.run(report, function()
  transcript.begin('write it')
  phase({ type = 'status', level = 'warning', key = 'model-call', text = 'Retrying in 1 s (attempt 2 of 4)' })
  phase({ type = 'status', level = 'warning', key = 'model-call', text = 'Retrying in 2 s (attempt 3 of 4)' })
  phase({ type = 'text', text = 'Writing the file.' })
  phase({ type = 'status', key = 'tool-input', text = 'write_file notes.md: receiving 8 KB' })
  phase({ type = 'status', key = 'tool-input', text = 'write_file notes.md: receiving 16 KB' })
  phase({ type = 'status', text = 'Reading the tests' })
  phase({ type = 'status', text = 'Reading the tests again' })
  report.lines = transcript.lines()
end)
