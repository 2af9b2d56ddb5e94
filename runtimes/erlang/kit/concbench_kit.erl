%% The concbench Erlang kit: serves one trial (docs/protocol.md), the
%% request on stdin and the answer as the last line of stdout.
%%
%% A workload is a module in workloads/<id>.erl, one exported function of
%% arity 1 per mechanism, named after it. Its module is concbench_<id> (dashes
%% as underscores): queue and pool are names of OTP's own modules. The
%% Makefile compiles workloads/<id>.erl to build/workloads/<id>.beam, and the
%% kit loads that file, so that the file's name is the workload id.
%%
%% A mechanism takes the run (param/2 reads its parameters), does the whole
%% job of one run (starts its units, awaits every one, closes what it
%% opened) and returns #{result => #{Name => Integer}}, with evidence =>
%% #{Name => Count | null} where the spec declares some. The kit times the
%% whole call, unless the mechanism hands it its work with timed/1 and
%% returns the span it gave, span => Span: what it does before (a table the
%% jobs read) and after (deleting it) is then untimed.
%%
%% Rate workloads (docs/protocol.md, "Rate workloads"): the mechanism sets
%% up, then hands the kit one batch of `batch` operations with rate/2, which
%% starts the clocks and calls it until `seconds` have passed, reading the
%% clock once a batch; the mechanism then, still timed, awaits what is
%% outstanding and returns rate => Rate, and the kit stops the clocks; or,
%% with nothing outstanding, stops them itself with stop_clocks/1, so that
%% what it does before it returns (removing its files) is untimed. The
%% gc parameter is ignored: the BEAM collects each process's heap on its
%% own and has no switch to turn collection off, so the flags never say
%% gc=off.
%%
%% Units and peak_live (docs/protocol.md, "Evidence"): a unit is a process
%% started with spawn_unit/2, which counts it as its first act and last, on
%% an atomics array the run's processes share (started, live, and the peak
%% by compare-and-exchange), touched only as a unit starts and ends, never
%% inside its work. Its value goes to the caller as a message, and
%% await_units/3 takes the values and the monitors' 'DOWN's. A process that
%% another library starts (Elixir's Task, a GenServer: runtimes/elixir) is
%% counted by the same code: its body run with counted/2, or its life
%% bracketed by unit_started/1 and unit_finished/1.
%%
%% Evidence: each unit counts its events (a send that found the mailbox
%% full) itself and hands them back with its value; the mechanism sums them
%% after it has awaited its units. What is open at once across units (a
%% server's connections) is a gauge, counted up and down as the live units
%% are, with the most it reached.
%%
%% CPU time: erlang:statistics(runtime) is the process's CPU time, user and
%% system, from getrusage (as the other kits read theirs), but summed and in
%% ms; the BEAM tells the two apart nowhere but in /proc/self/stat, in clock
%% ticks of 10 ms. So a run's CPU time (user + system) is runtime's, to the
%% ms, and its system time is the ticks' (no more than that CPU time), to
%% 10 ms, which user time, the rest, shares: a run's system time below a
%% tick may read as 0 or a whole tick, and its user time as that much more
%% or less.
-module(concbench_kit).

-export([main/1, main/2, otp_version/0, param/2, scratch/1, timed/1, rate/2, stop_clocks/1]).
-export([spawn_unit/2, await_units/3, counted/2, unit_started/1, unit_finished/1]).
-export([new_gauge/0, gauge_up/1, gauge_down/1, gauge_peak/1]).

-export_type([run/0, span/0, rate/0, gauge/0]).

-opaque run() :: #{params := map(), units := atomics:atomics_ref(), scratch := binary()}.
-opaque span() :: {moment(), moment()}.
-opaque rate() :: {moment(), pos_integer()} | {moment(), pos_integer(), moment()}.
-opaque gauge() :: atomics:atomics_ref().
-type moment() :: #{wall := integer(), cpu := integer(), sys := integer()}.

%% The slots of a run's unit counter.
-define(STARTED, 1).
-define(LIVE, 2).
-define(PEAK, 3).
%% The slots of a gauge.
-define(NOW, 1).
-define(MOST, 2).
%% Linux's USER_HZ, the unit of /proc's CPU times, is 100 on every
%% architecture's user-space ABI.
-define(NS_PER_TICK, 10_000_000).

%% Called by erl -run with the folder of the compiled workloads.
-spec main([string()]) -> no_return().
main([WorkloadDir]) -> main(WorkloadDir, #{name => <<"erlang">>, version => otp_version()}).

%% Serves the trial as the runtime named (Elixir's kit runs this one), the
%% workloads being the compiled modules in WorkloadDir.
-spec main(string(), #{name := binary(), version := binary()}) -> no_return().
main(WorkloadDir, Runtime) ->
    {Answer, Status} =
        try
            {serve(read_request(), WorkloadDir), 0}
        catch
            throw:{refusal, Reason} ->
                {#{ok => false, error => Reason}, 0};
            Class:Reason:Stack ->
                io:format(standard_error, "~p:~P~n~P~n", [Class, Reason, 30, Stack, 30]),
                {#{ok => false, error => one_line(Reason)}, 1}
        end,
    Info = Runtime#{flags => flags(), parallelism => parallelism()},
    Reply = maps:merge(#{runs => []}, Answer#{runtime => Info}),
    io:put_chars([concbench_json:encode(Reply), $\n]),
    erlang:halt(Status).

%% The integer, number or choice parameter Name.
-spec param(run(), atom()) -> integer() | float() | binary().
param(#{params := Params}, Name) -> maps:get(atom_to_binary(Name), Params).

%% The trial's scratch directory, where a workload makes its files.
-spec scratch(run()) -> binary().
scratch(#{scratch := Scratch}) -> Scratch.

%% Does Work, the only part of the run the kit then times.
-spec timed(fun(() -> Value)) -> {Value, span()}.
timed(Work) ->
    Start = clock_start(),
    Value = Work(),
    {Value, {Start, clock_stop()}}.

%% Starts the clocks and runs Batch until the time box has passed (at
%% least once): the batches it ran, and the rate the mechanism returns.
-spec rate(run(), fun(() -> term())) -> {pos_integer(), rate()}.
rate(Run, Batch) ->
    Start = clock_start(),
    Deadline = maps:get(wall, Start) + round(param(Run, seconds) * 1.0e9),
    Batches = batches(Batch, Deadline, 1),
    {Batches, {Start, Batches}}.

batches(Batch, Deadline, Ran) ->
    Batch(),
    case erlang:monotonic_time(nanosecond) >= Deadline of
        true -> Ran;
        false -> batches(Batch, Deadline, Ran + 1)
    end.

%% Stops the clocks of a rate loop whose mechanism has nothing outstanding.
-spec stop_clocks(rate()) -> rate().
stop_clocks({Start, Batches}) -> {Start, Batches, clock_stop()}.

%% Starts a monitored process that runs Body as one unit of the run and
%% sends the caller its value; await_units/3 awaits it.
-spec spawn_unit(run(), fun(() -> term())) -> {pid(), reference()}.
spawn_unit(Run, Body) ->
    Caller = self(),
    spawn_monitor(fun() -> Caller ! {unit_value, counted(Run, Body)} end).

%% Runs Body as one unit of the run in the calling process: its value.
-spec counted(run(), fun(() -> Value)) -> Value.
counted(Run, Body) ->
    unit_started(Run),
    Value = Body(),
    unit_finished(Run),
    Value.

%% The start and end of a unit whose body is not one function (a
%% GenServer's life, from its init to its terminate), each in that unit.
-spec unit_started(run()) -> ok.
unit_started(#{units := Units}) ->
    atomics:add(Units, ?STARTED, 1),
    raise_peak(Units, ?PEAK, atomics:add_get(Units, ?LIVE, 1)).

-spec unit_finished(run()) -> ok.
unit_finished(#{units := Units}) -> atomics:sub(Units, ?LIVE, 1).

%% Awaits Count units, folding their values into Acc in the order they
%% come. A unit sends its value before it exits, so its value is here once
%% its 'DOWN' is. Both are taken as they come, never one unit's selectively:
%% a million units' messages are then read once each.
-spec await_units(non_neg_integer(), fun((term(), Acc) -> Acc), Acc) -> Acc.
await_units(0, _Fold, Acc) ->
    Acc;
await_units(Count, Fold, Acc) ->
    receive
        {unit_value, Value} ->
            await_units(Count, Fold, Fold(Value, Acc));
        {'DOWN', _, process, _, normal} ->
            await_units(Count - 1, Fold, Acc);
        {'DOWN', _, process, Pid, Reason} ->
            error({unit_failed, Pid, Reason})
    end.

%% A gauge at 0, which any of the run's processes may move.
-spec new_gauge() -> gauge().
new_gauge() -> atomics:new(2, [{signed, true}]).

-spec gauge_up(gauge()) -> ok.
gauge_up(Gauge) -> raise_peak(Gauge, ?MOST, atomics:add_get(Gauge, ?NOW, 1)).

-spec gauge_down(gauge()) -> ok.
gauge_down(Gauge) -> atomics:sub(Gauge, ?NOW, 1).

%% The most the gauge held at once.
-spec gauge_peak(gauge()) -> non_neg_integer().
gauge_peak(Gauge) -> atomics:get(Gauge, ?MOST).

read_request() ->
    ok = io:setopts(standard_io, [binary]),
    concbench_json:decode(read_all(standard_io, [])).

read_all(Device, Chunks) ->
    case io:get_chars(Device, "", 65536) of
        eof -> iolist_to_binary(lists:reverse(Chunks));
        Chunk when is_binary(Chunk) -> read_all(Device, [Chunk | Chunks])
    end.

serve(#{<<"kind">> := <<"floor">>}, _WorkloadDir) ->
    #{ok => true};
serve(#{<<"kind">> := <<"list">>}, WorkloadDir) ->
    #{ok => true, implements => implemented(WorkloadDir)};
serve(#{<<"kind">> := Kind} = Request, WorkloadDir) when Kind =:= <<"fixed">>; Kind =:= <<"rate">> ->
    #{<<"workload">> := Workload, <<"mechanism">> := Mechanism, <<"warmup">> := Warmup, <<"runs">> := Runs} =
        Request,
    Run = mechanism(WorkloadDir, Workload, Mechanism),
    Measured = [(measure(Run, Kind, Request))#{warmup => I =< Warmup} || I <- lists:seq(1, Warmup + Runs)],
    #{ok => true, runs => Measured};
serve(#{<<"kind">> := Kind}, _WorkloadDir) ->
    throw({refusal, <<"kind ", Kind/binary, " is not implemented in the Erlang kit">>}).

%% The mechanism's function, from the workload's compiled file.
mechanism(WorkloadDir, Workload, Mechanism) ->
    Path = filename:join(WorkloadDir, binary_to_list(Workload) ++ ".beam"),
    Module = binary_to_atom(<<"concbench_", (underscored(Workload))/binary>>),
    Function = binary_to_atom(Mechanism),
    Loaded =
        case file:read_file(Path) of
            {ok, Beam} -> code:load_binary(Module, Path, Beam);
            {error, _} -> missing
        end,
    case Loaded =:= {module, Module} andalso erlang:function_exported(Module, Function, 1) of
        true -> fun Module:Function/1;
        false -> throw({refusal, <<"mechanism ", Mechanism/binary, " is not implemented for workload ", Workload/binary>>})
    end.

%% The protocol's list answer: every compiled workload, with its mechanisms
%% (an Elixir module's __info__/1 is none).
implemented(WorkloadDir) ->
    maps:from_list([
        {list_to_binary(filename:basename(Path, ".beam")), mechanisms(Path)}
     || Path <- filelib:wildcard(filename:join(WorkloadDir, "*.beam"))
    ]).

mechanisms(Path) ->
    {ok, {_Module, [{exports, Exports}]}} = beam_lib:chunks(Path, [exports]),
    lists:sort([atom_to_binary(Name) || {Name, 1} <- Exports, Name =/= module_info, Name =/= '__info__']).

underscored(Workload) -> binary:replace(Workload, <<"-">>, <<"_">>, [global]).

%% One run: the clocks around the mechanism, around the span it timed, or
%% from the start of its rate loop to its return.
%% The caller's garbage is collected first, outside the clocks, so that no
%% run pays for another's.
measure(Mechanism, Kind, #{<<"params">> := Params, <<"scratch">> := Scratch}) ->
    Units = atomics:new(3, [{signed, true}]),
    garbage_collect(),
    Start = clock_start(),
    Outcome = Mechanism(#{params => Params, units => Units, scratch => Scratch}),
    {From, To} =
        case Outcome of
            #{rate := {RateStart, _, RateStop}} -> {RateStart, RateStop};
            #{rate := {RateStart, _}} -> {RateStart, clock_stop()};
            #{span := Span} -> Span;
            #{} when Kind =:= <<"rate">> -> error(no_rate_loop);
            #{} -> {Start, clock_stop()}
        end,
    case atomics:get(Units, ?LIVE) of
        0 -> ok;
        Live -> error({units_still_alive, Live})
    end,
    Reported = maps:merge(maps:with([evidence], Outcome), ops(Outcome, Params)),
    Cpu = maps:get(cpu, To) - maps:get(cpu, From),
    Sys = min(maps:get(sys, To) - maps:get(sys, From), Cpu),
    Reported#{
        wall_ns => max(maps:get(wall, To) - maps:get(wall, From), 1),
        user_ns => Cpu - Sys,
        sys_ns => Sys,
        units => atomics:get(Units, ?STARTED),
        peak_live => atomics:get(Units, ?PEAK),
        result => maps:get(result, Outcome)
    }.

%% A rate run's operations: batches x batch.
ops(#{rate := Rate}, #{<<"batch">> := Batch}) -> #{ops => element(2, Rate) * Batch};
ops(#{}, _Params) -> #{}.

%% Every change of a count (live units, a gauge) is one step in its order,
%% so the values add_get returns are every value it took: their maximum is
%% the peak, kept in the slot Peak.
raise_peak(Counter, Peak, Value) ->
    Most = atomics:get(Counter, Peak),
    case Value > Most andalso atomics:compare_exchange(Counter, Peak, Most, Value) =/= ok of
        true -> raise_peak(Counter, Peak, Value);
        false -> ok
    end.

%% The CPU times are read outside the wall clock's span, before it starts
%% and after it stops: reading them is a file read.
clock_start() ->
    Cpu = cpu_times(),
    Cpu#{wall => erlang:monotonic_time(nanosecond)}.

clock_stop() ->
    Wall = erlang:monotonic_time(nanosecond),
    (cpu_times())#{wall => Wall}.

%% The CPU time so far (statistics(runtime), ms) and the system time (stime,
%% the 15th field of /proc/self/stat, ticks), both in ns; the stat's 2nd
%% field, the command's name in parentheses, may hold spaces, so its fields
%% are counted after its closing parenthesis (from the 3rd).
cpu_times() ->
    {Runtime, _SinceLastCall} = erlang:statistics(runtime),
    {ok, Stat} = file:read_file("/proc/self/stat"),
    [_, AfterName] = string:split(Stat, <<") ">>, trailing),
    Stime = lists:nth(15 - 2, string:lexemes(AfterName, " ")),
    #{cpu => Runtime * 1_000_000, sys => binary_to_integer(Stime) * ?NS_PER_TICK}.

%% The full OTP version (25.2.3), which only the release's OTP_VERSION file holds.
-spec otp_version() -> binary().
otp_version() ->
    Release = erlang:system_info(otp_release),
    {ok, Version} = file:read_file(filename:join([code:root_dir(), "releases", Release, "OTP_VERSION"])),
    string:trim(Version).

%% The CPUs the runtime sized itself to (docs/protocol.md, "CPUs"): its
%% schedulers online. The BEAM starts one scheduler per logical processor,
%% and brings online (as the dirty CPU schedulers) one per processor its
%% affinity mask allows, so a trial confined to k CPUs runs k without the
%% kit's help (+S 2:1 at one CPU of two); read back as the trial ends, after
%% a yield cell has restored what it confined. Elixir's kit answers with
%% this one.
parallelism() -> erlang:system_info(schedulers_online).

%% The emulator flags in force, as erl takes them, and measure/3's
%% collection before every run (docs/extending.md, "Settled policies").
flags() ->
    Schedulers = erlang:system_info(schedulers),
    Online = erlang:system_info(schedulers_online),
    DirtyCpu = erlang:system_info(dirty_cpu_schedulers),
    DirtyCpuOnline = erlang:system_info(dirty_cpu_schedulers_online),
    [
        iolist_to_binary(io_lib:format("+S ~b:~b", [Schedulers, Online])),
        iolist_to_binary(io_lib:format("+SDcpu ~b:~b", [DirtyCpu, DirtyCpuOnline])),
        iolist_to_binary(io_lib:format("+P ~b", [erlang:system_info(process_limit)]))
        | busy_wait_flags()
    ] ++ [<<"gc before each run">>].

%% How long the schedulers spin before they sleep: the runtime has no
%% system_info for it, so it is read from the emulator's arguments, with
%% OTP's defaults where none was given.
busy_wait_flags() ->
    Args = erlang:system_info(emu_args),
    [
        iolist_to_binary(["+", Flag, " ", emu_arg(Args, "-" ++ Flag, Default)])
     || {Flag, Default} <- [{"sbwt", "medium"}, {"sbwtdcpu", "short"}, {"sbwtdio", "short"}]
    ].

emu_arg([Flag, Value | _], Flag, _Default) -> Value;
emu_arg([_ | Args], Flag, Default) -> emu_arg(Args, Flag, Default);
emu_arg([], _Flag, Default) -> Default.

one_line(Reason) ->
    iolist_to_binary(string:replace(io_lib:format("~0tp", [Reason]), "\n", " ", all)).
