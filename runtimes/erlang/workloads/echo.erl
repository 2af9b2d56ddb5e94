%% Echo (workloads/echo.toml): a server. Before the clock it listens on a
%% loopback TCP port, or a Unix stream socket in the scratch directory, and
%% says where; in the run it accepts `connections` connections and, on each,
%% writes back every byte it reads until the client closes, then closes it.
-module(concbench_echo).

-export([process/1]).

%% gen_tcp's process-per-connection server: the caller accepts each
%% connection and hands it to a process of its own, which reads what has
%% arrived from its passive socket ({active, false}) and sends it back. The
%% listener is closed (and its path removed) after the clock.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Connections = concbench_kit:param(Run, connections),
    {Listener, Path} = listen(Run, Connections),
    Held = concbench_kit:new_gauge(),
    concbench_sockets:announce(Listener),
    {{Served, Bytes}, Span} = concbench_kit:timed(fun() ->
        accept(Run, Listener, Held, Connections),
        concbench_kit:await_units(Connections, fun count/2, {0, 0})
    end),
    ok = gen_tcp:close(Listener),
    ok = remove(Path),
    #{
        result => #{connections => Served, bytes => Bytes},
        evidence => #{held => concbench_kit:gauge_peak(Held)},
        span => Span
    }.

%% An accepted socket inherits the listener's options: binary, passive, a
%% driver buffer (what one recv reads at most) of a request at least and,
%% over TCP, TCP_NODELAY ({nodelay, true}), as an echo server sets it.
listen(Run, Connections) ->
    Buffer = max(concbench_kit:param(Run, size), 4096),
    Options = [binary, {active, false}, {buffer, Buffer}, {backlog, Connections}],
    case concbench_kit:param(Run, transport) of
        <<"tcp">> ->
            {ok, Listener} = gen_tcp:listen(0, [{ip, {127, 0, 0, 1}}, {nodelay, true} | Options]),
            {Listener, none};
        <<"unix">> ->
            Path = filename:join(concbench_kit:scratch(Run), "echo.sock"),
            ok = remove(Path),
            {ok, Listener} = gen_tcp:listen(0, [{ifaddr, {local, Path}} | Options]),
            {Listener, Path}
    end.

%% Removes the socket's file: a previous run's before listening, this run's
%% after.
remove(none) ->
    ok;
remove(Path) ->
    case file:delete(Path) of
        ok -> ok;
        {error, enoent} -> ok
    end.

accept(_Run, _Listener, _Held, 0) ->
    ok;
accept(Run, Listener, Held, Left) ->
    {ok, Socket} = gen_tcp:accept(Listener),
    concbench_kit:gauge_up(Held),
    ok = concbench_sockets:hand(Run, Socket, fun(Connection) -> echo(Connection, Held, 0) end),
    accept(Run, Listener, Held, Left - 1).

%% Sends back whatever has arrived (gen_tcp:send sends all of it) until the
%% client closes; then closes the connection.
echo(Socket, Held, Echoed) ->
    case gen_tcp:recv(Socket, 0) of
        {ok, Data} ->
            ok = gen_tcp:send(Socket, Data),
            echo(Socket, Held, Echoed + byte_size(Data));
        {error, closed} ->
            ok = gen_tcp:close(Socket),
            concbench_kit:gauge_down(Held),
            {echoed, Echoed}
    end.

%% The connections served and the bytes sent back.
count({echoed, Echoed}, {Served, Bytes}) -> {Served + 1, Bytes + Echoed}.
