%% Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
%% jobs; job j looks up key j mod `keys` in a table made before the timing
%% (key k holds 2k + 1) and returns its value. All jobs are submitted, then
%% all are awaited, and the values summed.
-module(concbench_pool).

-export([process/1]).

%% `pool_size` worker processes taking jobs from one shared queue, as every
%% other kit's workers do: the queue is a dispatcher process, which hands
%% the next job to whichever worker asks (Erlang's pull pattern), so that a
%% worker that finishes early takes more. The dispatcher is the queue, not a
%% unit. The table is an ETS table with read concurrency, the BEAM's table
%% that processes share without copying it.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    PoolSize = concbench_kit:param(Run, pool_size),
    Jobs = concbench_kit:param(Run, jobs),
    Keys = concbench_kit:param(Run, keys),
    Table = ets:new(pool_table, [set, {read_concurrency, true}]),
    ets:insert(Table, [{Key, 2 * Key + 1} || Key <- lists:seq(0, Keys - 1)]),
    {Sum, Span} = concbench_kit:timed(fun() -> serve(Run, Table, PoolSize, Jobs, Keys) end),
    ets:delete(Table),
    #{result => #{sum => Sum}, span => Span}.

%% Submits every job, then closes the queue; awaits the values, the
%% dispatcher's end (before the units', whose 'DOWN's await_units/3 takes
%% whoever sent them) and the workers'.
serve(Run, Table, PoolSize, Jobs, Keys) ->
    Caller = self(),
    {Queue, QueueDown} = spawn_monitor(fun() -> dispatch(queue:new(), [], open, PoolSize) end),
    [concbench_kit:spawn_unit(Run, fun() -> work(Queue, Caller, Table, Keys) end) || _ <- lists:seq(1, PoolSize)],
    [Queue ! {job, Job} || Job <- lists:seq(0, Jobs - 1)],
    Queue ! close,
    Sum = sum_values(Jobs, 0),
    receive
        {'DOWN', QueueDown, process, Queue, normal} -> ok
    end,
    concbench_kit:await_units(PoolSize, fun(stopped, none) -> none end, none),
    Sum.

%% The shared queue: the jobs not yet taken, in the order submitted, and the
%% workers that asked while there were none. Once it is closed and empty,
%% each worker that asks is told to stop, and the dispatcher ends with the
%% last of the Running workers.
dispatch(_Pending, _Idle, closed, 0) ->
    done;
dispatch(Pending, Idle, State, Running) ->
    receive
        {job, Job} ->
            case Idle of
                [Worker | Rest] ->
                    Worker ! {job, Job},
                    dispatch(Pending, Rest, State, Running);
                [] ->
                    dispatch(queue:in(Job, Pending), [], State, Running)
            end;
        {next, Worker} ->
            case queue:out(Pending) of
                {{value, Job}, Rest} ->
                    Worker ! {job, Job},
                    dispatch(Rest, Idle, State, Running);
                {empty, _} when State =:= open ->
                    dispatch(Pending, [Worker | Idle], State, Running);
                {empty, _} ->
                    Worker ! stop,
                    dispatch(Pending, Idle, State, Running - 1)
            end;
        close ->
            %% A worker waits only while the queue is empty: every one
            %% waiting now is done.
            [Worker ! stop || Worker <- Idle],
            dispatch(Pending, [], closed, Running - length(Idle))
    end.

work(Queue, Caller, Table, Keys) ->
    Queue ! {next, self()},
    receive
        {job, Job} ->
            [{_, Value}] = ets:lookup(Table, Job rem Keys),
            Caller ! {value, Value},
            work(Queue, Caller, Table, Keys);
        stop ->
            stopped
    end.

sum_values(0, Sum) ->
    Sum;
sum_values(Pending, Sum) ->
    receive
        {value, Value} -> sum_values(Pending - 1, Sum + Value)
    end.
