%% map-trivial, map-cpu, map-io and map-shrink, Pbt's worker modes (seed
%% 001): one operation is one evaluation, which the workload's evaluation
%% function makes with a map of its evaluate function over a list of inputs
%% (the results in the inputs' order). The kit's loop runs `batch`
%% evaluations a batch.
%%
%% The map is striped: for each evaluation, `workers` processes (0: one per
%% scheduler online), no more than there are inputs (as Parallel.map, which
%% Pbt calls, does); unit w of n evaluates the inputs w, w + n, ..., which
%% the caller deals it, and sends back their results, which the caller
%% interleaves into the inputs' order.
-module(concbench_workermodes).

-export([process/4, process/5, deal/2, interleave/1]).

-export_type([map_fun/2, mapper/2]).

%% A mechanism's map: the results of evaluating the inputs, in their order.
-type map_fun(In, Out) :: fun(([In]) -> [Out]).
%% What makes a mechanism's map from the run, its workers and Evaluate.
-type mapper(In, Out) :: fun((concbench_kit:run(), pos_integer(), fun((In) -> Out)) -> map_fun(In, Out)).

%% Runs the rate loop: Evaluation once an operation, with the map of
%% Evaluate; each evaluation returns its result, Names to integers, and the
%% run's result is their sum over the operations. Nothing is outstanding
%% after the loop, so the clocks stop there: what the workload does after
%% (removing its files) is untimed.
-spec process(
    concbench_kit:run(), [atom()], fun((In) -> Out), fun((map_fun(In, Out)) -> #{atom() => integer()})
) -> map().
process(Run, Names, Evaluate, Evaluation) -> process(Run, fun striped/3, Names, Evaluate, Evaluation).

%% As process/4, with the map Mapper makes (Elixir's Task rows).
-spec process(
    concbench_kit:run(),
    mapper(In, Out),
    [atom()],
    fun((In) -> Out),
    fun((map_fun(In, Out)) -> #{atom() => integer()})
) -> map().
process(Run, Mapper, Names, Evaluate, Evaluation) ->
    Batch = concbench_kit:param(Run, batch),
    Map = Mapper(Run, workers(Run), Evaluate),
    %% The totals are slots of an atomics array, named in the order of Names:
    %% the kit's loop keeps no state between batches.
    Slots = lists:zip(Names, lists:seq(1, length(Names))),
    Totals = atomics:new(length(Slots), [{signed, true}]),
    Operation = fun() ->
        Result = Evaluation(Map),
        [atomics:add(Totals, Slot, maps:get(Name, Result)) || {Name, Slot} <- Slots]
    end,
    {_Batches, Rate} = concbench_kit:rate(Run, fun() -> repeat(Batch, Operation) end),
    Stopped = concbench_kit:stop_clocks(Rate),
    #{result => maps:from_list([{Name, atomics:get(Totals, Slot)} || {Name, Slot} <- Slots]), rate => Stopped}.

workers(Run) ->
    case concbench_kit:param(Run, workers) of
        0 -> erlang:system_info(schedulers_online);
        Workers -> Workers
    end.

%% Each evaluation starts its own units, one per stripe, and awaits them all.
striped(Run, Workers, Evaluate) ->
    fun(Inputs) ->
        Stripes = deal(Inputs, min(Workers, length(Inputs))),
        [
            concbench_kit:spawn_unit(Run, fun() -> {W, lists:map(Evaluate, Stripe)} end)
         || {W, Stripe} <- lists:enumerate(0, Stripes)
        ],
        Evaluated = concbench_kit:await_units(length(Stripes), fun(Stripe, Acc) -> [Stripe | Acc] end, []),
        interleave([Results || {_, Results} <- lists:keysort(1, Evaluated)])
    end.

%% The inputs dealt round N stripes as cards are round players: stripe w
%% gets the inputs w, w + N, ...
-spec deal([In], pos_integer()) -> [[In]].
deal(Inputs, N) -> deal(Inputs, lists:duplicate(N, []), []).

deal([Input | Inputs], [Stripe | Waiting], Dealt) -> deal(Inputs, Waiting, [[Input | Stripe] | Dealt]);
deal([_ | _] = Inputs, [], Dealt) -> deal(Inputs, lists:reverse(Dealt), []);
deal([], Waiting, Dealt) -> [lists:reverse(Stripe) || Stripe <- lists:reverse(Dealt, Waiting)].

%% The stripes' results in the inputs' order: the first of every stripe,
%% then the second of every stripe, ... A stripe is never longer than one
%% before it, so the stripes that run out are the last.
-spec interleave([[Out]]) -> [Out].
interleave([]) -> [];
interleave(Stripes) ->
    [Result || [Result | _] <- Stripes] ++ interleave([Rest || [_ | Rest] <- Stripes, Rest =/= []]).

repeat(0, _Operation) ->
    done;
repeat(Times, Operation) ->
    Operation(),
    repeat(Times - 1, Operation).
