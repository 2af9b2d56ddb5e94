defmodule Concbench.Lock do
  @moduledoc """
  A lock as a GenServer (mutex-cpu and mutex-io), as erlang/process's is a
  process (concbench_lock): acquire is a call whose reply the lock defers
  while another holds it, waiters served in the order they asked; release
  is a cast. The reply says whether the caller found it held (and so
  waited): the workloads' `contended` evidence, as the lock itself saw it.
  The lock is a helper, not a unit: the units are the Tasks contending.
  """
  use GenServer

  alias Concbench.Kit

  @doc "A free lock, linked to the caller."
  @spec new() :: pid()
  def new do
    {:ok, lock} = GenServer.start_link(__MODULE__, nil)
    lock
  end

  @spec stop(pid()) :: :ok
  def stop(lock), do: GenServer.stop(lock)

  @doc """
  Starts `workers` Tasks per group, each a lock and the datum its critical
  section takes; each enters `critical.(datum)` `iterations` times under its
  group's lock. Awaits them all: the acquisitions that found the lock held.
  """
  @spec contend(:concbench_kit.run(), [{pid(), datum}], pos_integer(), (datum -> term())) ::
          non_neg_integer()
        when datum: term()
  def contend(run, groups, iterations, critical) do
    contend(run, groups, iterations, fn _ -> nil end, fn datum, nil -> critical.(datum) end)
  end

  @doc """
  As `contend/4`, but in its iteration i (from 0) a Task first makes
  `input = before.(i)`, without the lock, and then enters
  `critical.(datum, input)` under it.
  """
  @spec contend(
          :concbench_kit.run(),
          [{pid(), datum}],
          pos_integer(),
          (non_neg_integer() -> input),
          (datum, input -> term())
        ) :: non_neg_integer()
        when datum: term(), input: term()
  def contend(run, groups, iterations, before, critical) do
    workers = :concbench_kit.param(run, :workers)

    for {lock, datum} <- groups, _ <- 1..workers do
      Task.async(Kit.unit(run, fn -> work(lock, datum, {before, critical}, 0, iterations, 0) end))
    end
    |> Task.await_many(:infinity)
    |> Enum.sum()
  end

  defp work(_lock, _datum, _steps, iterations, iterations, contended), do: contended

  defp work(lock, datum, {before, critical} = steps, i, iterations, contended) do
    input = before.(i)
    waited = GenServer.call(lock, :acquire, :infinity)
    critical.(datum, input)
    GenServer.cast(lock, :release)
    work(lock, datum, steps, i + 1, iterations, contended + if(waited, do: 1, else: 0))
  end

  # The state: :free, or the waiting callers, oldest first, while held.
  @impl true
  def init(nil), do: {:ok, :free}

  @impl true
  def handle_call(:acquire, _caller, :free), do: {:reply, false, :queue.new()}
  def handle_call(:acquire, caller, waiting), do: {:noreply, :queue.in(caller, waiting)}

  @impl true
  def handle_cast(:release, waiting) do
    case :queue.out(waiting) do
      {{:value, next}, rest} ->
        GenServer.reply(next, true)
        {:noreply, rest}

      {:empty, _} ->
        {:noreply, :free}
    end
  end
end
