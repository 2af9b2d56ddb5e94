# Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
# (i + 1) x tarai(9, 4, 0), 55,229 calls that return 9; the unit that
# evaluates a case multiplies, so evaluating the wrong cases gives a wrong
# sum.
defmodule :concbench_map_cpu do
  use Concbench.WorkerModes

  defp evaluate(run, mapper) do
    inputs = Enum.to_list(0..(:concbench_kit.param(run, :cases) - 1))

    :concbench_workermodes.process(run, mapper, [:sum], &((&1 + 1) * tarai(9, 4, 0)), fn map ->
      %{sum: Enum.sum(map.(inputs))}
    end)
  end

  defp tarai(x, y, _z) when x <= y, do: y
  defp tarai(x, y, z), do: tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y))
end
