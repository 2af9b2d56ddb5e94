%% Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
%% property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
%% evaluate every case; the first failing one in case order (index f, value
%% v) is shrunk by bisection between 0, which passes, and v, which fails:
%% each round the units evaluate up to 8 evenly spaced candidates strictly
%% above the lower bound; the smallest failing one becomes the upper bound
%% and the largest passing one below it the lower, until they are adjacent.
%% `first` adds up f, `minimal` the upper bounds it ends with (101 each), and
%% `candidates` the candidates the units evaluated.
-module(concbench_map_shrink).

-export([process/1]).

-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Inputs = concbench_lcg:draws(concbench_kit:param(Run, cases), -1_000_000, 1_000_000),
    Holds = fun(X) -> X =< 100 end,
    concbench_workermodes:process(Run, [first, minimal, candidates], Holds, fun(Map) ->
        case lists:splitwith(fun(Held) -> Held end, Map(Inputs)) of
            {Passed, [false | _]} ->
                First = length(Passed),
                {Minimal, Candidates} = shrink(0, lists:nth(First + 1, Inputs), Map, 0),
                #{first => First, minimal => Minimal, candidates => Candidates};
            {_, []} ->
                error(no_case_fails_the_property)
        end
    end).

%% Bisects between a passing and a failing value: the least failing value,
%% and the candidates evaluated.
shrink(Passing, Failing, _Map, Evaluated) when Failing - Passing =< 1 ->
    {Failing, Evaluated};
shrink(Passing, Failing, Map, Evaluated) ->
    %% k = 1..8 gives them in ascending order: usort only drops the repeats.
    Candidates = lists:usort([Passing + (Failing - Passing) * K div 9 || K <- lists:seq(1, 8)]) -- [Passing],
    {Passed, Failed} = lists:splitwith(fun({_, Held}) -> Held end, lists:zip(Candidates, Map(Candidates))),
    Lower =
        case Passed of
            [] -> Passing;
            [_ | _] -> element(1, lists:last(Passed))
        end,
    Upper =
        case Failed of
            [] -> Failing;
            [{Least, false} | _] -> Least
        end,
    shrink(Lower, Upper, Map, Evaluated + length(Candidates)).
