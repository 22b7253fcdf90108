
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'ndjq' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'ndjq'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'ndjq' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Report every problem in a stream with its location; exit 1 when any is serious')
            [CompletionResult]::new('gaps', 'gaps', [CompletionResultType]::ParameterValue, 'Report what is missing from a stream: lost lines, results, answers; exit 1 on any')
            [CompletionResult]::new('filter', 'filter', [CompletionResultType]::ParameterValue, 'Pass through the original bytes of the records that match, like grep for NDJSON')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'One normalized event per content block or item: who said what, tool calls, usage')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Totals and breakdowns: records, sessions, tokens, cost, tools, errors')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'One self-contained HTML page: totals, charts, sessions and transcripts')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Supervise an agent: its output live; restarted (resumed) on garbage or stalls')
            [CompletionResult]::new('statusline', 'statusline', [CompletionResultType]::ParameterValue, 'Claude Code''s status line: model, session and today''s cost, 5-hour window, context')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page (roff), or write one page per command into a folder')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script of a shell, or write every shell''s into a folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ndjq;validate' {
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Skip detection and read every input as this dialect')
            [CompletionResult]::new('--type-field', '--type-field', [CompletionResultType]::ParameterName, 'Dotted path of the type field for the generic dialect')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Write the raw bytes of every invalid record to FILE, byte for byte')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a diagnostic of this severity or worse is found')
            [CompletionResult]::new('--max-errors', '--max-errors', [CompletionResultType]::ParameterName, 'Stop after N diagnostics at or above --fail-on')
            [CompletionResult]::new('--restart-after', '--restart-after', [CompletionResultType]::ParameterName, 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)')
            [CompletionResult]::new('--max-restarts', '--max-restarts', [CompletionResultType]::ParameterName, 'How many times the command may be restarted; after that, PROC_GAVE_UP')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124')
            [CompletionResult]::new('--restart-cmd', '--restart-cmd', [CompletionResultType]::ParameterName, 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Write the command''s stderr to FILE instead of ndjq''s stderr')
            [CompletionResult]::new('--recover', '--recover', [CompletionResultType]::ParameterName, 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--gaps', '--gaps', [CompletionResultType]::ParameterName, 'Also report the structural findings of `ndjq gaps` (missing result, orphan tool calls, sequence gaps, unanswered requests). They need every record of an input in order: workers still parse it on every core, and one thread applies what each record tells the trackers')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;gaps' {
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Skip detection and read every input as this dialect')
            [CompletionResult]::new('--type-field', '--type-field', [CompletionResultType]::ParameterName, 'Dotted path of the type field for the generic dialect')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Write the raw bytes of every invalid record to FILE, byte for byte')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a gap of this severity or worse is found')
            [CompletionResult]::new('--seq-field', '--seq-field', [CompletionResultType]::ParameterName, 'The numeric sequence field to check for lost, repeated and reordered numbers [default: the first of seq, sequence, event_id the records hold]')
            [CompletionResult]::new('--restart-after', '--restart-after', [CompletionResultType]::ParameterName, 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)')
            [CompletionResult]::new('--max-restarts', '--max-restarts', [CompletionResultType]::ParameterName, 'How many times the command may be restarted; after that, PROC_GAVE_UP')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124')
            [CompletionResult]::new('--restart-cmd', '--restart-cmd', [CompletionResultType]::ParameterName, 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Write the command''s stderr to FILE instead of ndjq''s stderr')
            [CompletionResult]::new('--recover', '--recover', [CompletionResultType]::ParameterName, 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;filter' {
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Skip detection and read every input as this dialect')
            [CompletionResult]::new('--type-field', '--type-field', [CompletionResultType]::ParameterName, 'Dotted path of the type field for the generic dialect')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Write the raw bytes of every invalid record to FILE, byte for byte')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Records of these types (comma-separated; `system/init` also matches the subtype). A near miss of a type some dialect knows gets a did-you-mean warning')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Records of these types (comma-separated; `system/init` also matches the subtype). A near miss of a type some dialect knows gets a did-you-mean warning')
            [CompletionResult]::new('--subtype', '--subtype', [CompletionResultType]::ParameterName, 'Records with one of these subtypes')
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'Records holding a tool_use, or the tool_result of a tool_use, of these tools')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Records of these sessions (session_id, sessionId or thread_id)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Records naming these models (message.model or model)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Records where the value at PATH compares with VALUE. OP: = != > >= < <= (numbers with numbers, strings with strings) or ~ (a regex). PATH is dotted; `*` is any key or array index (any value may match). VALUE is JSON (`3`, `true`, `"a b"`) or else the text as typed. PATH alone: exists and is not null. Repeat to require several')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Records where the value at PATH compares with VALUE. OP: = != > >= < <= (numbers with numbers, strings with strings) or ~ (a regex). PATH is dotted; `*` is any key or array index (any value may match). VALUE is JSON (`3`, `true`, `"a b"`) or else the text as typed. PATH alone: exists and is not null. Repeat to require several')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Records whose human text matches REGEX: message text, thinking, tool input and output (per dialect; every string for JSON-RPC and generic). Repeat: any may match (a comma is part of the regex, not a separator: `error|fail` or two --grep)')
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Records whose human text matches REGEX: message text, thinking, tool input and output (per dialect; every string for JSON-RPC and generic). Repeat: any may match (a comma is part of the regex, not a separator: `error|fail` or two --grep)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Records at or after TIME (RFC 3339, or a date: 2025-06-30; without an offset, local time). Records without a timestamp pass')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Records at or before TIME (a date: up to its end). Records without a timestamp pass')
            [CompletionResult]::new('--diagnostic', '--diagnostic', [CompletionResultType]::ParameterName, 'Records carrying one of these diagnostic codes (e.g. PROTO_UNKNOWN_TYPE)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format of --normalize [default: json]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of --normalize [default: json]')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Print these values of each selected record instead of its bytes: tab-separated, strings raw (like jq -r), missing or null values empty, objects and arrays as compact JSON (a path with `*`: the array of its values)')
            [CompletionResult]::new('--print', '--print', [CompletionResultType]::ParameterName, 'Print these values of each selected record instead of its bytes: tab-separated, strings raw (like jq -r), missing or null values empty, objects and arrays as compact JSON (a path with `*`: the array of its values)')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Stop after N selected records')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'Stop after N selected records')
            [CompletionResult]::new('--restart-after', '--restart-after', [CompletionResultType]::ParameterName, 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)')
            [CompletionResult]::new('--max-restarts', '--max-restarts', [CompletionResultType]::ParameterName, 'How many times the command may be restarted; after that, PROC_GAVE_UP')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124')
            [CompletionResult]::new('--restart-cmd', '--restart-cmd', [CompletionResultType]::ParameterName, 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Write the command''s stderr to FILE instead of ndjq''s stderr')
            [CompletionResult]::new('--recover', '--recover', [CompletionResultType]::ParameterName, 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, '--grep and `--where PATH~REGEX` ignore case')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, '--grep and `--where PATH~REGEX` ignore case')
            [CompletionResult]::new('--valid', '--valid', [CompletionResultType]::ParameterName, 'Only records that are valid JSON')
            [CompletionResult]::new('--invalid', '--invalid', [CompletionResultType]::ParameterName, 'Only records that are not valid JSON (the ones --rejects saves)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Select the records that do not match')
            [CompletionResult]::new('--invert', '--invert', [CompletionResultType]::ParameterName, 'Select the records that do not match')
            [CompletionResult]::new('--normalize', '--normalize', [CompletionResultType]::ParameterName, 'Print the normalized events of the selected records (as `ndjq events` does) instead of their raw bytes')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print only the number of selected records')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print only the number of selected records')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'With --print, end each record''s line with NUL instead of a newline')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'With --print, end each record''s line with NUL instead of a newline')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;events' {
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Skip detection and read every input as this dialect')
            [CompletionResult]::new('--type-field', '--type-field', [CompletionResultType]::ParameterName, 'Dotted path of the type field for the generic dialect')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Write the raw bytes of every invalid record to FILE, byte for byte')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--restart-after', '--restart-after', [CompletionResultType]::ParameterName, 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)')
            [CompletionResult]::new('--max-restarts', '--max-restarts', [CompletionResultType]::ParameterName, 'How many times the command may be restarted; after that, PROC_GAVE_UP')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124')
            [CompletionResult]::new('--restart-cmd', '--restart-cmd', [CompletionResultType]::ParameterName, 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Write the command''s stderr to FILE instead of ndjq''s stderr')
            [CompletionResult]::new('--recover', '--recover', [CompletionResultType]::ParameterName, 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;stats' {
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Skip detection and read every input as this dialect')
            [CompletionResult]::new('--type-field', '--type-field', [CompletionResultType]::ParameterName, 'Dotted path of the type field for the generic dialect')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Write the raw bytes of every invalid record to FILE, byte for byte')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, else json]')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Also break the totals down by this key (a `groups` list in JSON; the rows in csv; in text, the header lines and this table only)')
            [CompletionResult]::new('--pricing', '--pricing', [CompletionResultType]::ParameterName, 'A price table in LiteLLM''s format (model_prices_and_context_window.json) to estimate costs with, instead of the built-in snapshot. Never fetched: a local file')
            [CompletionResult]::new('--cost', '--cost', [CompletionResultType]::ParameterName, 'Which costs count: the agents'' reported costs, estimates from token counts at the table''s prices, or auto (each session''s reported cost, else its estimate)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only records at or after this time: RFC 3339, or a date (YYYY-MM-DD, YYYYMMDD) in the --timezone. A record without a time has its input''s last one')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only records at or before this time (a date means the whole day)')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'The time zone days, weeks, months and blocks are counted in, and dates in --since and --until read in: an IANA name (Europe/Paris), UTC [default: the system''s]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'With --follow: write the stats at most once every SECS seconds (JSON: one object per line when the totals changed; text on a terminal: the live view)')
            [CompletionResult]::new('--token-limit', '--token-limit', [CompletionResultType]::ParameterName, 'With --follow, the live view: the tokens a 5-hour block may use, or `max` (the largest earlier block); shows the share used and when the limit will be reached')
            [CompletionResult]::new('--restart-after', '--restart-after', [CompletionResultType]::ParameterName, 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)')
            [CompletionResult]::new('--max-restarts', '--max-restarts', [CompletionResultType]::ParameterName, 'How many times the command may be restarted; after that, PROC_GAVE_UP')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124')
            [CompletionResult]::new('--restart-cmd', '--restart-cmd', [CompletionResultType]::ParameterName, 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Write the command''s stderr to FILE instead of ndjq''s stderr')
            [CompletionResult]::new('--recover', '--recover', [CompletionResultType]::ParameterName, 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--merge', '--merge', [CompletionResultType]::ParameterName, 'Read the PATHs as JSON stats written by `ndjq stats -f json --mergeable` and combine them, in order, into what one run over all their inputs gives')
            [CompletionResult]::new('--mergeable', '--mergeable', [CompletionResultType]::ParameterName, 'With -f json, also write the merge `state` that --merge needs (most of the bytes on a large tree); without it the JSON is the report alone')
            [CompletionResult]::new('--cache', '--cache', [CompletionResultType]::ParameterName, 'Answer from the incremental cache that `ndjq statusline` keeps ($XDG_CACHE_HOME/ndjq, else ~/.cache/ndjq): only the bytes appended since the last run are read; the figures are the same. Diagnostics are counted in the report, not shown one by one')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every input (the default; overrides --cache)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ndjq;report' {
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Skip detection and read every input as this dialect')
            [CompletionResult]::new('--type-field', '--type-field', [CompletionResultType]::ParameterName, 'Dotted path of the type field for the generic dialect')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Write the raw bytes of every invalid record to FILE, byte for byte')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the page to FILE (`-`: stdout) [default: stdout when it is not a terminal, else a new file in the temporary folder, whose path is printed]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the page to FILE (`-`: stdout) [default: stdout when it is not a terminal, else a new file in the temporary folder, whose path is printed]')
            [CompletionResult]::new('--pricing', '--pricing', [CompletionResultType]::ParameterName, 'A price table in LiteLLM''s format (model_prices_and_context_window.json) to estimate costs with, instead of the built-in snapshot. Never fetched: a local file')
            [CompletionResult]::new('--cost', '--cost', [CompletionResultType]::ParameterName, 'Which costs count: the agents'' reported costs, estimates from token counts at the table''s prices, or auto (each session''s reported cost, else its estimate)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only records at or after this time: RFC 3339, or a date (YYYY-MM-DD, YYYYMMDD) in the --timezone. A record without a time has its input''s last one')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only records at or before this time (a date means the whole day)')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'The time zone days, weeks, months and blocks are counted in, and dates in --since and --until read in: an IANA name (Europe/Paris), UTC [default: the system''s]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'With --follow: write the stats at most once every SECS seconds (JSON: one object per line when the totals changed; text on a terminal: the live view)')
            [CompletionResult]::new('--token-limit', '--token-limit', [CompletionResultType]::ParameterName, 'With --follow, the live view: the tokens a 5-hour block may use, or `max` (the largest earlier block); shows the share used and when the limit will be reached')
            [CompletionResult]::new('--restart-after', '--restart-after', [CompletionResultType]::ParameterName, 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)')
            [CompletionResult]::new('--max-restarts', '--max-restarts', [CompletionResultType]::ParameterName, 'How many times the command may be restarted; after that, PROC_GAVE_UP')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124')
            [CompletionResult]::new('--restart-cmd', '--restart-cmd', [CompletionResultType]::ParameterName, 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Write the command''s stderr to FILE instead of ndjq''s stderr')
            [CompletionResult]::new('--recover', '--recover', [CompletionResultType]::ParameterName, 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--open', '--open', [CompletionResultType]::ParameterName, 'Open the page with the system''s opener (xdg-open, open) once it is written')
            [CompletionResult]::new('--transcripts', '--transcripts', [CompletionResultType]::ParameterName, 'Add each session''s transcript (the `events` view) [default: on when the input is one file or stdin and holds one session]')
            [CompletionResult]::new('--no-transcripts', '--no-transcripts', [CompletionResultType]::ParameterName, 'Leave the transcripts out')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;run' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'What to write: the valid records'' original bytes (raw), a live transcript (text), or normalized events (json)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'What to write: the valid records'' original bytes (raw), a live transcript (text), or normalized events (json)')
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Skip detection and read every input as this dialect')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Write the raw bytes of every invalid record to FILE, byte for byte')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('--restart-after', '--restart-after', [CompletionResultType]::ParameterName, 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)')
            [CompletionResult]::new('--max-restarts', '--max-restarts', [CompletionResultType]::ParameterName, 'How many times the command may be restarted; after that, PROC_GAVE_UP')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124')
            [CompletionResult]::new('--restart-cmd', '--restart-cmd', [CompletionResultType]::ParameterName, 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Write the command''s stderr to FILE instead of ndjq''s stderr')
            [CompletionResult]::new('--recover', '--recover', [CompletionResultType]::ParameterName, 'Take JSON objects out of text lines and reassemble pretty-printed ones (see `ndjq filter --help`)')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no diagnostics on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;statusline' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'The line, with these placeholders: {model}, {session_cost} (Claude Code''s figure, else the logs''), {today_cost} (every agent''s logs, today), {block} (the 5-hour window: the plan''s used % and reset when Claude Code sends them, else ndjq''s block with its cost, time left and burn rate), {seven_day}, {context} (context window used), {dir} (the working folder''s name); `{{` and `}}` for braces [default: the non-empty ones of model, session cost, today, block, context, joined by ` · `]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the line: auto (always, as Claude Code shows colours, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every log again instead of answering from the cache ($XDG_CACHE_HOME/ndjq, else ~/.cache/ndjq), and leave the cache as it is')
            [CompletionResult]::new('--clear-cache', '--clear-cache', [CompletionResultType]::ParameterName, 'Delete the cache folder and exit (it is rebuilt on the next run)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ndjq;man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Write every page into DIR (created if missing): ndjq.1 and one ndjq-COMMAND.1 per command, instead of printing ndjq.1 on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;completions' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Write the script(s) into DIR (created if missing) under the names the shells look for (ndjq.bash, _ndjq, ndjq.fish, ndjq.elv, _ndjq.ps1), instead of printing on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'ndjq;help' {
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Report every problem in a stream with its location; exit 1 when any is serious')
            [CompletionResult]::new('gaps', 'gaps', [CompletionResultType]::ParameterValue, 'Report what is missing from a stream: lost lines, results, answers; exit 1 on any')
            [CompletionResult]::new('filter', 'filter', [CompletionResultType]::ParameterValue, 'Pass through the original bytes of the records that match, like grep for NDJSON')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'One normalized event per content block or item: who said what, tool calls, usage')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Totals and breakdowns: records, sessions, tokens, cost, tools, errors')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'One self-contained HTML page: totals, charts, sessions and transcripts')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Supervise an agent: its output live; restarted (resumed) on garbage or stalls')
            [CompletionResult]::new('statusline', 'statusline', [CompletionResultType]::ParameterValue, 'Claude Code''s status line: model, session and today''s cost, 5-hour window, context')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page (roff), or write one page per command into a folder')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script of a shell, or write every shell''s into a folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ndjq;help;validate' {
            break
        }
        'ndjq;help;gaps' {
            break
        }
        'ndjq;help;filter' {
            break
        }
        'ndjq;help;events' {
            break
        }
        'ndjq;help;stats' {
            break
        }
        'ndjq;help;report' {
            break
        }
        'ndjq;help;run' {
            break
        }
        'ndjq;help;statusline' {
            break
        }
        'ndjq;help;man' {
            break
        }
        'ndjq;help;completions' {
            break
        }
        'ndjq;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
