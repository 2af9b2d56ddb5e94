%% A lock as a process, the BEAM's mutex (it has none shared between
%% processes): mutex-cpu and mutex-io share it.
%%
%% The lock process grants itself to one holder at a time, the others in
%% the order they asked. Its grant says whether the requester found it held
%% (and so waited): that is the workloads' `contended` evidence, as the lock
%% itself saw it.
-module(concbench_lock).

-export([new/0, stop/1, contend/4, contend/5]).

-export_type([lock/0]).

-type lock() :: pid().

%% A free lock, linked to the caller.
-spec new() -> lock().
new() -> spawn_link(fun free/0).

-spec stop(lock()) -> ok.
stop(Lock) ->
    Lock ! stop,
    ok.

%% Starts `Workers` units per group of Groups, each a lock and the datum
%% its critical section takes; each unit enters Critical(Datum) `Iterations`
%% times under its group's lock. Awaits them all: the acquisitions that
%% found the lock held.
-spec contend(concbench_kit:run(), [{lock(), Datum}], pos_integer(), fun((Datum) -> term())) -> non_neg_integer().
contend(Run, Groups, Iterations, Critical) ->
    contend(Run, Groups, Iterations, fun(_) -> none end, fun(Datum, none) -> Critical(Datum) end).

%% As contend/4, but in its iteration I (from 0) a unit first makes
%% Input = Before(I), without the lock, and then enters
%% Critical(Datum, Input) under it.
-spec contend(
    concbench_kit:run(), [{lock(), Datum}], pos_integer(), fun((non_neg_integer()) -> Input), fun((Datum, Input) -> term())
) -> non_neg_integer().
contend(Run, Groups, Iterations, Before, Critical) ->
    Workers = concbench_kit:param(Run, workers),
    [
        concbench_kit:spawn_unit(Run, fun() -> work(Lock, Datum, {Before, Critical}, 0, Iterations, 0) end)
     || {Lock, Datum} <- Groups, _ <- lists:seq(1, Workers)
    ],
    concbench_kit:await_units(length(Groups) * Workers, fun erlang:'+'/2, 0).

work(_Lock, _Datum, _Steps, Iterations, Iterations, Contended) ->
    Contended;
work(Lock, Datum, {Before, Critical} = Steps, I, Iterations, Contended) ->
    Input = Before(I),
    Lock ! {acquire, self()},
    receive
        {granted, Lock, Waited} ->
            Critical(Datum, Input),
            Lock ! release,
            work(Lock, Datum, Steps, I + 1, Iterations, Contended + count(Waited))
    end.

count(true) -> 1;
count(false) -> 0.

free() ->
    receive
        {acquire, From} ->
            From ! {granted, self(), false},
            held(queue:new());
        stop ->
            stopped
    end.

%% Held: requests wait, oldest first; a release passes the lock on.
held(Waiting) ->
    receive
        {acquire, From} ->
            held(queue:in(From, Waiting));
        release ->
            case queue:out(Waiting) of
                {{value, Next}, Rest} ->
                    Next ! {granted, self(), true},
                    held(Rest);
                {empty, _} ->
                    free()
            end
    end.
