defmodule Concbench.WorkerModes do
  @moduledoc """
  The maps of map-trivial, map-cpu, map-io and map-shrink, Pbt's worker
  modes, for the Erlang kit's loop (concbench_workermodes:process/5, which
  runs an evaluation an operation, `batch` a batch): each makes a map from
  the run, its workers (0: one per scheduler online) and the evaluate
  function, whose results are in the inputs' order.
  """

  alias Concbench.Kit

  @doc """
  A map workload's two mechanisms, as Ruby's workloads extend WorkerModes:
  task and async_stream, each the module's evaluate(run, map) with its mode's
  map (striped/3, async_stream/3).
  """
  defmacro __using__(_options) do
    quote do
      @spec task(:concbench_kit.run()) :: map()
      def task(run), do: evaluate(run, &Concbench.WorkerModes.striped/3)

      @spec async_stream(:concbench_kit.run()) :: map()
      def async_stream(run), do: evaluate(run, &Concbench.WorkerModes.async_stream/3)
    end
  end

  @doc """
  task: as erlang/process's map, striped: `workers` Tasks an evaluation, no
  more than there are inputs; Task w of n evaluates the inputs w, w + n, ...
  (concbench_workermodes:deal/2), Task.await_many returns their results in
  their order, and they are interleaved back into the inputs'.
  """
  @spec striped(:concbench_kit.run(), pos_integer(), (input -> output)) :: ([input] -> [output])
        when input: term(), output: term()
  def striped(run, workers, evaluate) do
    fn inputs ->
      inputs
      |> :concbench_workermodes.deal(min(workers, length(inputs)))
      |> Enum.map(fn stripe -> Task.async(Kit.unit(run, fn -> Enum.map(stripe, evaluate) end)) end)
      |> Task.await_many(:infinity)
      |> :concbench_workermodes.interleave()
    end
  end

  @doc """
  async_stream: Task.async_stream over the inputs, a Task per input, at most
  `workers` at once (max_concurrency), ordered as the inputs.
  """
  @spec async_stream(:concbench_kit.run(), pos_integer(), (input -> output)) ::
          ([input] -> [output])
        when input: term(), output: term()
  def async_stream(run, workers, evaluate) do
    fn inputs ->
      inputs
      |> Task.async_stream(&:concbench_kit.counted(run, fn -> evaluate.(&1) end),
        max_concurrency: workers,
        timeout: :infinity
      )
      |> Enum.map(fn {:ok, output} -> output end)
    end
  end
end
