%% Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
%% jobs; job j looks up key j mod `keys` in a table made before the timing
%% (key k holds 2k + 1) and returns its value. All jobs are submitted, then
%% all are awaited, and the values summed.
-module(concbench_pool).

-export([process/1]).

%% `pool_size` worker processes, each serving the jobs sent to its mailbox
%% (job j to worker j mod pool_size) and sending back each value. The table
%% is an ETS table with read concurrency, the BEAM's table that processes
%% share without copying it.
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

serve(Run, Table, PoolSize, Jobs, Keys) ->
    Caller = self(),
    Workers = list_to_tuple([
        element(1, concbench_kit:spawn_unit(Run, fun() -> work(Caller, Table, Keys) end))
     || _ <- lists:seq(1, PoolSize)
    ]),
    [element(Job rem PoolSize + 1, Workers) ! {job, Job} || Job <- lists:seq(0, Jobs - 1)],
    Sum = sum_values(Jobs, 0),
    [Worker ! stop || Worker <- tuple_to_list(Workers)],
    concbench_kit:await_units(PoolSize, fun(stopped, none) -> none end, none),
    Sum.

work(Caller, Table, Keys) ->
    receive
        {job, Job} ->
            [{_, Value}] = ets:lookup(Table, Job rem Keys),
            Caller ! {value, Value},
            work(Caller, Table, Keys);
        stop ->
            stopped
    end.

sum_values(0, Sum) ->
    Sum;
sum_values(Pending, Sum) ->
    receive
        {value, Value} -> sum_values(Pending - 1, Sum + Value)
    end.
