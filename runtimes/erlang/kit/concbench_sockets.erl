%% Sockets: handing one to the unit that serves it (socketpair, echo), and
%% saying where a server listens (echo).
-module(concbench_sockets).

-export([hand/3, announce/1]).

%% Starts a unit that serves Socket once it controls it: the unit waits
%% until gen_tcp:controlling_process/2 has made it the owner, which then
%% closes the socket with it if it fails.
-spec hand(concbench_kit:run(), gen_tcp:socket(), fun((gen_tcp:socket()) -> term())) -> ok.
hand(Run, Socket, Serve) ->
    {Unit, _} = concbench_kit:spawn_unit(Run, fun() ->
        receive
            {socket, Socket} -> Serve(Socket)
        end
    end),
    ok = gen_tcp:controlling_process(Socket, Unit),
    Unit ! {socket, Socket},
    ok.

%% Says where a server's Listener listens, before its clock starts: one line
%% on stdout, {"listening": "tcp:127.0.0.1:PORT"} or {"listening":
%% "unix:PATH"}, which the harness reads as it comes and hands to its load
%% generator (the answer is still the last line).
-spec announce(gen_tcp:socket()) -> ok.
announce(Listener) ->
    Address =
        case inet:sockname(Listener) of
            {ok, {local, Path}} -> ["unix:", Path];
            {ok, {Ip, Port}} -> ["tcp:", inet:ntoa(Ip), $:, integer_to_list(Port)]
        end,
    io:put_chars([concbench_json:encode(#{listening => iolist_to_binary(Address)}), $\n]).
