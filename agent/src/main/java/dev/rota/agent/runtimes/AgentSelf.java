package dev.rota.agent.runtimes;

/**
 * How other agents reach this one, known once its server listens: what a task waiting for its VM
 * tells the agent the VM leaves ({@link QemuMoves}).
 *
 * @param worker this worker's name
 * @param endpoint this agent's task API ({@code https://host:port})
 * @param secret this agent's secret, which signs the token the other agent shows
 * @param certificateSha256 this agent's certificate pin; null over plain HTTP
 */
public record AgentSelf(String worker, String endpoint, String secret, String certificateSha256) {}
