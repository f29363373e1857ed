package dev.rota.agentapi;

/**
 * Where a persistent disk is copied from: the agent that holds it, reached directly.
 *
 * @param worker the holding worker's name, for what the copy says
 * @param endpoint the holding agent's task API ({@code https://host:port}); null when that worker
 *     is no longer registered, and the disk cannot be copied
 * @param token a {@link DiskToken} for the disk, signed by the holding agent's secret; null when
 *     that agent asks none (plain HTTP, dev mode)
 * @param certificateSha256 the holding agent's certificate pin; null over plain HTTP
 */
public record DiskSource(String worker, String endpoint, String token, String certificateSha256) {}
