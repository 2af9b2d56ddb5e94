%% I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
%% SOCK_STREAM socket pair, a writer unit and a reader unit; the writer
%% writes `messages` blocks of `size` bytes and shuts its side down for
%% writing, the reader reads until EOF and counts the bytes.
-module(concbench_socketpair).

-export([process/1]).

%% The BEAM has no socketpair: each pair is a gen_tcp socket connected to a
%% listening one bound in the scratch directory ({local, Path}, AF_UNIX) and
%% the one accepted from it, after which the listening socket is closed and
%% its path removed. The pairs are made before the clocks, so that binding
%% and accepting, which socketpair(2) does not do, are not measured. Each
%% end is passive ({active, false}) and handed to its unit, which becomes
%% its controlling process and closes it.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Groups = concbench_kit:param(Run, groups),
    Messages = concbench_kit:param(Run, messages),
    Block = binary:copy(<<"x">>, concbench_kit:param(Run, size)),
    Scratch = concbench_kit:scratch(Run),
    Pairs = [pair(filename:join(Scratch, "socketpair-" ++ integer_to_list(G))) || G <- lists:seq(1, Groups)],
    {Bytes, Span} = concbench_kit:timed(fun() ->
        [
            begin
                concbench_sockets:hand(Run, Writer, fun(Socket) -> write(Socket, Messages, Block) end),
                concbench_sockets:hand(Run, Reader, fun(Socket) -> read(Socket, 0) end)
            end
         || {Writer, Reader} <- Pairs
        ],
        concbench_kit:await_units(2 * Groups, fun count/2, 0)
    end),
    #{result => #{bytes => Bytes}, span => Span}.

pair(Path) ->
    Options = [binary, {active, false}],
    {ok, Listener} = gen_tcp:listen(0, [{ifaddr, {local, Path}} | Options]),
    {ok, Writer} = gen_tcp:connect({local, Path}, 0, Options),
    {ok, Reader} = gen_tcp:accept(Listener),
    ok = gen_tcp:close(Listener),
    ok = file:delete(Path),
    {Writer, Reader}.

%% The writer: its blocks, then the end of its stream.
write(Socket, 0, _Block) ->
    ok = gen_tcp:shutdown(Socket, write),
    ok = gen_tcp:close(Socket),
    written;
write(Socket, Messages, Block) ->
    ok = gen_tcp:send(Socket, Block),
    write(Socket, Messages - 1, Block).

%% The reader: whatever has arrived, until the writer's end of stream.
read(Socket, Read) ->
    case gen_tcp:recv(Socket, 0) of
        {ok, Data} ->
            read(Socket, Read + byte_size(Data));
        {error, closed} ->
            ok = gen_tcp:close(Socket),
            {read, Read}
    end.

%% The bytes the readers read.
count(written, Bytes) -> Bytes;
count({read, Read}, Bytes) -> Bytes + Read.
