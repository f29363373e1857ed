package dev.rota.scheduling;

import java.util.Map;

/**
 * A VM waiting for a worker.
 *
 * @param seq its place in submission order: older VMs are placed first
 * @param avoid a worker not to place it on (its task could not be started there lately), or null
 */
public record PendingVm(
    String name, long seq, String runtime, Map<String, Long> request, Map<String, String> labels, String avoid) {

  public PendingVm(String name, long seq, String runtime, Map<String, Long> request, Map<String, String> labels) {
    this(name, seq, runtime, request, labels, null);
  }
}
