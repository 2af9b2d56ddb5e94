# Mutex, I/O-bound (workloads/mutex-io.toml): per group one mutex, one file
# in the scratch directory and the file's end, shared by its units; each of
# `workers` units, `iterations` times, locks, reads the group's end, writes
# `size` bytes at that offset, stores the end plus `size` and unlocks. The
# files are made before the clocks; their sizes are summed, and the files
# removed, after the clocks stop.
defmodule :concbench_mutex_io do
  @doc """
  The lock is a GenServer (Concbench.Lock), the units Tasks, the end a
  one-slot atomics array read and stored apart under the lock. A group's
  file is opened Elixir's ordinary way (File.open/2), a file server process
  that makes each pwrite (:file.pwrite/3: Elixir has none of its own) for
  whichever unit holds the lock, as erlang/process's does.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    size = :concbench_kit.param(run, :size)
    scratch = :concbench_kit.scratch(run)

    paths =
      for g <- 1..:concbench_kit.param(run, :groups), do: Path.join(scratch, "mutex-io-#{g}")

    files =
      for path <- paths,
          do:
            {Concbench.Lock.new(), {File.open!(path, [:write, :exclusive]), :atomics.new(1, [])}}

    block = String.duplicate("x", size)

    critical = fn {file, ends} ->
      offset = :atomics.get(ends, 1)
      :ok = :file.pwrite(file, offset, block)
      :atomics.put(ends, 1, offset + size)
    end

    {contended, span} =
      :concbench_kit.timed(fn ->
        Concbench.Lock.contend(run, files, :concbench_kit.param(run, :iterations), critical)
      end)

    Enum.each(files, fn {lock, {file, _}} ->
      :ok = File.close(file)
      Concbench.Lock.stop(lock)
    end)

    bytes = paths |> Enum.map(&File.stat!(&1).size) |> Enum.sum()
    Enum.each(paths, &File.rm!/1)
    %{result: %{bytes: bytes}, evidence: %{contended: contended}, span: span}
  end
end
