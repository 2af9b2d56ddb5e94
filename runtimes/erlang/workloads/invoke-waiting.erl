%% Invocation with a wait (workloads/invoke-waiting.toml): as invoke, but
%% each body yields to its scheduler once, erlang:yield/0, before it
%% increments the counter (concbench_invocation).
-module(concbench_invoke_waiting).

-export([process/1]).

-spec process(concbench_kit:run()) -> map().
process(Run) -> concbench_invocation:process(Run, fun erlang:yield/0).
