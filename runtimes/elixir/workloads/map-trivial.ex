# Worker modes: trivial work (workloads/map-trivial.toml): each case takes an
# integer from the LCG in [-1,000,000, 1,000,000] and computes x + 1; the
# result is the sum.
defmodule :concbench_map_trivial do
  alias Concbench.WorkerModes

  @spec task(:concbench_kit.run()) :: map()
  def task(run), do: evaluate(run, &WorkerModes.striped/3)

  @spec async_stream(:concbench_kit.run()) :: map()
  def async_stream(run), do: evaluate(run, &WorkerModes.async_stream/3)

  defp evaluate(run, mapper) do
    inputs = :concbench_lcg.draws(:concbench_kit.param(run, :cases), -1_000_000, 1_000_000)

    :concbench_workermodes.process(run, mapper, [:sum], &(&1 + 1), fn map ->
      %{sum: Enum.sum(map.(inputs))}
    end)
  end
end
