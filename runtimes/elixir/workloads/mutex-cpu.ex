# Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one mutex and one
# counter; each of `workers` units, in its iteration i of `iterations`, makes
# the subject, "foobar" * 100 followed by i (a new binary each time, so that
# no engine answers from an earlier match), locks, reads the group's counter,
# matches /foo(.+)$/ against the subject, writes back the counter read plus
# the capture's length (597 plus i's digits) and unlocks.
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
    iterations = :concbench_kit.param(run, :iterations)
    prefix = String.duplicate("foobar", 100)

    counters =
      for _ <- 1..:concbench_kit.param(run, :groups),
          do: {Concbench.Lock.new(), :atomics.new(1, [])}

    subject_of = fn i -> prefix <> Integer.to_string(i) end

    critical = fn counter, subject ->
      read = :atomics.get(counter, 1)
      [capture] = Regex.run(pattern, subject, capture: :all_but_first)
      :atomics.put(counter, 1, read + byte_size(capture))
    end

    {contended, span} =
      :concbench_kit.timed(fn ->
        Concbench.Lock.contend(run, counters, iterations, subject_of, critical)
      end)

    Enum.each(counters, fn {lock, _} -> Concbench.Lock.stop(lock) end)
    sum = counters |> Enum.map(fn {_, counter} -> :atomics.get(counter, 1) end) |> Enum.sum()
    %{result: %{sum: sum}, evidence: %{contended: contended}, span: span}
  end
end
