%% Countdown latch (workloads/latch.toml): `count` units made at the start of
%% a run serve all its rounds; in each of `rounds` rounds the caller makes a
%% latch of `count`, asks every unit to count it down once, and waits until
%% it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
%% r to a tally of its own; the tallies are summed modulo 1,000,000,007.
-module(concbench_latch).

-export([process/1]).

-define(MODULUS, 1_000_000_007).

%% The BEAM has no latch but a process's mailbox: a round's latch is a
%% reference, each unit's count-down a message tagged with it, and the
%% caller waits until it has received `count` of them.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Count = concbench_kit:param(Run, count),
    Rounds = concbench_kit:param(Run, rounds),
    Units = [
        element(1, concbench_kit:spawn_unit(Run, fun() -> count_down(K + 1, 0, 0) end))
     || K <- lists:seq(0, Count - 1)
    ],
    Woke = length([await_latch(latch(Units), Count) || _ <- lists:seq(1, Rounds)]),
    [Unit ! stop || Unit <- Units],
    {Countdowns, Checksum} = concbench_kit:await_units(Count, fun add_tally/2, {0, 0}),
    #{result => #{rounds => Woke, countdowns => Countdowns, checksum => Checksum}}.

%% A new latch, handed to every unit.
latch(Units) ->
    Latch = make_ref(),
    [Unit ! {count_down, self(), Latch} || Unit <- Units],
    Latch.

await_latch(_Latch, 0) ->
    woke;
await_latch(Latch, Remaining) ->
    receive
        {Latch, counted_down} -> await_latch(Latch, Remaining - 1)
    end.

%% Unit k's loop, Weight being k + 1 and Made its count-downs so far.
count_down(Weight, Made, Tally) ->
    receive
        {count_down, Caller, Latch} ->
            Caller ! {Latch, counted_down},
            count_down(Weight, Made + 1, (Tally + Weight * (Made + 1)) rem ?MODULUS);
        stop ->
            {Made, Tally}
    end.

add_tally({Made, Tally}, {Countdowns, Checksum}) ->
    {Countdowns + Made, (Checksum + Tally) rem ?MODULUS}.
