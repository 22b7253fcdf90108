
use builtin;
use str;

set edit:completion:arg-completer[ndjq] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'ndjq'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'ndjq'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand validate 'Report every problem in a stream with its location; exit 1 when any is serious'
            cand gaps 'Report what is missing from a stream: lost lines, results, answers; exit 1 on any'
            cand filter 'Pass through the original bytes of the records that match, like grep for NDJSON'
            cand events 'One normalized event per content block or item: who said what, tool calls, usage'
            cand stats 'Totals and breakdowns: records, sessions, tokens, cost, tools, errors'
            cand run 'Supervise an agent: its output live; restarted (resumed) on garbage or stalls'
            cand man 'Print the manual page (roff), or write one page per command into a folder'
            cand completions 'Print the completion script of a shell, or write every shell''s into a folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ndjq;validate'= {
            cand --max-line-bytes 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory'
            cand --max-depth 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP'
            cand --dialect 'Skip detection and read every input as this dialect'
            cand --type-field 'Dotted path of the type field for the generic dialect'
            cand -j 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --threads 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --rejects 'Write the raw bytes of every invalid record to FILE, byte for byte'
            cand --poll 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)'
            cand --color 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never'
            cand -f 'Output format [default: text on a terminal, else json]'
            cand --format 'Output format [default: text on a terminal, else json]'
            cand --fail-on 'Exit 1 when a diagnostic of this severity or worse is found'
            cand --max-errors 'Stop after N diagnostics at or above --fail-on'
            cand --restart-after 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)'
            cand --max-restarts 'How many times the command may be restarted; after that, PROC_GAVE_UP'
            cand --grace 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)'
            cand --idle-timeout 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted; without a restart left, ndjq exits 124'
            cand --restart-cmd 'The command line that resumes a session, `{session_id}` standing for its id, for agents other than claude and codex (words split like a shell; nothing expanded)'
            cand --tee 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked'
            cand --stderr 'Write the command''s stderr to FILE instead of ndjq''s stderr'
            cand --recover 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
            cand -F 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --follow 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --line-buffered 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written'
            cand -q 'Print no diagnostics on stderr'
            cand --quiet 'Print no diagnostics on stderr'
            cand --gaps 'Also report the structural findings of `ndjq gaps` (missing result, orphan tool calls, sequence gaps, unanswered requests). They need every record of an input in order: workers still parse it on every core, and one thread applies what each record tells the trackers'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ndjq;gaps'= {
            cand --max-line-bytes 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory'
            cand --max-depth 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP'
            cand --dialect 'Skip detection and read every input as this dialect'
            cand --type-field 'Dotted path of the type field for the generic dialect'
            cand -j 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --threads 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --rejects 'Write the raw bytes of every invalid record to FILE, byte for byte'
            cand --poll 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)'
            cand --color 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never'
            cand -f 'Output format [default: text on a terminal, else json]'
            cand --format 'Output format [default: text on a terminal, else json]'
            cand --fail-on 'Exit 1 when a gap of this severity or worse is found'
            cand --seq-field 'The numeric sequence field to check for lost, repeated and reordered numbers [default: the first of seq, sequence, event_id the records hold]'
            cand --restart-after 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)'
            cand --max-restarts 'How many times the command may be restarted; after that, PROC_GAVE_UP'
            cand --grace 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)'
            cand --idle-timeout 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted; without a restart left, ndjq exits 124'
            cand --restart-cmd 'The command line that resumes a session, `{session_id}` standing for its id, for agents other than claude and codex (words split like a shell; nothing expanded)'
            cand --tee 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked'
            cand --stderr 'Write the command''s stderr to FILE instead of ndjq''s stderr'
            cand --recover 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
            cand -F 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --follow 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --line-buffered 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written'
            cand -q 'Print no diagnostics on stderr'
            cand --quiet 'Print no diagnostics on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ndjq;filter'= {
            cand --max-line-bytes 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory'
            cand --max-depth 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP'
            cand --dialect 'Skip detection and read every input as this dialect'
            cand --type-field 'Dotted path of the type field for the generic dialect'
            cand -j 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --threads 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --rejects 'Write the raw bytes of every invalid record to FILE, byte for byte'
            cand --poll 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)'
            cand --color 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never'
            cand -t 'Records of these types (comma-separated; `system/init` also matches the subtype). A near miss of a type some dialect knows gets a did-you-mean warning'
            cand --type 'Records of these types (comma-separated; `system/init` also matches the subtype). A near miss of a type some dialect knows gets a did-you-mean warning'
            cand --subtype 'Records with one of these subtypes'
            cand --tool 'Records holding a tool_use, or the tool_result of a tool_use, of these tools'
            cand --session 'Records of these sessions (session_id, sessionId or thread_id)'
            cand --model 'Records naming these models (message.model or model)'
            cand -w 'Records where the value at PATH compares with VALUE. OP: = != > >= < <= (numbers with numbers, strings with strings) or ~ (a regex). PATH is dotted; `*` is any key or array index (any value may match). VALUE is JSON (`3`, `true`, `"a b"`) or else the text as typed. PATH alone: exists and is not null. Repeat to require several'
            cand --where 'Records where the value at PATH compares with VALUE. OP: = != > >= < <= (numbers with numbers, strings with strings) or ~ (a regex). PATH is dotted; `*` is any key or array index (any value may match). VALUE is JSON (`3`, `true`, `"a b"`) or else the text as typed. PATH alone: exists and is not null. Repeat to require several'
            cand -g 'Records whose human text matches REGEX: message text, thinking, tool input and output (per dialect; every string for JSON-RPC and generic). Repeat: any may match'
            cand --grep 'Records whose human text matches REGEX: message text, thinking, tool input and output (per dialect; every string for JSON-RPC and generic). Repeat: any may match'
            cand --since 'Records at or after TIME (RFC 3339, or a date: 2025-06-30; without an offset, local time). Records without a timestamp pass'
            cand --until 'Records at or before TIME (a date: up to its end). Records without a timestamp pass'
            cand --diagnostic 'Records carrying one of these diagnostic codes (e.g. PROTO_UNKNOWN_TYPE)'
            cand -f 'Output format of --normalize [default: json]'
            cand --format 'Output format of --normalize [default: json]'
            cand -p 'Print these values of each selected record instead of its bytes: tab-separated, strings raw (like jq -r), missing or null values empty, objects and arrays as compact JSON (a path with `*`: the array of its values)'
            cand --print 'Print these values of each selected record instead of its bytes: tab-separated, strings raw (like jq -r), missing or null values empty, objects and arrays as compact JSON (a path with `*`: the array of its values)'
            cand -m 'Stop after N selected records'
            cand --max-count 'Stop after N selected records'
            cand --restart-after 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)'
            cand --max-restarts 'How many times the command may be restarted; after that, PROC_GAVE_UP'
            cand --grace 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)'
            cand --idle-timeout 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted; without a restart left, ndjq exits 124'
            cand --restart-cmd 'The command line that resumes a session, `{session_id}` standing for its id, for agents other than claude and codex (words split like a shell; nothing expanded)'
            cand --tee 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked'
            cand --stderr 'Write the command''s stderr to FILE instead of ndjq''s stderr'
            cand --recover 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
            cand -F 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --follow 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --line-buffered 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written'
            cand -q 'Print no diagnostics on stderr'
            cand --quiet 'Print no diagnostics on stderr'
            cand -i '--grep and `--where PATH~REGEX` ignore case'
            cand --ignore-case '--grep and `--where PATH~REGEX` ignore case'
            cand --valid 'Only records that are valid JSON'
            cand --invalid 'Only records that are not valid JSON (the ones --rejects saves)'
            cand -v 'Select the records that do not match'
            cand --invert 'Select the records that do not match'
            cand --normalize 'Print the normalized events of the selected records (as `ndjq events` does) instead of their raw bytes'
            cand -c 'Print only the number of selected records'
            cand --count 'Print only the number of selected records'
            cand -0 'With --print, end each record''s line with NUL instead of a newline'
            cand --null 'With --print, end each record''s line with NUL instead of a newline'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ndjq;events'= {
            cand --max-line-bytes 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory'
            cand --max-depth 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP'
            cand --dialect 'Skip detection and read every input as this dialect'
            cand --type-field 'Dotted path of the type field for the generic dialect'
            cand -j 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --threads 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --rejects 'Write the raw bytes of every invalid record to FILE, byte for byte'
            cand --poll 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)'
            cand --color 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never'
            cand -f 'Output format [default: text on a terminal, else json]'
            cand --format 'Output format [default: text on a terminal, else json]'
            cand --restart-after 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)'
            cand --max-restarts 'How many times the command may be restarted; after that, PROC_GAVE_UP'
            cand --grace 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)'
            cand --idle-timeout 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted; without a restart left, ndjq exits 124'
            cand --restart-cmd 'The command line that resumes a session, `{session_id}` standing for its id, for agents other than claude and codex (words split like a shell; nothing expanded)'
            cand --tee 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked'
            cand --stderr 'Write the command''s stderr to FILE instead of ndjq''s stderr'
            cand --recover 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
            cand -F 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --follow 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --line-buffered 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written'
            cand -q 'Print no diagnostics on stderr'
            cand --quiet 'Print no diagnostics on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ndjq;stats'= {
            cand --max-line-bytes 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory'
            cand --max-depth 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP'
            cand --dialect 'Skip detection and read every input as this dialect'
            cand --type-field 'Dotted path of the type field for the generic dialect'
            cand -j 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --threads 'Worker threads for reading files (0: one per core, at most 8). Output is the same, in the same order, whatever the number'
            cand --rejects 'Write the raw bytes of every invalid record to FILE, byte for byte'
            cand --poll 'With --follow: look for changes every SECS seconds instead of waiting for file-system notifications (for file systems without them, such as NFS)'
            cand --color 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never'
            cand -f 'Output format [default: text on a terminal, else json]'
            cand --format 'Output format [default: text on a terminal, else json]'
            cand --by 'Also break the totals down by this key (a `groups` list in JSON; the rows in csv and text)'
            cand --pricing 'A price table in LiteLLM''s format (model_prices_and_context_window.json) to estimate costs with, instead of the built-in snapshot. Never fetched: a local file'
            cand --cost 'Which costs count: the agents'' reported costs, estimates from token counts at the table''s prices, or auto (each session''s reported cost, else its estimate)'
            cand --since 'Only records at or after this time: RFC 3339, or a date (YYYY-MM-DD, YYYYMMDD) in the --timezone. A record without a time has its input''s last one'
            cand --until 'Only records at or before this time (a date means the whole day)'
            cand --timezone 'The time zone days, weeks, months and blocks are counted in, and dates in --since and --until read in: an IANA name (Europe/Paris), UTC [default: the system''s]'
            cand --interval 'With --follow: write the stats at most once every SECS seconds (JSON: one object per line when the totals changed; text on a terminal: the live view)'
            cand --token-limit 'With --follow, the live view: the tokens a 5-hour block may use, or `max` (the largest earlier block); shows the share used and when the limit will be reached'
            cand --restart-after 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)'
            cand --max-restarts 'How many times the command may be restarted; after that, PROC_GAVE_UP'
            cand --grace 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)'
            cand --idle-timeout 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted; without a restart left, ndjq exits 124'
            cand --restart-cmd 'The command line that resumes a session, `{session_id}` standing for its id, for agents other than claude and codex (words split like a shell; nothing expanded)'
            cand --tee 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked'
            cand --stderr 'Write the command''s stderr to FILE instead of ndjq''s stderr'
            cand --recover 'Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and reassemble objects pretty-printed over several lines; the text is reported as PROTO_TEXT_NOISE. Inputs are then read on one thread'
            cand -F 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --follow 'After reading what is there, keep reading as the files grow, like `tail -F`: new records as they are written, truncated and replaced files from their start, new files under the folders. Ends on Ctrl-C (SIGINT) or SIGTERM, with the summary'
            cand --line-buffered 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written'
            cand -q 'Print no diagnostics on stderr'
            cand --quiet 'Print no diagnostics on stderr'
            cand --merge 'Read the PATHs as JSON stats written by `ndjq stats -f json` and combine them, in order, into what one run over all their inputs gives'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ndjq;run'= {
            cand -f 'What to write: the valid records'' original bytes (raw), a live transcript (text), or normalized events (json)'
            cand --format 'What to write: the valid records'' original bytes (raw), a live transcript (text), or normalized events (json)'
            cand --max-line-bytes 'Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as PROTO_LINE_TOO_LONG and streamed through without being held in memory'
            cand --max-depth 'Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP'
            cand --dialect 'Skip detection and read every input as this dialect'
            cand --rejects 'Write the raw bytes of every invalid record to FILE, byte for byte'
            cand --color 'When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always or never'
            cand --restart-after 'End the command when it writes N invalid records within SECS seconds, and start it again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex: exec resume ID; opencode: run --session ID)'
            cand --max-restarts 'How many times the command may be restarted; after that, PROC_GAVE_UP'
            cand --grace 'Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live on after its result (then it is ended, and that is a success)'
            cand --idle-timeout 'No output for SECS seconds is a stall (PROC_STALLED): the command is ended and restarted; without a restart left, ndjq exits 124'
            cand --restart-cmd 'The command line that resumes a session, `{session_id}` standing for its id, for agents other than claude and codex (words split like a shell; nothing expanded)'
            cand --tee 'Save every byte the command writes on stdout to FILE, as it came, before anything is checked'
            cand --stderr 'Write the command''s stderr to FILE instead of ndjq''s stderr'
            cand --recover 'Take JSON objects out of text lines and reassemble pretty-printed ones (see `ndjq filter --help`)'
            cand --line-buffered 'Flush after every record. Automatic when stdin is a pipe and stdout is not a file, so a live agent''s lines come through as they are written'
            cand -q 'Print no diagnostics on stderr'
            cand --quiet 'Print no diagnostics on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ndjq;man'= {
            cand --dir 'Write every page into DIR (created if missing): ndjq.1 and one ndjq-COMMAND.1 per command, instead of printing ndjq.1 on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ndjq;completions'= {
            cand --dir 'Write the script(s) into DIR (created if missing) under the names the shells look for (ndjq.bash, _ndjq, ndjq.fish, ndjq.elv, _ndjq.ps1), instead of printing on stdout'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'ndjq;help'= {
            cand validate 'Report every problem in a stream with its location; exit 1 when any is serious'
            cand gaps 'Report what is missing from a stream: lost lines, results, answers; exit 1 on any'
            cand filter 'Pass through the original bytes of the records that match, like grep for NDJSON'
            cand events 'One normalized event per content block or item: who said what, tool calls, usage'
            cand stats 'Totals and breakdowns: records, sessions, tokens, cost, tools, errors'
            cand run 'Supervise an agent: its output live; restarted (resumed) on garbage or stalls'
            cand man 'Print the manual page (roff), or write one page per command into a folder'
            cand completions 'Print the completion script of a shell, or write every shell''s into a folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ndjq;help;validate'= {
        }
        &'ndjq;help;gaps'= {
        }
        &'ndjq;help;filter'= {
        }
        &'ndjq;help;events'= {
        }
        &'ndjq;help;stats'= {
        }
        &'ndjq;help;run'= {
        }
        &'ndjq;help;man'= {
        }
        &'ndjq;help;completions'= {
        }
        &'ndjq;help;help'= {
        }
    ]
    $completions[$command]
}
