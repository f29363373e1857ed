package dev.rota.control;

/**
 * What a Temporal namespace must have before Rota's workflows run in it (its search attributes).
 * Made sure of at a host's start, and again when the scheduler's workflow is found missing: what
 * lost the workflows (a server or namespace made anew) lost this too, and without it the restored
 * workflows' starts are refused.
 */
public interface TemporalNamespaceSetup {
  /** Adds what is missing; a failure is the caller's to log, not to stop on. */
  void ensure();
}
