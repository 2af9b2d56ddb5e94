%% Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
%% (i + 1) x tarai(9, 4, 0), 55,229 calls that return 9; the unit that
%% evaluates a case multiplies, so evaluating the wrong cases gives a wrong
%% sum.
-module(concbench_map_cpu).

-export([process/1]).

-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Inputs = lists:seq(0, concbench_kit:param(Run, cases) - 1),
    concbench_workermodes:process(Run, [sum], fun(I) -> (I + 1) * tarai(9, 4, 0) end, fun(Map) ->
        #{sum => lists:sum(Map(Inputs))}
    end).

tarai(X, Y, _Z) when X =< Y -> Y;
tarai(X, Y, Z) -> tarai(tarai(X - 1, Y, Z), tarai(Y - 1, Z, X), tarai(Z - 1, X, Y)).
