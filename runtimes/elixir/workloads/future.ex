# Futures (workloads/future.toml): create `futures` futures, all before
# awaiting any; future i computes (i x i) mod 1,000; then await each one and
# sum the values.
defmodule :concbench_future do
  alias Concbench.Kit

  @doc "Elixir's future is a Task: Task.async each, then Task.await each in turn."
  @spec task(:concbench_kit.run()) :: map()
  def task(run) do
    sum =
      for i <- 0..(:concbench_kit.param(run, :futures) - 1) do
        Task.async(Kit.unit(run, fn -> rem(i * i, 1000) end))
      end
      |> Enum.reduce(0, fn future, sum -> sum + Task.await(future, :infinity) end)

    %{result: %{sum: sum}}
  end
end
