# Echo (workloads/echo.toml): a server. Before the clock it listens on a
# loopback TCP port, or a Unix stream socket in the scratch directory, and
# says where; in the run it accepts `connections` connections and, on each,
# writes back every byte it reads until the client closes, then closes it.
defmodule :concbench_echo do
  @doc """
  A Task per connection, as an Elixir :gen_tcp server hands each accepted
  socket to a process of its own: the caller accepts each connection and
  hands it to its Task (Concbench.Sockets), which reads what has arrived
  from its passive socket and sends it back; the Tasks are awaited after
  the last accept. The listener is closed (and its path removed) after the
  clock.
  """
  @spec task(:concbench_kit.run()) :: map()
  def task(run) do
    connections = :concbench_kit.param(run, :connections)
    {listener, path} = listen(run, connections)
    held = :concbench_kit.new_gauge()
    :concbench_sockets.announce(listener)

    {echoed, span} =
      :concbench_kit.timed(fn ->
        for _ <- 1..connections do
          {:ok, socket} = :gen_tcp.accept(listener)
          :concbench_kit.gauge_up(held)
          Concbench.Sockets.hand(run, socket, &echo(&1, held, 0))
        end
        |> Task.await_many(:infinity)
      end)

    :ok = :gen_tcp.close(listener)
    :ok = remove(path)

    %{
      result: %{connections: length(echoed), bytes: Enum.sum(echoed)},
      evidence: %{held: :concbench_kit.gauge_peak(held)},
      span: span
    }
  end

  # An accepted socket inherits the listener's options: binary, passive, a
  # driver buffer (what one recv reads at most) of a request at least and,
  # over TCP, TCP_NODELAY, as an echo server sets it.
  defp listen(run, connections) do
    buffer = max(:concbench_kit.param(run, :size), 4096)
    options = [:binary, active: false, buffer: buffer, backlog: connections]

    case :concbench_kit.param(run, :transport) do
      "tcp" ->
        {:ok, listener} = :gen_tcp.listen(0, [ip: {127, 0, 0, 1}, nodelay: true] ++ options)
        {listener, nil}

      "unix" ->
        path = Path.join(:concbench_kit.scratch(run), "echo.sock")
        :ok = remove(path)
        {:ok, listener} = :gen_tcp.listen(0, [{:ifaddr, {:local, path}} | options])
        {listener, path}
    end
  end

  # Removes the socket's file: a previous run's before listening, this run's after.
  defp remove(nil), do: :ok

  defp remove(path) do
    case File.rm(path) do
      :ok -> :ok
      {:error, :enoent} -> :ok
    end
  end

  # Sends back whatever has arrived until the client closes; then closes the
  # connection: the bytes it sent back.
  defp echo(socket, held, echoed) do
    case :gen_tcp.recv(socket, 0) do
      {:ok, data} ->
        :ok = :gen_tcp.send(socket, data)
        echo(socket, held, echoed + byte_size(data))

      {:error, :closed} ->
        :ok = :gen_tcp.close(socket)
        :concbench_kit.gauge_down(held)
        echoed
    end
  end
end
