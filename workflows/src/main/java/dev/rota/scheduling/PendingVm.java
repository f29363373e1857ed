package dev.rota.scheduling;

import java.util.Map;

/**
 * A VM waiting for a worker.
 *
 * @param seq its place in submission order: older VMs are placed first
 */
public record PendingVm(String name, long seq, String runtime, Map<String, Long> request, Map<String, String> labels) {}
