%% 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
%% sleeps `delay_ms` if that is more than 0, then returns i; await them all
%% and sum what they returned.
-module(concbench_spawn).

-export([process/1]).

%% A process per task, each sending the caller its i; the caller sums the
%% values as they come and awaits every process's 'DOWN'.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Tasks = concbench_kit:param(Run, tasks),
    Delay = concbench_kit:param(Run, delay_ms),
    start_tasks(Run, Tasks, Delay),
    #{result => #{sum => concbench_kit:await_units(Tasks, fun erlang:'+'/2, 0)}}.

%% A loop rather than a comprehension: a million tasks' pids and monitors
%% would make a list the caller's heap carries for nothing.
start_tasks(_Run, 0, _Delay) ->
    ok;
start_tasks(Run, Remaining, Delay) ->
    I = Remaining - 1,
    concbench_kit:spawn_unit(Run, fun() -> task(I, Delay) end),
    start_tasks(Run, I, Delay).

task(I, 0) ->
    I;
task(I, Delay) ->
    timer:sleep(Delay),
    I.
