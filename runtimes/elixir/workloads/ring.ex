# Ring (workloads/ring.toml): `nodes` units in a ring, each knowing the
# next. The first starts a token at count 0; every pass adds one. When the
# token reaches the first unit for the `laps`-th time, the first unit stops
# it and reports its count; then every unit is stopped and awaited.
defmodule :concbench_ring do
  alias Concbench.Kit
  alias Concbench.Ring.Node

  @doc """
  Every node a GenServer, the token a cast to the next. As in erlang/process,
  the nodes are started from the last (whose next is the first) back, and
  the first learns its next last: with a call, whose reply it defers until
  the token ends its last lap. A stop cast goes round once after the token.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    nodes = :concbench_kit.param(run, :nodes)

    first =
      Kit.monitored(GenServer.start_link(Node, {run, :first, :concbench_kit.param(run, :laps)}))

    others =
      Enum.reduce(2..nodes//1, [first], fn _, [{next, _} | _] = started ->
        [Kit.monitored(GenServer.start_link(Node, {run, :passes_to, next})) | started]
      end)

    [{second, _} | _] = others
    hops = GenServer.call(elem(first, 0), {:next, second}, :infinity)
    Kit.await_ends(others)
    %{result: %{hops: hops}}
  end
end

defmodule Concbench.Ring.Node do
  @moduledoc false
  use GenServer

  @impl true
  def init({run, :first, laps}) do
    :concbench_kit.unit_started(run)
    {:ok, %{run: run, laps: laps, lap: 1}}
  end

  def init({run, :passes_to, next}) do
    :concbench_kit.unit_started(run)
    {:ok, %{run: run, next: next}}
  end

  # The first node: its next, and the caller to tell the count.
  @impl true
  def handle_call({:next, next}, caller, state) do
    GenServer.cast(next, {:token, 1})
    {:noreply, Map.merge(state, %{next: next, caller: caller})}
  end

  @impl true
  def handle_cast({:token, count}, %{lap: laps, laps: laps} = state) do
    GenServer.reply(state.caller, count)
    GenServer.cast(state.next, :stop)
    {:stop, :normal, state}
  end

  def handle_cast({:token, count}, %{lap: lap} = state) do
    GenServer.cast(state.next, {:token, count + 1})
    {:noreply, %{state | lap: lap + 1}}
  end

  def handle_cast({:token, count}, state) do
    GenServer.cast(state.next, {:token, count + 1})
    {:noreply, state}
  end

  def handle_cast(:stop, state) do
    GenServer.cast(state.next, :stop)
    {:stop, :normal, state}
  end

  @impl true
  def terminate(:normal, state), do: :concbench_kit.unit_finished(state.run)
end
