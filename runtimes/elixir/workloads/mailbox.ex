# Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
# 1..`messages` in order to a receiver unit's mailbox, which holds at most
# `capacity` messages (0: no bound); the receiver takes exactly `messages`,
# counting and summing them and adding k x payload of its k-th message to a
# checksum modulo 1,000,000,007, and hands its totals back to the caller.
defmodule :concbench_mailbox do
  alias Concbench.Kit
  alias Concbench.Mailbox.Receiver

  @doc """
  The receiver is a GenServer, each payload a cast to it; the sender is a
  Task. A GenServer's mailbox has no bound, so a bounded one is credit-based
  flow control, as in erlang/process: the sender starts with `capacity`
  credits, spends one per cast, and the receiver acks every message it
  takes, giving one back. Unbounded (0), the sender has credit for every
  message and the receiver sends no acks. The sender's first cast tells the
  receiver where to ack; the caller's call for the totals is answered once
  the last message is taken.

  blocked: sends that found no credit (no ack waiting, `after 0`), counted
  by the sender, and takes that found the mailbox empty, counted by the
  receiver: its loop's receive is GenServer's, which a callback does not
  see, so it counts a message after which its mailbox was empty (its
  message_queue_len) with more to come, the next take then waiting.
  """
  @spec genserver(:concbench_kit.run()) :: map()
  def genserver(run) do
    messages = :concbench_kit.param(run, :messages)
    capacity = :concbench_kit.param(run, :capacity)
    {receiver, _} = server = Kit.monitored(GenServer.start_link(Receiver, {run, messages}))
    credit = if capacity == 0, do: messages, else: capacity

    sender =
      Task.async(
        Kit.unit(run, fn ->
          GenServer.cast(receiver, {:ack_to, if(capacity == 0, do: nil, else: self())})
          send_all(receiver, 1, messages, credit, 0)
        end)
      )

    {count, sum, ordered, taken} = GenServer.call(receiver, :totals, :infinity)
    sent = Task.await(sender, :infinity)
    Kit.await_ends([server])
    %{result: %{count: count, sum: sum, ordered: ordered}, evidence: %{blocked: sent + taken}}
  end

  # The sender's loop: the count of sends that waited for credit.
  defp send_all(_receiver, payload, messages, _credit, blocked) when payload > messages,
    do: blocked

  defp send_all(receiver, payload, messages, 0, blocked) do
    receive do
      :ack -> send_all(receiver, payload, messages, 1, blocked)
    after
      0 ->
        receive do
          :ack -> send_all(receiver, payload, messages, 1, blocked + 1)
        end
    end
  end

  defp send_all(receiver, payload, messages, credit, blocked) do
    GenServer.cast(receiver, {:payload, payload})
    send_all(receiver, payload + 1, messages, credit - 1, blocked)
  end
end

defmodule Concbench.Mailbox.Receiver do
  @moduledoc false
  use GenServer

  @modulus 1_000_000_007

  @impl true
  def init({run, messages}) do
    :concbench_kit.unit_started(run)

    {:ok,
     %{
       run: run,
       messages: messages,
       k: 0,
       sum: 0,
       ordered: 0,
       blocked: 0,
       ack_to: nil,
       caller: nil
     }}
  end

  @impl true
  def handle_cast({:ack_to, sender}, state), do: {:noreply, %{state | ack_to: sender}}

  def handle_cast({:payload, payload}, %{k: k} = state) do
    if state.ack_to, do: send(state.ack_to, :ack)
    ordered = rem(state.ordered + rem(k + 1, @modulus) * rem(payload, @modulus), @modulus)
    state = %{state | k: k + 1, sum: state.sum + payload, ordered: ordered}
    {:message_queue_len, waiting} = Process.info(self(), :message_queue_len)

    state =
      if waiting == 0 and k + 1 < state.messages,
        do: %{state | blocked: state.blocked + 1},
        else: state

    answer(state)
  end

  @impl true
  def handle_call(:totals, caller, state), do: answer(%{state | caller: caller})

  # The totals, once every message is taken and the caller has asked.
  defp answer(%{k: messages, messages: messages, caller: caller} = state) when caller != nil do
    GenServer.reply(caller, {messages, state.sum, state.ordered, state.blocked})
    {:stop, :normal, state}
  end

  defp answer(state), do: {:noreply, state}

  @impl true
  def terminate(:normal, state), do: :concbench_kit.unit_finished(state.run)
end
