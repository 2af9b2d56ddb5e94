defmodule Concbench.Sockets do
  @moduledoc """
  Handing a socket to the Task that serves it (socketpair, echo), as the
  Erlang kit's concbench_sockets:hand/3 hands it to a process.
  """

  alias Concbench.Kit

  @doc """
  Starts a Task that serves `socket` once it controls it: the Task waits
  until :gen_tcp.controlling_process/2 has made it the owner, which then
  closes the socket with it if it fails.
  """
  @spec hand(:concbench_kit.run(), :gen_tcp.socket(), (:gen_tcp.socket() -> value)) :: Task.t()
        when value: term()
  def hand(run, socket, serve) do
    task =
      Task.async(
        Kit.unit(run, fn ->
          receive do
            {:socket, ^socket} -> serve.(socket)
          end
        end)
      )

    :ok = :gen_tcp.controlling_process(socket, task.pid)
    send(task.pid, {:socket, socket})
    task
  end
end
