package concbench.kit;

import java.util.Map;

/**
 * A workload's implementation: the one class of workloads/ID.java, named after the id in camel case
 * ({@code mutex-cpu.java} holds {@code MutexCpu}), with a no-argument constructor. The Makefile
 * writes the registry, {@code concbench.workloads.Registry}, from the files there, so that adding a
 * workload touches its own file only.
 */
public interface Workload {
  /** The mechanisms this workload is implemented for, by the manifest's names. */
  Map<String, Mechanism> mechanisms();
}
