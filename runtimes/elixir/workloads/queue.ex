# Queue (workloads/queue.toml): per group one queue; its `producers` units
# each push 1..`items`, and once every producer is done, one stop token per
# consumer is pushed (by the producer that finished last); its `consumers`
# units pop until they get a stop token, counting and summing what they
# popped.
defmodule :concbench_queue do
  alias Concbench.Kit
  alias Concbench.Queue.Server

  # items are 1..items
  @stop_token 0

  @doc """
  A group's queue is a GenServer holding an Erlang :queue of at most
  `capacity` items (0: no bound, :infinity, above every integer in the
  term order), as erlang/process's queue is a process; its producers and
  consumers are Tasks. A push or pop is a call whose reply the queue defers
  while it is full or empty, the reply saying whether it waited. The queue
  is a helper, not a unit (the spec counts producers and consumers).

  blocked: pushes that found the queue full and pops that found it empty,
  as the queue saw them, each unit counting its own replies.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    [producers, consumers, items] =
      Enum.map([:producers, :consumers, :items], &:concbench_kit.param(run, &1))

    bound =
      case :concbench_kit.param(run, :capacity) do
        0 -> :infinity
        capacity -> capacity
      end

    groups =
      for _ <- 1..:concbench_kit.param(run, :groups) do
        {:ok, queue} = GenServer.start_link(Server, {bound, producers})

        producing =
          for _ <- 1..producers,
              do: Task.async(Kit.unit(run, fn -> produce(queue, items, consumers) end))

        consuming =
          for _ <- 1..consumers, do: Task.async(Kit.unit(run, fn -> consume(queue, 0, 0, 0) end))

        {queue, producing ++ consuming}
      end

    {count, sum, blocked} =
      groups
      |> Enum.flat_map(&elem(&1, 1))
      |> Task.await_many(:infinity)
      |> Enum.reduce(fn {count, sum, blocked}, {counts, sums, blocks} ->
        {counts + count, sums + sum, blocks + blocked}
      end)

    Enum.each(groups, fn {queue, _} -> GenServer.stop(queue) end)
    %{result: %{count: count, sum: sum}, evidence: %{blocked: blocked}}
  end

  # A producer: the pushes that waited, its own and, if it finished last,
  # those of the stop tokens. The queue tells it whether it was last.
  defp produce(queue, items, consumers) do
    blocked = Enum.reduce(1..items, 0, fn item, blocked -> blocked + push(queue, item) end)

    if GenServer.call(queue, :produced, :infinity) do
      {0, 0,
       Enum.reduce(1..consumers//1, blocked, fn _, blocked ->
         blocked + push(queue, @stop_token)
       end)}
    else
      {0, 0, blocked}
    end
  end

  # One push, answered once the item is in: 1 if it waited for room.
  defp push(queue, item), do: count(GenServer.call(queue, {:push, item}, :infinity))

  # A consumer: pops until a stop token; its count, sum and pops that waited.
  defp consume(queue, count, sum, blocked) do
    case GenServer.call(queue, :pop, :infinity) do
      {@stop_token, waited} -> {count, sum, blocked + count(waited)}
      {item, waited} -> consume(queue, count + 1, sum + item, blocked + count(waited))
    end
  end

  defp count(true), do: 1
  defp count(false), do: 0
end

defmodule Concbench.Queue.Server do
  @moduledoc false
  use GenServer

  # Its items, their number (:queue.len/1 walks the queue), its bound, the
  # producers still producing, and the callers waiting for room or for an
  # item, oldest first.
  @impl true
  def init({bound, producers}) do
    {:ok,
     %{
       items: :queue.new(),
       length: 0,
       bound: bound,
       producing: producers,
       pushers: :queue.new(),
       poppers: :queue.new()
     }}
  end

  # A push goes to the oldest waiting popper, else into the queue if it has
  # room, else waits.
  @impl true
  def handle_call({:push, item}, pusher, state) do
    case :queue.out(state.poppers) do
      {{:value, popper}, waiting} ->
        GenServer.reply(popper, {item, true})
        {:reply, false, %{state | poppers: waiting}}

      {:empty, _} when state.length < state.bound ->
        {:reply, false, %{state | items: :queue.in(item, state.items), length: state.length + 1}}

      {:empty, _} ->
        {:noreply, %{state | pushers: :queue.in({pusher, item}, state.pushers)}}
    end
  end

  # A pop takes the oldest item, and lets the oldest waiting pusher's item
  # in, or waits for a push.
  def handle_call(:pop, popper, %{length: 0} = state) do
    {:noreply, %{state | poppers: :queue.in(popper, state.poppers)}}
  end

  def handle_call(:pop, _popper, state) do
    {{:value, item}, rest} = :queue.out(state.items)

    case :queue.out(state.pushers) do
      {{:value, {pusher, pushed}}, waiting} ->
        GenServer.reply(pusher, true)
        {:reply, {item, false}, %{state | items: :queue.in(pushed, rest), pushers: waiting}}

      {:empty, _} ->
        {:reply, {item, false}, %{state | items: rest, length: state.length - 1}}
    end
  end

  def handle_call(:produced, _producer, %{producing: producing} = state) do
    {:reply, producing == 1, %{state | producing: producing - 1}}
  end
end
