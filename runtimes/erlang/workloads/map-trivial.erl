%% Worker modes: trivial work (workloads/map-trivial.toml): each case takes
%% an integer from the LCG in [-1,000,000, 1,000,000] and computes x + 1;
%% the result is the sum.
-module(concbench_map_trivial).

-export([process/1]).

-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Inputs = concbench_lcg:draws(concbench_kit:param(Run, cases), -1_000_000, 1_000_000),
    concbench_workermodes:process(Run, [sum], fun(X) -> X + 1 end, fun(Map) ->
        #{sum => lists:sum(Map(Inputs))}
    end).
