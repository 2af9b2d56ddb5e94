# Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
# property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
# evaluate every case; the first failing one in case order (index f, value
# v) is shrunk by bisection between 0, which passes, and v, which fails: each
# round the units evaluate up to 8 evenly spaced candidates strictly above
# the lower bound; the smallest failing one becomes the upper bound and the
# largest passing one below it the lower, until they are adjacent. `first`
# adds up f, `minimal` the upper bounds it ends with (101 each), and
# `candidates` the candidates the units evaluated.
defmodule :concbench_map_shrink do
  use Concbench.WorkerModes

  defp evaluate(run, mapper) do
    inputs = :concbench_lcg.draws(:concbench_kit.param(run, :cases), -1_000_000, 1_000_000)

    :concbench_workermodes.process(
      run,
      mapper,
      [:first, :minimal, :candidates],
      &(&1 <= 100),
      fn map ->
        first = map.(inputs) |> Enum.find_index(&(not &1)) || raise "no case fails the property"
        {minimal, candidates} = shrink(0, Enum.at(inputs, first), map, 0)
        %{first: first, minimal: minimal, candidates: candidates}
      end
    )
  end

  # Bisects between a passing and a failing value: the least failing value,
  # and the candidates evaluated.
  defp shrink(passing, failing, _map, evaluated) when failing - passing <= 1,
    do: {failing, evaluated}

  defp shrink(passing, failing, map, evaluated) do
    # k = 1..8 gives them in ascending order: uniq only drops the repeats.
    candidates =
      Enum.uniq(for(k <- 1..8, do: passing + div((failing - passing) * k, 9))) -- [passing]

    {passed, failed} = Enum.split_while(Enum.zip(candidates, map.(candidates)), &elem(&1, 1))

    lower =
      case passed do
        [] -> passing
        [_ | _] -> elem(List.last(passed), 0)
      end

    upper =
      case failed do
        [] -> failing
        [{least, false} | _] -> least
      end

    shrink(lower, upper, map, evaluated + length(candidates))
  end
end
