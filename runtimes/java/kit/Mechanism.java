package concbench.kit;

/** One run of a workload on one mechanism (see {@link Run}). */
@FunctionalInterface
public interface Mechanism {
  void run(Run run) throws Exception;
}
