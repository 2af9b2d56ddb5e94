%% The catalogue's portable inputs, identical in every language
%% (src/concbench/lcg.py): the LCG x = (x * 1103515245 + 12345) mod 2^31
%% from seed 42; draw k is the (k+1)-th value, mapped to [Lo, Hi] as
%% Lo + x mod (Hi - Lo + 1). Case i of a workload uses draw i.
-module(concbench_lcg).

-export([draws/3]).

-define(SEED, 42).

%% The first Count draws in [Lo, Hi].
-spec draws(non_neg_integer(), integer(), integer()) -> [integer()].
draws(Count, Lo, Hi) when Hi >= Lo ->
    Next = fun(_, X0) ->
        X = (X0 * 1103515245 + 12345) rem (1 bsl 31),
        {Lo + X rem (Hi - Lo + 1), X}
    end,
    element(1, lists:mapfoldl(Next, ?SEED, lists:seq(1, Count))).
