# fish completion for mapscope.  tests/test_completion_shells.sh checks it
# against every command's --help.

set -l mapscope_commands list at stale who libs snapshot record diff

function __mapscope_pids
    for p in /proc/[0-9]*
        string replace /proc/ '' -- $p
    end
end

# mapscope_columns COMMAND: the columns -o takes there (and with --by-file),
# from the program's own list so that they cannot drift; after "A,B," the
# next one.
function __mapscope_columns
    set -l line (commandline -opc)
    set -l by
    contains -- --by-file $line; and set by --by-file
    set -l pre (string replace -r '[^,+]*$' '' -- (commandline -ct))
    for name in ($line[1] $argv[1] $by --list-columns --raw 2>/dev/null | string replace -r ' .*' '')
        echo $pre$name
    end
end

complete -c mapscope -f

# The explorer and the commands.
set -l none "not __fish_seen_subcommand_from $mapscope_commands"
complete -c mapscope -n $none -a list -d 'the mappings of a process'
complete -c mapscope -n $none -a at -d 'the mapping, file offset (and symbol) at addresses'
complete -c mapscope -n $none -a stale -d 'processes that map deleted or replaced files'
complete -c mapscope -n $none -a who -d 'the processes that map FILE'
complete -c mapscope -n $none -a libs -d 'every mapped file, one line each: package, version, processes'
complete -c mapscope -n $none -a snapshot -d "save a process's map as a JSON document"
complete -c mapscope -n $none -a record -d "append each change of a process's map to a JSON-lines file"
complete -c mapscope -n $none -a diff -d 'compare two snapshots or live processes'
complete -c mapscope -n $none -a '(__mapscope_pids)' -d process
complete -c mapscope -n $none -s p -l pid -x -a '(__mapscope_pids)' -d 'the process to open'
complete -c mapscope -n $none -s d -l delay -x -d 'seconds between refreshes'
complete -c mapscope -n $none -l debuginfod -d 'g may fetch missing debug files from DEBUGINFOD_URLS'
complete -c mapscope -n $none -s V -l version -d 'the version'

# Every command and the explorer.
complete -c mapscope -s h -l help -d 'this help'
complete -c mapscope -l backend -x -a 'auto ioctl text' -d 'where mappings are read from'

# The table options, and each command's own.
for cmd in list at who diff stale libs
    set -l on "__fish_seen_subcommand_from $cmd"
    complete -c mapscope -n $on -s o -l output -x -a "(__mapscope_columns $cmd)" -d 'columns to show; +COLUMNS adds to the default'
    complete -c mapscope -n $on -s J -l json -d 'JSON output'
    complete -c mapscope -n $on -s r -l raw -d 'raw output'
    complete -c mapscope -n $on -s n -l noheadings -d 'no column headings'
    complete -c mapscope -n $on -s H -l list-columns -d 'list the columns -o takes'
end
for cmd in list at who diff libs
    complete -c mapscope -n "__fish_seen_subcommand_from $cmd" -s b -l bytes -d 'sizes in bytes'
end
for cmd in list who
    complete -c mapscope -n "__fish_seen_subcommand_from $cmd" -l perms -x -d 'only mappings with all these permissions (rwxs)'
end
for cmd in list at stale snapshot record
    complete -c mapscope -n "__fish_seen_subcommand_from $cmd" -a '(__mapscope_pids)' -d process
end

complete -c mapscope -n '__fish_seen_subcommand_from list' -l file-backed -d 'only mappings of files'
complete -c mapscope -n '__fish_seen_subcommand_from list' -l by-file -d 'one line per file, and per kind of anonymous memory'
complete -c mapscope -n '__fish_seen_subcommand_from list' -l total -d 'a last line with SIZE, RSS and SWAP summed'

complete -c mapscope -n '__fish_seen_subcommand_from at' -l debuginfod -d 'fetch missing debug files from DEBUGINFOD_URLS'

complete -c mapscope -n '__fish_seen_subcommand_from who' -F

set -l stale '__fish_seen_subcommand_from stale'
complete -c mapscope -n $stale -l all-mappings -d 'data files too, not only executable mappings'
complete -c mapscope -n $stale -l by-file -d 'list each file and the processes that map it'
complete -c mapscope -n $stale -l restart-plan -d 'the units to restart, and what a restart cannot fix'
complete -c mapscope -n $stale -l show -x -a 'all deleted replaced same-build unknown ignored ok' -d 'verdicts to list'
complete -c mapscope -n $stale -l ignore-file -r -F -d 'rules of files never flagged'
complete -c mapscope -n $stale -l openmetrics -d 'counts in OpenMetrics text'
complete -c mapscope -n $stale -l metrics-file -r -F -d 'OpenMetrics text, written atomically to FILE'

set -l snapshot '__fish_seen_subcommand_from snapshot'
complete -c mapscope -n $snapshot -s o -l output -r -F -d 'where to write; - is stdout'
complete -c mapscope -n $snapshot -l no-clobber -d 'leave an existing FILE untouched and fail'
complete -c mapscope -n $snapshot -l force -d 'overwrite FILE even if another user owns it'
complete -c mapscope -n $snapshot -l residency -d 'add RSS, swap and huge pages per mapping'
complete -c mapscope -n $snapshot -l no-packages -d 'leave the packages of the files out'

set -l record '__fish_seen_subcommand_from record'
complete -c mapscope -n $record -s o -l output -r -F -d 'the recording'
complete -c mapscope -n $record -s i -l interval -x -d 'time between looks (seconds)'
complete -c mapscope -n $record -s c -l count -x -d 'stop after N records'
complete -c mapscope -n $record -l force -d 'continue FILE even if another user owns it'

set -l diff '__fish_seen_subcommand_from diff'
complete -c mapscope -n $diff -l residency -d 'compare RSS and swap too'
complete -c mapscope -n $diff -l addresses -d 'match mappings by exact range'
complete -c mapscope -n $diff -l by-file -d 'compare the files mapped, packages and versions'
complete -c mapscope -n $diff -F -a '(__mapscope_pids)'

set -l libs '__fish_seen_subcommand_from libs'
complete -c mapscope -n $libs -l pid -x -a '(__mapscope_pids)' -d 'only these processes'
complete -c mapscope -n $libs -l pids -d "list each file's processes below it"
complete -c mapscope -n $libs -l all-mappings -d 'data files too, not only executable mappings'
complete -c mapscope -n $libs -l pss -d 'add PSS, from smaps'
complete -c mapscope -n $libs -l code-only -d 'memory of the code alone, not every mapping of the file'
complete -c mapscope -n $libs -l format -x -a 'table cyclonedx' -d 'table, or a CycloneDX 1.6 SBOM'
complete -c mapscope -n $libs -l installed -d 'with --format=cyclonedx, also the version installed beside an old copy that runs'
complete -c mapscope -n $libs -l openmetrics -d 'processes per package version in OpenMetrics text'
complete -c mapscope -n $libs -l metrics-file -r -F -d 'OpenMetrics text, written atomically to FILE'
complete -c mapscope -n $libs -l sbom-file -r -F -d 'the CycloneDX SBOM, written atomically to FILE'
