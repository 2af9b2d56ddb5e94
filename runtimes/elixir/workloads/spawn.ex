# 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
# sleeps `delay_ms` if that is more than 0, then returns i; await them all
# and sum what they returned.
defmodule :concbench_spawn do
  alias Concbench.Kit

  @doc "A Task per task, started with Task.async, all awaited with Task.await_many."
  @spec task(:concbench_kit.run()) :: map()
  def task(run) do
    delay = :concbench_kit.param(run, :delay_ms)

    sum =
      for i <- 0..(:concbench_kit.param(run, :tasks) - 1) do
        Task.async(Kit.unit(run, fn -> task(i, delay) end))
      end
      |> Task.await_many(:infinity)
      |> Enum.sum()

    %{result: %{sum: sum}}
  end

  defp task(i, 0), do: i

  defp task(i, delay) do
    Process.sleep(delay)
    i
  end
end
