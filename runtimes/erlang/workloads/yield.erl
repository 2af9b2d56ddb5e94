%% Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
%% unit yields to its scheduler and is resumed; `partners` more units yield
%% in a loop beside it. Every unit adds one to a shared turn counter each
%% time it runs; a yield after which the counter has moved is switched.
-module(concbench_yield).

-export([process/1]).

%% The measured unit is a process running the kit's rate loop; a yield is
%% erlang:yield/0. The BEAM's scheduler is no code of ours, so only the
%% units move the counter, a one-slot atomics array they share.
%%
%% With partners, the trial runs on one scheduler: schedulers_online is set
%% to 1 before the clocks and restored after them, as go/goroutine runs on
%% one processor and c/pthread pins its threads to one CPU. With one
%% scheduler per core, a partner would move the counter in parallel on
%% another, and yields that switched nothing would count as switched.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Partners = concbench_kit:param(Run, partners),
    Online = confine(Partners),
    Turn = atomics:new(1, [{signed, true}]),
    Stop = atomics:new(1, []),
    [concbench_kit:spawn_unit(Run, fun() -> partner(Turn, Stop) end) || _ <- lists:seq(1, Partners)],
    concbench_kit:spawn_unit(Run, fun() -> measured(Run, Turn, Stop) end),
    %% Still timed: the partners, stopped by the measured unit, are awaited.
    {Rate, Yields, Switched} = concbench_kit:await_units(Partners + 1, fun took/2, none),
    Stopped = concbench_kit:stop_clocks(Rate),
    erlang:system_flag(schedulers_online, Online),
    #{result => #{count => Yields}, evidence => #{switched => Switched}, rate => Stopped}.

%% One scheduler online where there are partners: the number online before.
confine(0) -> erlang:system_info(schedulers_online);
confine(_Partners) -> erlang:system_flag(schedulers_online, 1).

partner(Turn, Stop) ->
    case atomics:get(Stop, 1) of
        0 ->
            atomics:add(Turn, 1, 1),
            erlang:yield(),
            partner(Turn, Stop);
        _ ->
            stopped
    end.

%% Yields `batch` times a batch until the time box has passed, then stops
%% the partners: the rate, and the yields it counted and those after which
%% the counter had moved (slots of an atomics array of its own: the rate
%% loop's batch returns nothing).
-define(YIELDS, 1).
-define(SWITCHED, 2).
measured(Run, Turn, Stop) ->
    Batch = concbench_kit:param(Run, batch),
    Counts = atomics:new(2, []),
    {_Batches, Rate} = concbench_kit:rate(Run, fun() -> yields(Batch, Turn, Counts) end),
    atomics:put(Stop, 1, 1),
    {Rate, atomics:get(Counts, ?YIELDS), atomics:get(Counts, ?SWITCHED)}.

yields(0, _Turn, _Counts) ->
    done;
yields(Left, Turn, Counts) ->
    Seen = atomics:add_get(Turn, 1, 1),
    erlang:yield(),
    atomics:add(Counts, ?YIELDS, 1),
    case atomics:get(Turn, 1) of
        Seen -> ok;
        _ -> atomics:add(Counts, ?SWITCHED, 1)
    end,
    yields(Left - 1, Turn, Counts).

%% The measured unit's value; the partners' are `stopped`.
took(stopped, Acc) -> Acc;
took(Measured, none) -> Measured.
