package concbench.kit;

/** A request the kit cannot serve: a clean refusal ({"ok": false}), not a failure. */
public final class Refusal extends Exception {
  private static final long serialVersionUID = 1L;

  public Refusal(String message) {
    super(message);
  }
}
