%% Invocation, shared by invoke and invoke-waiting (workloads/invoke.toml):
%% one operation starts a unit whose body increments a counter, and gets
%% its result, in the way `mode` says: await (start one, await it), batch
%% (start a batch, await them all) or forget (start a batch, yield once so
%% that they run, and await them all after the time box).
-module(concbench_invocation).

-export([process/2]).

%% Runs the workload with Wait called first in each body (invoke-waiting's
%% yield, or nothing). The counter is a one-slot atomics array, memory the
%% units share; a unit is awaited by its 'DOWN' (concbench_kit:await_units).
-spec process(concbench_kit:run(), fun(() -> term())) -> map().
process(Run, Wait) ->
    Batch = concbench_kit:param(Run, batch),
    Counter = atomics:new(1, []),
    Body = fun() ->
        Wait(),
        atomics:add(Counter, 1, 1)
    end,
    Start = fun() -> concbench_kit:spawn_unit(Run, Body) end,
    Rate =
        case concbench_kit:param(Run, mode) of
            <<"await">> ->
                element(2, concbench_kit:rate(Run, fun() -> repeat(Batch, fun() -> Start(), await(1) end) end));
            <<"batch">> ->
                element(2, concbench_kit:rate(Run, fun() -> repeat(Batch, Start), await(Batch) end));
            <<"forget">> ->
                {Batches, Forgot} = concbench_kit:rate(Run, fun() -> repeat(Batch, Start), erlang:yield() end),
                await(Batches * Batch),
                Forgot
        end,
    #{result => #{count => atomics:get(Counter, 1)}, rate => Rate}.

repeat(0, _Operation) ->
    done;
repeat(Times, Operation) ->
    Operation(),
    repeat(Times - 1, Operation).

await(Units) -> concbench_kit:await_units(Units, fun(_Added, none) -> none end, none).
