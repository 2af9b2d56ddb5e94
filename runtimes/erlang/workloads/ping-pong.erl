%% Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units at once; in
%% each pair a pinger sends a count, starting at 0, to its ponger, which
%% sends back the count plus one; the pinger sends that count plus one
%% again, until it has had `rounds` replies. Each pinger then stops its
%% ponger and reports the last count it received; the caller awaits every
%% unit and sums the counts.
-module(concbench_ping_pong).

-export([process/1]).

%% Savina's PingPong as Erlang plays it: each ping carries the pinger's pid,
%% the ponger replies to it, so the ponger is started first and knows no one.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Pairs = concbench_kit:param(Run, pairs),
    Rounds = concbench_kit:param(Run, rounds),
    lists:foreach(
        fun(_) ->
            {Ponger, _} = concbench_kit:spawn_unit(Run, fun pong/0),
            concbench_kit:spawn_unit(Run, fun() -> ping(Ponger, 0, Rounds) end)
        end,
        lists:seq(1, Pairs)
    ),
    Count = concbench_kit:await_units(2 * Pairs, fun sum_counts/2, 0),
    #{result => #{count => Count}}.

%% The pinger: sends Count and awaits the reply; after the last one it stops
%% the ponger and returns that reply's count.
ping(Ponger, Count, Rounds) ->
    Ponger ! {ping, self(), Count},
    receive
        {pong, Reply} when Rounds =:= 1 ->
            Ponger ! stop,
            {count, Reply};
        {pong, Reply} ->
            ping(Ponger, Reply + 1, Rounds - 1)
    end.

pong() ->
    receive
        {ping, Pinger, Count} ->
            Pinger ! {pong, Count + 1},
            pong();
        stop ->
            stopped
    end.

%% The pingers' counts; the pongers' values are stopped.
sum_counts({count, Count}, Sum) -> Sum + Count;
sum_counts(stopped, Sum) -> Sum.
