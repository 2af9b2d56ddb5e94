%% Ring (workloads/ring.toml): `nodes` units in a ring, each knowing the
%% next. The first starts a token at count 0; every pass adds one. When the
%% token reaches the first unit for the `laps`-th time, the first unit stops
%% it and reports its count; then every unit is stopped and awaited.
-module(concbench_ring).

-export([process/1]).

%% Erlang's classic process ring: the first node is started first, the
%% others each with the next one's pid, from the last (whose next is the
%% first) back; the first learns its next, the second node, last. A stop
%% message goes round once after the token and stops every node.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Nodes = concbench_kit:param(Run, nodes),
    Laps = concbench_kit:param(Run, laps),
    {First, _} = concbench_kit:spawn_unit(Run, fun() -> first_node(Laps) end),
    Second = lists:foldl(
        fun(_, Next) ->
            {Node, _} = concbench_kit:spawn_unit(Run, fun() -> pass_tokens(Next) end),
            Node
        end,
        First,
        lists:seq(2, Nodes)
    ),
    First ! {next, Second},
    Hops = concbench_kit:await_units(Nodes, fun keep_count/2, none),
    #{result => #{hops => Hops}}.

first_node(Laps) ->
    receive
        {next, Next} ->
            Next ! {token, 1},
            Count = lap(Next, 1, Laps),
            Next ! stop,
            Count
    end.

lap(Next, Lap, Laps) ->
    receive
        {token, Count} when Lap =:= Laps ->
            Count;
        {token, Count} ->
            Next ! {token, Count + 1},
            lap(Next, Lap + 1, Laps)
    end.

pass_tokens(Next) ->
    receive
        {token, Count} ->
            Next ! {token, Count + 1},
            pass_tokens(Next);
        stop ->
            Next ! stop,
            stopped
    end.

%% The first node's value is its count; the other nodes' are stopped.
keep_count(stopped, Count) -> Count;
keep_count(Count, _) -> Count.
