package dev.rota.scheduling;

import java.util.Map;

/** Resources a placed VM holds on its worker. */
public record Holding(String worker, Map<String, Long> request) {}
