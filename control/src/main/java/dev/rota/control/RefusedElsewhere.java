package dev.rota.control;

/**
 * What was asked needs a system outside the control plane (an OCI registry behind an agent), and
 * that system refused it: nothing was recorded, and the message says what it answered.
 */
public class RefusedElsewhere extends RuntimeException {
  public RefusedElsewhere(String message) {
    super(message);
  }
}
