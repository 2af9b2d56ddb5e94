defmodule Concbench.Kit do
  @moduledoc """
  The concbench Elixir kit: Erlang's (runtimes/erlang/kit/concbench_kit.erl)
  serves the trial, reads the request, loads workloads/<id>.ex's module by
  its compiled file (build/workloads/<id>.beam, the module :concbench_<id>),
  times its runs, collects garbage before each (garbage_collect, outside the
  clocks) and answers, its runtime's parallelism too (the schedulers online,
  which the BEAM sizes to the trial's CPUs itself), so that the rows beside
  erlang/process differ only in the workloads' Elixir abstractions: Task,
  GenServer, Task.async_stream.

  A mechanism is a function of one argument, the run, named after it; it
  calls the Erlang kit as Erlang's workloads do (:concbench_kit.param/2,
  timed/1, rate/2, stop_clocks/1).

  Units and peak_live are counted by the Erlang kit's code, unchanged: a
  Task's body runs under unit/2 (:concbench_kit.counted/2, the same atomics
  that spawn_unit/2 touches as a process starts and ends), a GenServer's
  life from its init/1 (:concbench_kit.unit_started/1) to its terminate/2
  (:concbench_kit.unit_finished/1). So the counting is erlang's, a unit's
  two atomic additions and its peak's compare-and-exchange; on a Task
  started and awaited per operation (5.5 to 9.2 us) it cost nothing
  measurable: counted against plain x0.98, x0.98 and x1.04, the median
  paired ratio of 9 to 15 rounds of 100,000 Tasks, three runs.
  """

  @doc "Serves one trial: the command's `-e` calls this with the workloads' folder."
  @spec main([String.t()]) :: no_return()
  def main([workload_dir]) do
    version = "#{System.version()} (OTP #{:concbench_kit.otp_version()})"
    :concbench_kit.main(String.to_charlist(workload_dir), %{name: "elixir", version: version})
  end

  @doc "`body` as a function that runs it as one unit of the run: a Task's body."
  @spec unit(:concbench_kit.run(), (() -> value)) :: (() -> value) when value: term()
  def unit(run, body), do: fn -> :concbench_kit.counted(run, body) end

  @doc "A server's start (`pid`), monitored so that await_ends/1 can await its end."
  @spec monitored({:ok, pid()}) :: {pid(), reference()}
  def monitored({:ok, pid}), do: {pid, Process.monitor(pid)}

  @doc "Awaits the end of the servers monitored/1 returned: each ends normally."
  @spec await_ends([{pid(), reference()}]) :: :ok
  def await_ends(servers) do
    Enum.each(servers, fn {pid, ref} ->
      receive do
        {:DOWN, ^ref, :process, ^pid, :normal} -> :ok
      end
    end)
  end
end
