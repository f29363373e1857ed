package dev.rota.core.scheduling;

import java.util.Map;

/**
 * Resources a placed VM holds on its worker.
 *
 * @param set the VM set it is a replica of, or null: what spreading a set counts
 */
public record Holding(String worker, Map<String, Long> request, String set) {
  public Holding(String worker, Map<String, Long> request) {
    this(worker, request, null);
  }
}
