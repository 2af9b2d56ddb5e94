# I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
# SOCK_STREAM socket pair, a writer unit and a reader unit; the writer
# writes `messages` blocks of `size` bytes and shuts its side down for
# writing, the reader reads until EOF and counts the bytes.
defmodule :concbench_socketpair do
  @doc """
  The BEAM has no socketpair: as in erlang/process, each pair is a :gen_tcp
  socket connected to a listening one bound in the scratch directory
  ({:local, path}, AF_UNIX) and the one accepted from it, made before the
  clocks. Each end is passive and handed to its Task (Concbench.Sockets),
  which becomes its controlling process and closes it.
  """
  @spec task(:concbench_kit.run()) :: map()
  def task(run) do
    messages = :concbench_kit.param(run, :messages)
    block = String.duplicate("x", :concbench_kit.param(run, :size))
    scratch = :concbench_kit.scratch(run)

    pairs =
      for g <- 1..:concbench_kit.param(run, :groups),
          do: pair(Path.join(scratch, "socketpair-#{g}"))

    {bytes, span} =
      :concbench_kit.timed(fn ->
        for {writer, reader} <- pairs,
            task <- [
              Concbench.Sockets.hand(run, writer, &write(&1, messages, block)),
              Concbench.Sockets.hand(run, reader, &read(&1, 0))
            ] do
          task
        end
        |> Task.await_many(:infinity)
        |> Enum.sum()
      end)

    %{result: %{bytes: bytes}, span: span}
  end

  defp pair(path) do
    options = [:binary, active: false]
    {:ok, listener} = :gen_tcp.listen(0, [{:ifaddr, {:local, path}} | options])
    {:ok, writer} = :gen_tcp.connect({:local, path}, 0, options)
    {:ok, reader} = :gen_tcp.accept(listener)
    :ok = :gen_tcp.close(listener)
    File.rm!(path)
    {writer, reader}
  end

  # The writer: its blocks, then the end of its stream; it read nothing.
  defp write(socket, 0, _block) do
    :ok = :gen_tcp.shutdown(socket, :write)
    :ok = :gen_tcp.close(socket)
    0
  end

  defp write(socket, messages, block) do
    :ok = :gen_tcp.send(socket, block)
    write(socket, messages - 1, block)
  end

  # The reader: whatever has arrived, until the writer's end of stream.
  defp read(socket, read) do
    case :gen_tcp.recv(socket, 0) do
      {:ok, data} ->
        read(socket, read + byte_size(data))

      {:error, :closed} ->
        :ok = :gen_tcp.close(socket)
        read
    end
  end
end
