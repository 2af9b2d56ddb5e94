# Countdown latch (workloads/latch.toml): `count` units made at the start of
# a run serve all its rounds; in each of `rounds` rounds the caller makes a
# latch of `count`, asks every unit to count it down once, and waits until
# it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
# r to a tally of its own; the tallies are summed modulo 1,000,000,007.
defmodule :concbench_latch do
  alias Concbench.Kit
  alias Concbench.Latch.Unit

  @modulus 1_000_000_007

  @doc """
  Each unit a GenServer. As in erlang/process, a round's latch is a
  reference, each unit's count-down a message tagged with it (the unit's
  answer to the round's cast), and the caller waits until it has received
  `count` of them. Each unit's tally is its answer to the call that stops it.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    count = :concbench_kit.param(run, :count)

    units =
      for k <- 0..(count - 1) do
        Kit.monitored(GenServer.start_link(Unit, {run, k + 1}))
      end

    pids = Enum.map(units, &elem(&1, 0))

    woke =
      Enum.count(1..:concbench_kit.param(run, :rounds), fn _ ->
        await_latch(latch(pids), count)
      end)

    {countdowns, checksum} =
      Enum.reduce(pids, {0, 0}, fn unit, {countdowns, checksum} ->
        {made, tally} = GenServer.call(unit, :stop, :infinity)
        {countdowns + made, rem(checksum + tally, @modulus)}
      end)

    Kit.await_ends(units)
    %{result: %{rounds: woke, countdowns: countdowns, checksum: checksum}}
  end

  # A new latch, handed to every unit.
  defp latch(units) do
    latch = make_ref()
    Enum.each(units, &GenServer.cast(&1, {:count_down, self(), latch}))
    latch
  end

  defp await_latch(_latch, 0), do: true

  defp await_latch(latch, remaining) do
    receive do
      {^latch, :counted_down} -> await_latch(latch, remaining - 1)
    end
  end
end

defmodule Concbench.Latch.Unit do
  @moduledoc false
  use GenServer

  @modulus 1_000_000_007

  # Unit k's state: its weight, k + 1, its count-downs so far and its tally.
  @impl true
  def init({run, weight}) do
    :concbench_kit.unit_started(run)
    {:ok, %{run: run, weight: weight, made: 0, tally: 0}}
  end

  @impl true
  def handle_cast({:count_down, caller, latch}, %{made: made} = state) do
    send(caller, {latch, :counted_down})

    {:noreply,
     %{state | made: made + 1, tally: rem(state.tally + state.weight * (made + 1), @modulus)}}
  end

  @impl true
  def handle_call(:stop, _caller, state), do: {:stop, :normal, {state.made, state.tally}, state}

  @impl true
  def terminate(:normal, state), do: :concbench_kit.unit_finished(state.run)
end
