package dev.rota.control;

/**
 * What was asked conflicts with the state of the VM or set it names (a workflow's validator said
 * no, or a workflow of a deleted namesake is still closing): nothing was done, and asking again
 * later may succeed. The message says why, in words a user reads.
 */
public class Refused extends RuntimeException {
  public Refused(String message) {
    super(message);
  }
}
