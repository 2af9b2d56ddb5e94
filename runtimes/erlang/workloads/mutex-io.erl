%% Mutex, I/O-bound (workloads/mutex-io.toml): per group one mutex, one file
%% in the scratch directory and the file's end, shared by its units; each of
%% `workers` units, `iterations` times, locks, reads the group's end, writes
%% `size` bytes at that offset (file:pwrite/3), stores the end plus `size`
%% and unlocks. The files are made before the clocks; their sizes are
%% summed, and the files removed, after the clocks stop.
-module(concbench_mutex_io).

-export([process/1]).

%% The lock is a lock process (concbench_lock), the end a one-slot atomics
%% array read and stored apart under the lock. A raw file can be used by
%% the process that opened it only, so a group's file is opened the BEAM's
%% ordinary way: its file server, a process, makes each pwrite it is asked
%% for, one system call, for whichever unit holds the lock.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Groups = concbench_kit:param(Run, groups),
    Iterations = concbench_kit:param(Run, iterations),
    Size = concbench_kit:param(Run, size),
    Paths = [filename:join(concbench_kit:scratch(Run), "mutex-io-" ++ integer_to_list(G)) || G <- lists:seq(1, Groups)],
    Files = [{concbench_lock:new(), {open(Path), atomics:new(1, [])}} || Path <- Paths],
    Block = binary:copy(<<"x">>, Size),
    Critical = fun({File, End}) ->
        Offset = atomics:get(End, 1),
        ok = file:pwrite(File, Offset, Block),
        atomics:put(End, 1, Offset + Size)
    end,
    {Contended, Span} = concbench_kit:timed(fun() ->
        concbench_lock:contend(Run, Files, Iterations, Critical)
    end),
    [ok = file:close(File) || {_, {File, _}} <- Files],
    [concbench_lock:stop(Lock) || {Lock, _} <- Files],
    Bytes = lists:sum([filelib:file_size(Path) || Path <- Paths]),
    [ok = file:delete(Path) || Path <- Paths],
    #{result => #{bytes => Bytes}, evidence => #{contended => Contended}, span => Span}.

open(Path) ->
    {ok, File} = file:open(Path, [write, exclusive, binary]),
    File.
