%% Futures (workloads/future.toml): create `futures` futures, all before
%% awaiting any; future i computes (i x i) mod 1,000; then await each one
%% and sum the values.
-module(concbench_future).

-export([process/1]).

%% Erlang's future is a process that sends its value to the one awaiting
%% it (as rpc:async_call's does); the caller sums the values as they come
%% and awaits every process's 'DOWN'.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Futures = concbench_kit:param(Run, futures),
    [concbench_kit:spawn_unit(Run, fun() -> I * I rem 1000 end) || I <- lists:seq(0, Futures - 1)],
    #{result => #{sum => concbench_kit:await_units(Futures, fun erlang:'+'/2, 0)}}.
