# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ndjq_global_optspecs
    string join \n h/help V/version
end

function __fish_ndjq_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ndjq_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ndjq_using_subcommand
    set -l cmd (__fish_ndjq_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ndjq -n "__fish_ndjq_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ndjq -n "__fish_ndjq_needs_command" -s V -l version -d 'Print version'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "validate" -d 'Report every problem in a stream with its location; exit 1 when any is serious'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "gaps" -d 'Report what is missing from a stream: lost lines, results, answers; exit 1 on any'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "filter" -d 'Pass through the original bytes of the records that match, like grep for NDJSON'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "events" -d 'One normalized event per content block or item: who said what, tool calls, usage'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "stats" -d 'Totals and breakdowns: records, sessions, tokens, cost, tools, errors'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "report" -d 'One self-contained HTML page: totals, charts, sessions and transcripts'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "run" -d 'Supervise an agent: its output live; restarted (resumed) on garbage or stalls'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "statusline" -d 'Claude Code\'s status line: model, session and today\'s cost, 5-hour window, context'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "man" -d 'Print the manual page (roff), or write one page per command into a folder'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "completions" -d 'Print the completion script of a shell, or write every shell\'s into a folder'
complete -c ndjq -n "__fish_ndjq_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l max-line-bytes -d 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l max-depth -d 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l dialect -d 'Skip detection and read every input as this dialect' -r -f -a "claude\t''
claude-log\t''
codex\t''
codex-log\t''
jsonrpc\t''
gemini\t''
gemini-log\t''
qwen\t''
qwen-log\t''
cursor\t''
opencode\t''
copilot\t''
generic\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l type-field -d 'Dotted path of the type field for the generic dialect' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -s j -l threads -d 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l rejects -d 'Write the raw bytes of every invalid record to FILE, byte for byte' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l poll -d 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l color -d 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -s f -l format -d 'Output format [default: text on a terminal, else json]' -r -f -a "text\t''
json\t''
csv\t''
github\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l fail-on -d 'Exit 1 when a diagnostic of this severity or worse is found' -r -f -a "error\t''
warning\t''
info\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l max-errors -d 'Stop after N diagnostics at or above --fail-on' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l restart-after -d 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l max-restarts -d 'How many times the command may be restarted; after that, PROC_GAVE_UP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l grace -d 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l idle-timeout -d 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l restart-cmd -d 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l tee -d 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l stderr -d 'Write the command\'s stderr to FILE instead of ndjq\'s stderr' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l recover -d 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -s F -l follow -d 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary'
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l line-buffered -d 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent\'s lines come through as they are written'
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -s q -l quiet -d 'Print no diagnostics on stderr'
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -l gaps -d 'Also report the structural findings of `ndjq gaps` (missing result, orphan tool calls, sequence gaps, unanswered requests). They need every record of an input in order: workers still parse it on every core, and one thread applies what each record tells the trackers'
complete -c ndjq -n "__fish_ndjq_using_subcommand validate" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l max-line-bytes -d 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l max-depth -d 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l dialect -d 'Skip detection and read every input as this dialect' -r -f -a "claude\t''
claude-log\t''
codex\t''
codex-log\t''
jsonrpc\t''
gemini\t''
gemini-log\t''
qwen\t''
qwen-log\t''
cursor\t''
opencode\t''
copilot\t''
generic\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l type-field -d 'Dotted path of the type field for the generic dialect' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -s j -l threads -d 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l rejects -d 'Write the raw bytes of every invalid record to FILE, byte for byte' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l poll -d 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l color -d 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -s f -l format -d 'Output format [default: text on a terminal, else json]' -r -f -a "text\t''
json\t''
csv\t''
github\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l fail-on -d 'Exit 1 when a gap of this severity or worse is found' -r -f -a "error\t''
warning\t''
info\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l seq-field -d 'The numeric sequence field to check for lost, repeated and reordered numbers [default: the first of seq, sequence, event_id the records hold]' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l restart-after -d 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l max-restarts -d 'How many times the command may be restarted; after that, PROC_GAVE_UP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l grace -d 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l idle-timeout -d 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l restart-cmd -d 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l tee -d 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l stderr -d 'Write the command\'s stderr to FILE instead of ndjq\'s stderr' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l recover -d 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -s F -l follow -d 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary'
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -l line-buffered -d 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent\'s lines come through as they are written'
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -s q -l quiet -d 'Print no diagnostics on stderr'
complete -c ndjq -n "__fish_ndjq_using_subcommand gaps" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l max-line-bytes -d 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l max-depth -d 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l dialect -d 'Skip detection and read every input as this dialect' -r -f -a "claude\t''
claude-log\t''
codex\t''
codex-log\t''
jsonrpc\t''
gemini\t''
gemini-log\t''
qwen\t''
qwen-log\t''
cursor\t''
opencode\t''
copilot\t''
generic\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l type-field -d 'Dotted path of the type field for the generic dialect' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s j -l threads -d 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l rejects -d 'Write the raw bytes of every invalid record to FILE, byte for byte' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l poll -d 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l color -d 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s t -l type -d 'Records of these types (comma-separated; `system/init` also matches the subtype). A near miss of a type some dialect knows gets a did-you-mean warning' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l subtype -d 'Records with one of these subtypes' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l tool -d 'Records holding a tool_use, or the tool_result of a tool_use, of these tools' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l session -d 'Records of these sessions (session_id, sessionId or thread_id)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l model -d 'Records naming these models (message.model or model)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s w -l where -d 'Records where the value at PATH compares with VALUE. OP: = != > >= < <= (numbers with numbers, strings with strings) or ~ (a regex). PATH is dotted; `*` is any key or array index (any value may match). VALUE is JSON (`3`, `true`, `"a b"`) or else the text as typed. PATH alone: exists and is not null. Repeat to require several' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s g -l grep -d 'Records whose human text matches REGEX: message text, thinking, tool input and output (per dialect; every string for JSON-RPC and generic). Repeat: any may match (a comma is part of the regex, not a separator: `error|fail` or two --grep)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l since -d 'Records at or after TIME (RFC 3339, or a date: 2025-06-30; without an offset, local time). Records without a timestamp pass' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l until -d 'Records at or before TIME (a date: up to its end). Records without a timestamp pass' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l diagnostic -d 'Records carrying one of these diagnostic codes (e.g. PROTO_UNKNOWN_TYPE)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s f -l format -d 'Output format of --normalize [default: json]' -r -f -a "text\t''
json\t''
csv\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s p -l print -d 'Print these values of each selected record instead of its bytes: tab-separated, strings raw (like jq -r), missing or null values empty, objects and arrays as compact JSON (a path with `*`: the array of its values)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s m -l max-count -d 'Stop after N selected records' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l restart-after -d 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l max-restarts -d 'How many times the command may be restarted; after that, PROC_GAVE_UP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l grace -d 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l idle-timeout -d 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l restart-cmd -d 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l tee -d 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l stderr -d 'Write the command\'s stderr to FILE instead of ndjq\'s stderr' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l recover -d 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s F -l follow -d 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l line-buffered -d 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent\'s lines come through as they are written'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s q -l quiet -d 'Print no diagnostics on stderr'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s i -l ignore-case -d '--grep and `--where PATH~REGEX` ignore case'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l valid -d 'Only records that are valid JSON'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l invalid -d 'Only records that are not valid JSON (the ones --rejects saves)'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s v -l invert -d 'Select the records that do not match'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -l normalize -d 'Print the normalized events of the selected records (as `ndjq events` does) instead of their raw bytes'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s c -l count -d 'Print only the number of selected records'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s 0 -l null -d 'With --print, end each record\'s line with NUL instead of a newline'
complete -c ndjq -n "__fish_ndjq_using_subcommand filter" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l max-line-bytes -d 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l max-depth -d 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l dialect -d 'Skip detection and read every input as this dialect' -r -f -a "claude\t''
claude-log\t''
codex\t''
codex-log\t''
jsonrpc\t''
gemini\t''
gemini-log\t''
qwen\t''
qwen-log\t''
cursor\t''
opencode\t''
copilot\t''
generic\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l type-field -d 'Dotted path of the type field for the generic dialect' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -s j -l threads -d 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l rejects -d 'Write the raw bytes of every invalid record to FILE, byte for byte' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l poll -d 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l color -d 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -s f -l format -d 'Output format [default: text on a terminal, else json]' -r -f -a "text\t''
json\t''
csv\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l restart-after -d 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l max-restarts -d 'How many times the command may be restarted; after that, PROC_GAVE_UP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l grace -d 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l idle-timeout -d 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l restart-cmd -d 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l tee -d 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l stderr -d 'Write the command\'s stderr to FILE instead of ndjq\'s stderr' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l recover -d 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -s F -l follow -d 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary'
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -l line-buffered -d 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent\'s lines come through as they are written'
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -s q -l quiet -d 'Print no diagnostics on stderr'
complete -c ndjq -n "__fish_ndjq_using_subcommand events" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l max-line-bytes -d 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l max-depth -d 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l dialect -d 'Skip detection and read every input as this dialect' -r -f -a "claude\t''
claude-log\t''
codex\t''
codex-log\t''
jsonrpc\t''
gemini\t''
gemini-log\t''
qwen\t''
qwen-log\t''
cursor\t''
opencode\t''
copilot\t''
generic\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l type-field -d 'Dotted path of the type field for the generic dialect' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -s j -l threads -d 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l rejects -d 'Write the raw bytes of every invalid record to FILE, byte for byte' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l poll -d 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l color -d 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -s f -l format -d 'Output format [default: text on a terminal, else json]' -r -f -a "text\t''
json\t''
csv\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l by -d 'Also break the totals down by this key (a `groups` list in JSON; the rows in csv; in text, the header lines and this table only)' -r -f -a "session\t''
model\t''
tool\t''
type\t''
file\t''
day\t''
week\t'ISO weeks, named by their Monday'
month\t''
project\t'The session\'s working directory'
block\t'Claude\'s 5-hour billing windows (a block starts at the hour of the first activity after the last block)'"
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l pricing -d 'A price table in LiteLLM\'s format (model_prices_and_context_window.json) to estimate costs with, instead of the built-in snapshot. Never fetched: a local file' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l cost -d 'Which costs count: the agents\' reported costs, estimates from token counts at the table\'s prices, or auto (each session\'s reported cost, else its estimate)' -r -f -a "reported\t''
estimated\t''
auto\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l since -d 'Only records at or after this time: RFC 3339, or a date (YYYY-MM-DD, YYYYMMDD) in the --timezone. A record without a time has its input\'s last one' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l until -d 'Only records at or before this time (a date means the whole day)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l timezone -d 'The time zone days, weeks, months and blocks are counted in, and dates in --since and --until read in: an IANA name (Europe/Paris), UTC [default: the system\'s]' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l interval -d 'With --follow: write the stats at most once every SECS seconds (JSON: one object per line when the totals changed; text on a terminal: the live view)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l token-limit -d 'With --follow, the live view: the tokens a 5-hour block may use, or `max` (the largest earlier block); shows the share used and when the limit will be reached' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l restart-after -d 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l max-restarts -d 'How many times the command may be restarted; after that, PROC_GAVE_UP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l grace -d 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l idle-timeout -d 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l restart-cmd -d 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l tee -d 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l stderr -d 'Write the command\'s stderr to FILE instead of ndjq\'s stderr' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l recover -d 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -s F -l follow -d 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l line-buffered -d 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent\'s lines come through as they are written'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -s q -l quiet -d 'Print no diagnostics on stderr'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l merge -d 'Read the PATHs as JSON stats written by `ndjq stats -f json --mergeable` and combine them, in order, into what one run over all their inputs gives'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l mergeable -d 'With -f json, also write the merge `state` that --merge needs (most of the bytes on a large tree); without it the JSON is the report alone'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l cache -d 'Answer from the incremental cache that `ndjq statusline` keeps ($XDG_CACHE_HOME/ndjq, else ~/.cache/ndjq): only the bytes appended since the last run are read; the figures are the same. Diagnostics are counted in the report, not shown one by one'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -l no-cache -d 'Read every input (the default; overrides --cache)'
complete -c ndjq -n "__fish_ndjq_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l max-line-bytes -d 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l max-depth -d 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l dialect -d 'Skip detection and read every input as this dialect' -r -f -a "claude\t''
claude-log\t''
codex\t''
codex-log\t''
jsonrpc\t''
gemini\t''
gemini-log\t''
qwen\t''
qwen-log\t''
cursor\t''
opencode\t''
copilot\t''
generic\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l type-field -d 'Dotted path of the type field for the generic dialect' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -s j -l threads -d 'Worker threads for reading files (0: one per core, at most 8; at most 1024). Output is the same, in the same order, whatever the number' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l rejects -d 'Write the raw bytes of every invalid record to FILE, byte for byte' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l poll -d 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l color -d 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -s o -l output -d 'Write the page to FILE (`-`: stdout) [default: stdout when it is not a terminal, else a new file in the temporary folder, whose path is printed]' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l pricing -d 'A price table in LiteLLM\'s format (model_prices_and_context_window.json) to estimate costs with, instead of the built-in snapshot. Never fetched: a local file' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l cost -d 'Which costs count: the agents\' reported costs, estimates from token counts at the table\'s prices, or auto (each session\'s reported cost, else its estimate)' -r -f -a "reported\t''
estimated\t''
auto\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l since -d 'Only records at or after this time: RFC 3339, or a date (YYYY-MM-DD, YYYYMMDD) in the --timezone. A record without a time has its input\'s last one' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l until -d 'Only records at or before this time (a date means the whole day)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l timezone -d 'The time zone days, weeks, months and blocks are counted in, and dates in --since and --until read in: an IANA name (Europe/Paris), UTC [default: the system\'s]' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l interval -d 'With --follow: write the stats at most once every SECS seconds (JSON: one object per line when the totals changed; text on a terminal: the live view)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l token-limit -d 'With --follow, the live view: the tokens a 5-hour block may use, or `max` (the largest earlier block); shows the share used and when the limit will be reached' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l restart-after -d 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l max-restarts -d 'How many times the command may be restarted; after that, PROC_GAVE_UP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l grace -d 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l idle-timeout -d 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l restart-cmd -d 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l tee -d 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l stderr -d 'Write the command\'s stderr to FILE instead of ndjq\'s stderr' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l recover -d 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -s F -l follow -d 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders, renamed files read on where they were. Ends on Ctrl-C (SIGINT), SIGTERM or SIGHUP, with the summary'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l line-buffered -d 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent\'s lines come through as they are written'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -s q -l quiet -d 'Print no diagnostics on stderr'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l open -d 'Open the page with the system\'s opener (xdg-open, open) once it is written'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l transcripts -d 'Add each session\'s transcript (the `events` view) [default: on when the input is one file or stdin and holds one session]'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -l no-transcripts -d 'Leave the transcripts out'
complete -c ndjq -n "__fish_ndjq_using_subcommand report" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -s f -l format -d 'What to write: the valid records\' original bytes (raw), a live transcript (text), or normalized events (json)' -r -f -a "raw\t''
text\t''
json\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l max-line-bytes -d 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l max-depth -d 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l dialect -d 'Skip detection and read every input as this dialect' -r -f -a "claude\t''
claude-log\t''
codex\t''
codex-log\t''
jsonrpc\t''
gemini\t''
gemini-log\t''
qwen\t''
qwen-log\t''
cursor\t''
opencode\t''
copilot\t''
generic\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l rejects -d 'Write the raw bytes of every invalid record to FILE, byte for byte' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l color -d 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l restart-after -d 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l max-restarts -d 'How many times the command may be restarted; after that, PROC_GAVE_UP' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l grace -d 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l idle-timeout -d 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted (resuming its session, or, when it printed nothing yet, started again as given); without a restart left, ndjq exits 124' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l restart-cmd -d 'The command line that resumes a session, `{session_id}` standing for its id (words split like a shell; nothing expanded), for an agent ndjq does not resume itself: claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l tee -d 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l stderr -d 'Write the command\'s stderr to FILE instead of ndjq\'s stderr' -r -F
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l recover -d 'Take JSON objects out of text lines and reassemble pretty-printed ones (see `ndjq filter --help`)'
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -l line-buffered -d 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent\'s lines come through as they are written'
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -s q -l quiet -d 'Print no diagnostics on stderr'
complete -c ndjq -n "__fish_ndjq_using_subcommand run" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand statusline" -l format -d 'The line, with these placeholders: {model}, {session_cost} (Claude Code\'s figure, else the logs\'), {today_cost} (every agent\'s logs, today), {block} (the 5-hour window: the plan\'s used % and reset when Claude Code sends them, else ndjq\'s block with its cost, time left and burn rate), {seven_day}, {context} (context window used), {dir} (the working folder\'s name); `{{` and `}}` for braces [default: the non-empty ones of model, session cost, today, block, context, joined by ` · `]' -r
complete -c ndjq -n "__fish_ndjq_using_subcommand statusline" -l color -d 'When to colour the line: auto (always, as Claude Code shows colours, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ndjq -n "__fish_ndjq_using_subcommand statusline" -l no-cache -d 'Read every log again instead of answering from the cache ($XDG_CACHE_HOME/ndjq, else ~/.cache/ndjq), and leave the cache as it is'
complete -c ndjq -n "__fish_ndjq_using_subcommand statusline" -l clear-cache -d 'Delete the cache folder and exit (it is rebuilt on the next run)'
complete -c ndjq -n "__fish_ndjq_using_subcommand statusline" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ndjq -n "__fish_ndjq_using_subcommand man" -l dir -d 'Write every page into DIR (created if missing): ndjq.1 and one ndjq-COMMAND.1 per command, instead of printing ndjq.1 on stdout' -r -f -a "(__fish_complete_directories)"
complete -c ndjq -n "__fish_ndjq_using_subcommand man" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand completions" -l dir -d 'Write the script(s) into DIR (created if missing) under the names the shells look for (ndjq.bash, _ndjq, ndjq.fish, ndjq.elv, _ndjq.ps1), instead of printing on stdout' -r -f -a "(__fish_complete_directories)"
complete -c ndjq -n "__fish_ndjq_using_subcommand completions" -s h -l help -d 'Print help'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "validate" -d 'Report every problem in a stream with its location; exit 1 when any is serious'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "gaps" -d 'Report what is missing from a stream: lost lines, results, answers; exit 1 on any'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "filter" -d 'Pass through the original bytes of the records that match, like grep for NDJSON'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "events" -d 'One normalized event per content block or item: who said what, tool calls, usage'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "stats" -d 'Totals and breakdowns: records, sessions, tokens, cost, tools, errors'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "report" -d 'One self-contained HTML page: totals, charts, sessions and transcripts'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "run" -d 'Supervise an agent: its output live; restarted (resumed) on garbage or stalls'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "statusline" -d 'Claude Code\'s status line: model, session and today\'s cost, 5-hour window, context'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "man" -d 'Print the manual page (roff), or write one page per command into a folder'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "completions" -d 'Print the completion script of a shell, or write every shell\'s into a folder'
complete -c ndjq -n "__fish_ndjq_using_subcommand help; and not __fish_seen_subcommand_from validate gaps filter events stats report run statusline man completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
