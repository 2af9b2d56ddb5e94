# Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units at once; in
# each pair a pinger sends a count, starting at 0, to its ponger, which sends
# back the count plus one; the pinger sends that count plus one again, until
# it has had `rounds` replies. Each pinger then stops its ponger and reports
# the last count it received; the caller awaits every unit and sums the
# counts.
defmodule :concbench_ping_pong do
  alias Concbench.Kit
  alias Concbench.PingPong.Ponger

  @doc """
  Each ponger a GenServer answering a call, each pinger a Task that calls it
  (GenServer.call, Elixir's request and reply) and then stops it with a
  cast; the caller awaits the pingers' counts and the pongers' ends.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    rounds = :concbench_kit.param(run, :rounds)

    pairs =
      for _ <- 1..:concbench_kit.param(run, :pairs) do
        {ponger, _} = server = Kit.monitored(GenServer.start_link(Ponger, run))
        {Task.async(Kit.unit(run, fn -> ping(ponger, 0, rounds) end)), server}
      end

    count = pairs |> Enum.map(&elem(&1, 0)) |> Task.await_many(:infinity) |> Enum.sum()
    pairs |> Enum.map(&elem(&1, 1)) |> Kit.await_ends()
    %{result: %{count: count}}
  end

  defp ping(ponger, count, rounds) do
    case {GenServer.call(ponger, count, :infinity), rounds} do
      {reply, 1} ->
        GenServer.cast(ponger, :stop)
        reply

      {reply, _} ->
        ping(ponger, reply + 1, rounds - 1)
    end
  end
end

defmodule Concbench.PingPong.Ponger do
  @moduledoc false
  use GenServer

  @impl true
  def init(run) do
    :concbench_kit.unit_started(run)
    {:ok, run}
  end

  @impl true
  def handle_call(count, _pinger, run), do: {:reply, count + 1, run}

  @impl true
  def handle_cast(:stop, run), do: {:stop, :normal, run}

  @impl true
  def terminate(:normal, run), do: :concbench_kit.unit_finished(run)
end
