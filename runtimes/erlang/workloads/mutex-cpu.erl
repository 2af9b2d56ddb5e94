%% Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one mutex and one
%% counter; each of `workers` units, in its iteration I of `iterations`,
%% makes the subject, "foobar" * 100 followed by I (a new binary each time,
%% so that no engine answers from an earlier match), locks, reads the
%% group's counter, matches /foo(.+)$/ against the subject, writes back the
%% counter read plus the capture's length (597 plus I's digits) and unlocks.
-module(concbench_mutex_cpu).

-export([process/1]).

%% The lock is a lock process (concbench_lock), the counter a one-slot
%% atomics array (memory the group's processes share), read and written
%% apart under the lock. The engine is Erlang's re module, PCRE
%% (backtracking), the pattern compiled before the clocks; a compiled
%% pattern is a plain term every process can use.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Groups = concbench_kit:param(Run, groups),
    Iterations = concbench_kit:param(Run, iterations),
    {ok, Pattern} = re:compile(<<"foo(.+)$">>),
    Prefix = binary:copy(<<"foobar">>, 100),
    Counters = [{concbench_lock:new(), atomics:new(1, [])} || _ <- lists:seq(1, Groups)],
    SubjectOf = fun(I) -> <<Prefix/binary, (integer_to_binary(I))/binary>> end,
    Critical = fun(Counter, Subject) ->
        Read = atomics:get(Counter, 1),
        {match, [Capture]} = re:run(Subject, Pattern, [{capture, all_but_first, binary}]),
        atomics:put(Counter, 1, Read + byte_size(Capture))
    end,
    {Contended, Span} = concbench_kit:timed(fun() ->
        concbench_lock:contend(Run, Counters, Iterations, SubjectOf, Critical)
    end),
    [concbench_lock:stop(Lock) || {Lock, _} <- Counters],
    Sum = lists:sum([atomics:get(Counter, 1) || {_, Counter} <- Counters]),
    #{result => #{sum => Sum}, evidence => #{contended => Contended}, span => Span}.
