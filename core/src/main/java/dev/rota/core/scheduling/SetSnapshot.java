package dev.rota.core.scheduling;

/**
 * A VM set as rebalancing sees it: how many replicas it wants, and how many of them may be
 * unavailable at once. A set being deleted is not in the snapshot: its replicas are not moved.
 */
public record SetSnapshot(String name, int replicas, int maxUnavailable) {}
