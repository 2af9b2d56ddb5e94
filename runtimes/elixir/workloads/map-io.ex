# Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
# whole of a file of `file_size` bytes, written in the scratch directory
# before the clocks, and appends as many characters as its LCG draw in
# [0, 10] says; the result is the sum of the lengths.
defmodule :concbench_map_io do
  use Concbench.WorkerModes

  # A unit that cannot read the file fails, and the trial with it.
  defp evaluate(run, mapper) do
    path = Path.join(:concbench_kit.scratch(run), "map-io")
    File.write!(path, String.duplicate("x", :concbench_kit.param(run, :file_size)))
    inputs = :concbench_lcg.draws(:concbench_kit.param(run, :cases), 0, 10)
    evaluate = fn n -> byte_size(read_whole(path) <> String.duplicate("x", n)) end

    outcome =
      :concbench_workermodes.process(run, mapper, [:length], evaluate, fn map ->
        %{length: Enum.sum(map.(inputs))}
      end)

    File.rm!(path)
    outcome
  end

  # The file's content, read by the calling Task itself, as erlang/process's
  # units read it: a raw file (prim_file's NIFs, on the BEAM's dirty I/O
  # schedulers), where File.read/1 would have the file server, one process
  # for every unit, read it for them. Its size, then reads until the end.
  defp read_whole(path) do
    {:ok, file} = :file.open(path, [:read, :raw, :binary])

    try do
      {:ok, info} = :file.read_file_info(file)
      read_rest(file, max(elem(info, 1), 1), <<>>)
    after
      :ok = :file.close(file)
    end
  end

  defp read_rest(file, chunk, read) do
    case :file.read(file, chunk) do
      {:ok, data} -> read_rest(file, chunk, read <> data)
      :eof -> read
    end
  end
end
