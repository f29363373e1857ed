package dev.rota.control;

/** What was named (a VM, a set) does not exist, or no longer: nothing was done. */
public class NotFound extends RuntimeException {
  public NotFound(String kind, String name) {
    super(kind + " '" + name + "' does not exist");
  }
}
