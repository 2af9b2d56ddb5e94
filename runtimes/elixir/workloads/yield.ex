# Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
# unit yields to its scheduler and is resumed; `partners` more units yield in
# a loop beside it. Every unit adds one to a shared turn counter each time it
# runs; a yield after which the counter has moved is switched.
defmodule :concbench_yield do
  alias Concbench.Kit

  # The slots of the measured unit's counts.
  @yields 1
  @switched 2

  @doc """
  Every unit is a Task; the measured one runs the kit's rate loop. A yield is
  :erlang.yield/0 (Elixir has none of its own), the counter a one-slot
  atomics array the Tasks share. With partners, the trial runs on one
  scheduler, schedulers_online set to 1 before the clocks and restored after
  them, as erlang/process does: with one scheduler per core, a partner would
  move the counter in parallel, and yields that switched nothing would count
  as switched.
  """
  @spec task(:concbench_kit.run()) :: map()
  def task(run) do
    partners = :concbench_kit.param(run, :partners)
    online = confine(partners)
    turn = :atomics.new(1, signed: true)
    stop = :atomics.new(1, [])

    partners =
      for _ <- 1..partners//1, do: Task.async(Kit.unit(run, fn -> partner(turn, stop) end))

    measured = Task.async(Kit.unit(run, fn -> measured(run, turn, stop) end))
    {rate, yields, switched} = Task.await(measured, :infinity)
    # Still timed: the partners, stopped by the measured unit, are awaited.
    Task.await_many(partners, :infinity)
    stopped = :concbench_kit.stop_clocks(rate)
    :erlang.system_flag(:schedulers_online, online)
    %{result: %{count: yields}, evidence: %{switched: switched}, rate: stopped}
  end

  # One scheduler online where there are partners: the number online before.
  defp confine(0), do: :erlang.system_info(:schedulers_online)
  defp confine(_partners), do: :erlang.system_flag(:schedulers_online, 1)

  defp partner(turn, stop) do
    if :atomics.get(stop, 1) == 0 do
      :atomics.add(turn, 1, 1)
      :erlang.yield()
      partner(turn, stop)
    end
  end

  # Yields `batch` times a batch until the time box has passed, then stops
  # the partners: the rate, the yields and those after which the counter had
  # moved (slots of an atomics array: the rate loop's batch returns nothing).
  defp measured(run, turn, stop) do
    batch = :concbench_kit.param(run, :batch)
    counts = :atomics.new(2, [])
    {_batches, rate} = :concbench_kit.rate(run, fn -> yields(batch, turn, counts) end)
    :atomics.put(stop, 1, 1)
    {rate, :atomics.get(counts, @yields), :atomics.get(counts, @switched)}
  end

  defp yields(0, _turn, _counts), do: :done

  defp yields(left, turn, counts) do
    seen = :atomics.add_get(turn, 1, 1)
    :erlang.yield()
    :atomics.add(counts, @yields, 1)
    if :atomics.get(turn, 1) != seen, do: :atomics.add(counts, @switched, 1)
    yields(left - 1, turn, counts)
  end
end
