%% Mere invocation (workloads/invoke.toml): one operation starts a unit
%% whose body increments a counter and gets its result, in the way `mode`
%% says (concbench_invocation).
-module(concbench_invoke).

-export([process/1]).

-spec process(concbench_kit:run()) -> map().
process(Run) -> concbench_invocation:process(Run, fun() -> ok end).
