# Worker modes: trivial work (workloads/map-trivial.toml): each case takes an
# integer from the LCG in [-1,000,000, 1,000,000] and computes x + 1; the
# result is the sum.
defmodule :concbench_map_trivial do
  use Concbench.WorkerModes

  defp evaluate(run, mapper) do
    inputs = :concbench_lcg.draws(:concbench_kit.param(run, :cases), -1_000_000, 1_000_000)

    :concbench_workermodes.process(run, mapper, [:sum], &(&1 + 1), fn map ->
      %{sum: Enum.sum(map.(inputs))}
    end)
  end
end
