%% Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
%% whole of a file of `file_size` bytes, written in the scratch directory
%% before the clocks, and appends as many characters as its LCG draw in
%% [0, 10] says; the result is the sum of the lengths.
-module(concbench_map_io).

-export([process/1]).

-include_lib("kernel/include/file.hrl").

%% A unit that cannot read the file fails, and the trial with it.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Path = filename:join(concbench_kit:scratch(Run), "map-io"),
    ok = file:write_file(Path, binary:copy(<<"x">>, concbench_kit:param(Run, file_size))),
    Inputs = concbench_lcg:draws(concbench_kit:param(Run, cases), 0, 10),
    Evaluate = fun(N) -> byte_size(<<(read_whole(Path))/binary, (binary:copy(<<"x">>, N))/binary>>) end,
    Outcome = concbench_workermodes:process(Run, [length], Evaluate, fun(Map) ->
        #{length => lists:sum(Map(Inputs))}
    end),
    ok = file:delete(Path),
    Outcome.

%% The file's content, read by the calling process itself: a raw file, which
%% prim_file's NIFs read on the BEAM's dirty I/O schedulers, where
%% file:read_file/1 would have the file server, one process for every unit,
%% read it for them. As os.ReadFile does: its size, then reads until the end.
read_whole(Path) ->
    {ok, File} = file:open(Path, [read, raw, binary]),
    try
        {ok, #file_info{size = Size}} = file:read_file_info(File),
        read_rest(File, max(Size, 1), <<>>)
    after
        ok = file:close(File)
    end.

read_rest(File, Chunk, Read) ->
    case file:read(File, Chunk) of
        {ok, Data} -> read_rest(File, Chunk, <<Read/binary, Data/binary>>);
        eof -> Read
    end.
