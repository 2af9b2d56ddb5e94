# Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one mutex and one
# counter; each of `workers` units, `iterations` times, locks, reads the
# group's counter, matches /foo(.+)$/ against "foobar" * 100, writes back the
# counter read plus the capture's length (597) and unlocks.
defmodule :concbench_mutex_cpu do
  @doc """
  The lock is a GenServer (Concbench.Lock), the units Tasks, the counter a
  one-slot atomics array read and written apart under the lock. The engine
  is Elixir's Regex, Erlang's re (PCRE, backtracking), the pattern compiled
  before the clocks: a compiled Regex is a plain term every process can use.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    pattern = ~r/foo(.+)$/
    subject = String.duplicate("foobar", 100)

    counters =
      for _ <- 1..:concbench_kit.param(run, :groups),
          do: {Concbench.Lock.new(), :atomics.new(1, [])}

    critical = fn counter ->
      read = :atomics.get(counter, 1)
      [capture] = Regex.run(pattern, subject, capture: :all_but_first)
      :atomics.put(counter, 1, read + byte_size(capture))
    end

    {contended, span} =
      :concbench_kit.timed(fn ->
        Concbench.Lock.contend(run, counters, :concbench_kit.param(run, :iterations), critical)
      end)

    Enum.each(counters, fn {lock, _} -> Concbench.Lock.stop(lock) end)
    sum = counters |> Enum.map(fn {_, counter} -> :atomics.get(counter, 1) end) |> Enum.sum()
    %{result: %{sum: sum}, evidence: %{contended: contended}, span: span}
  end
end
