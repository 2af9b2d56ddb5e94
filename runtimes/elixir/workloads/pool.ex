# Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
# jobs; job j looks up key j mod `keys` in a table made before the timing
# (key k holds 2k + 1) and returns its value. All jobs are submitted, then
# all are awaited, and the values summed.
defmodule :concbench_pool do
  alias Concbench.Kit
  alias Concbench.Pool.Jobs

  @doc """
  `pool_size` worker Tasks taking jobs from one shared queue, a GenServer
  (where erlang/process's is a dispatcher process): a worker's call for the
  next job is answered at once, or deferred until one is submitted, or told
  to stop once the queue is closed and empty. The queue is not a unit. The
  table is an ETS table with read concurrency, which processes share without
  copying it.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    [pool_size, jobs, keys] = Enum.map([:pool_size, :jobs, :keys], &:concbench_kit.param(run, &1))
    table = :ets.new(:pool_table, [:set, read_concurrency: true])
    :ets.insert(table, for(key <- 0..(keys - 1), do: {key, 2 * key + 1}))
    {sum, span} = :concbench_kit.timed(fn -> serve(run, table, pool_size, jobs, keys) end)
    :ets.delete(table)
    %{result: %{sum: sum}, span: span}
  end

  # Submits every job, then closes the queue; awaits the values, the workers
  # and the queue's end.
  defp serve(run, table, pool_size, jobs, keys) do
    caller = self()
    {:ok, queue} = GenServer.start_link(Jobs, nil)

    workers =
      for _ <- 1..pool_size,
          do: Task.async(Kit.unit(run, fn -> work(queue, caller, table, keys) end))

    Enum.each(0..(jobs - 1), &GenServer.cast(queue, {:job, &1}))
    GenServer.cast(queue, :close)
    sum = sum_values(jobs, 0)
    Task.await_many(workers, :infinity)
    GenServer.stop(queue)
    sum
  end

  defp work(queue, caller, table, keys) do
    case GenServer.call(queue, :next, :infinity) do
      {:job, job} ->
        [{_, value}] = :ets.lookup(table, rem(job, keys))
        send(caller, {:value, value})
        work(queue, caller, table, keys)

      :stop ->
        :stopped
    end
  end

  defp sum_values(0, sum), do: sum

  defp sum_values(pending, sum) do
    receive do
      {:value, value} -> sum_values(pending - 1, sum + value)
    end
  end
end

defmodule Concbench.Pool.Jobs do
  @moduledoc false
  use GenServer

  # The jobs not yet taken, in the order submitted, the workers that asked
  # while there were none, and whether it is still open.
  @impl true
  def init(nil), do: {:ok, %{pending: :queue.new(), idle: [], open: true}}

  @impl true
  def handle_cast({:job, job}, %{idle: [worker | rest]} = state) do
    GenServer.reply(worker, {:job, job})
    {:noreply, %{state | idle: rest}}
  end

  def handle_cast({:job, job}, state),
    do: {:noreply, %{state | pending: :queue.in(job, state.pending)}}

  # A worker waits only while the queue is empty: every one waiting now is done.
  def handle_cast(:close, state) do
    Enum.each(state.idle, &GenServer.reply(&1, :stop))
    {:noreply, %{state | idle: [], open: false}}
  end

  @impl true
  def handle_call(:next, worker, state) do
    case :queue.out(state.pending) do
      {{:value, job}, rest} -> {:reply, {:job, job}, %{state | pending: rest}}
      {:empty, _} when state.open -> {:noreply, %{state | idle: [worker | state.idle]}}
      {:empty, _} -> {:reply, :stop, state}
    end
  end
end
