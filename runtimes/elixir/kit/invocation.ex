defmodule Concbench.Invocation do
  @moduledoc """
  Invocation, shared by invoke and invoke-waiting (workloads/invoke.toml):
  one operation starts a Task whose body increments a counter, and gets its
  result, in the way `mode` says: await (Task.async, then Task.await), batch
  (a batch of Task.async, then Task.await_many) or forget (a batch of
  Task.start, fire and forget, the caller yielding once so that they run;
  each Task's last act is a message to the caller, which counts them all
  after the time box, as erlang/process counts its units' 'DOWN's).
  """

  alias Concbench.Kit

  @doc "Runs the workload with `wait` called first in each body (a yield, or nothing)."
  @spec task(:concbench_kit.run(), (() -> term())) :: map()
  def task(run, wait) do
    batch = :concbench_kit.param(run, :batch)
    counter = :atomics.new(1, [])

    counted =
      Kit.unit(run, fn ->
        wait.()
        :atomics.add(counter, 1, 1)
      end)

    rate =
      case :concbench_kit.param(run, :mode) do
        "await" ->
          rate(run, fn -> repeat(batch, fn -> Task.await(Task.async(counted)) end) end)

        "batch" ->
          rate(run, fn ->
            Enum.map(1..batch, fn _ -> Task.async(counted) end) |> Task.await_many()
          end)

        "forget" ->
          caller = self()

          forgotten = fn ->
            counted.()
            send(caller, :invoked)
          end

          {batches, forgot} =
            :concbench_kit.rate(run, fn ->
              repeat(batch, fn -> {:ok, _} = Task.start(forgotten) end)
              :erlang.yield()
            end)

          repeat(batches * batch, fn ->
            receive do
              :invoked -> :ok
            end
          end)

          forgot
      end

    %{result: %{count: :atomics.get(counter, 1)}, rate: rate}
  end

  defp rate(run, batch), do: :concbench_kit.rate(run, batch) |> elem(1)

  defp repeat(0, _operation), do: :done

  defp repeat(times, operation) do
    operation.()
    repeat(times - 1, operation)
  end
end
